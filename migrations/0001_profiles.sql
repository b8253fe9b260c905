CREATE TABLE `profile_views` (
	`viewer_id` text NOT NULL,
	`viewed_id` text NOT NULL,
	`day` text NOT NULL,
	`viewed_at` text NOT NULL,
	PRIMARY KEY(`viewed_id`, `viewer_id`, `day`),
	FOREIGN KEY (`viewer_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`viewed_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `profile_views_viewed_at` ON `profile_views` (`viewed_id`,`viewed_at`);--> statement-breakpoint
CREATE INDEX `profile_views_viewer` ON `profile_views` (`viewer_id`);