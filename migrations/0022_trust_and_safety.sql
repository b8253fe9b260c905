-- Unmatch (API.md "Unmatch, verification, appeals and message safety"): a conversation ends when
-- one of its members unmatches the other. It keeps its id and its room (what was written stays for
-- the moderators) but neither member can read or write it again; a new mutual like opens a new
-- conversation, so one pair has at most one conversation that has not ended.
ALTER TABLE `conversations` ADD `ended_at` text;--> statement-breakpoint
DROP INDEX `conversations_pair`;--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_pair` ON `conversations` (`user_low`,`user_high`) WHERE `ended_at` IS NULL;--> statement-breakpoint
-- One row per pair that unmatched: neither may message the other until both like each other again
-- (the like that makes the new match deletes the row).
CREATE TABLE `unmatches` (
	`user_low` text NOT NULL,
	`user_high` text NOT NULL,
	`unmatched_by` text NOT NULL,
	`unmatched_at` text NOT NULL,
	PRIMARY KEY(`user_low`, `user_high`),
	FOREIGN KEY (`user_low`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_high`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "unmatches_ordered_pair" CHECK("unmatches"."user_low" < "unmatches"."user_high")
);
--> statement-breakpoint
CREATE INDEX `unmatches_user_high` ON `unmatches` (`user_high`);
