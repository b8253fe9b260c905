CREATE TABLE `review_emails` (
	`email_key` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `review_emails_created` ON `review_emails` (`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `review_reason` text;--> statement-breakpoint
CREATE INDEX `users_in_review` ON `users` (`created_at`) WHERE "users"."review_reason" IS NOT NULL;