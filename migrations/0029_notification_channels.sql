-- Notifications by channel (API.md "Away from the app", app/server/notifications.server.ts): each
-- kind's push and email switches beside the in-app one (`enabled`), null meaning the kind's default,
-- and a member's quiet hours and lock-screen preview.
-- Expand only (docs/decisions/024): new nullable columns and a new table the code before it ignores.
CREATE TABLE `notification_settings` (
	`user_id` text PRIMARY KEY NOT NULL,
	`quiet_start` text,
	`quiet_end` text,
	`time_zone` text,
	`preview` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `notification_preferences` ADD `push` integer;--> statement-breakpoint
ALTER TABLE `notification_preferences` ADD `email` integer;