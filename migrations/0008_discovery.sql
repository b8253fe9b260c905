CREATE TABLE `like_quota` (
	`user_id` text NOT NULL,
	`day` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`user_id`, `day`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `likes` (
	`liker_id` text NOT NULL,
	`liked_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`liker_id`, `liked_id`),
	FOREIGN KEY (`liker_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`liked_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `likes_liked_created` ON `likes` (`liked_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `likes_liker_created` ON `likes` (`liker_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `member_search` (
	`sort_key` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`valid_from` integer NOT NULL,
	`valid_to` integer,
	`bucket` integer NOT NULL,
	`completeness` integer NOT NULL,
	`birth` text NOT NULL,
	`gender` text,
	`country` text,
	`state` text,
	`city` text,
	`age_min` integer NOT NULL,
	`age_max` integer NOT NULL,
	`has_photo` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `member_search_user` ON `member_search` (`user_id`,`valid_to`);--> statement-breakpoint
CREATE INDEX `member_search_closed` ON `member_search` (`valid_to`) WHERE "member_search"."valid_to" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `member_search_by_age` ON `member_search` (`birth`,`gender`,`age_min`,`age_max`,`has_photo`,`valid_to`,`valid_from`,`user_id`);--> statement-breakpoint
CREATE INDEX `member_search_by_gender` ON `member_search` (`gender`,`birth`,`age_min`,`age_max`,`has_photo`,`valid_to`,`valid_from`,`user_id`);--> statement-breakpoint
CREATE INDEX `member_search_by_country` ON `member_search` (`country`,`birth`,`gender`,`age_min`,`age_max`,`has_photo`,`valid_to`,`valid_from`,`user_id`);--> statement-breakpoint
CREATE INDEX `member_search_by_state` ON `member_search` (`country`,`state`,`birth`,`gender`,`age_min`,`age_max`,`has_photo`,`valid_to`,`valid_from`,`user_id`);--> statement-breakpoint
CREATE INDEX `member_search_by_city` ON `member_search` (`country`,`state`,`city`,`birth`,`gender`,`age_min`,`age_max`,`has_photo`,`valid_to`,`valid_from`,`user_id`);