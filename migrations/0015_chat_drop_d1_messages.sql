-- The messages live in their conversations' rooms now (docs/decisions/012-chat-in-rooms.md). This
-- is a contract for the code before the rooms, but it drops nothing that was not moved: D1's
-- messages are kept as `legacy_messages` (renamed with their indexes, so the rename costs nothing
-- whatever their number) and the members' list and read state that the columns dropped below held
-- is copied into `legacy_conversation_members`. Today's code reads both: every room imports its
-- conversation's rows by itself before its first use, and the migration step (POST
-- /admin/chat/migrate until next_cursor is null) walks every conversation; both run after the
-- whole upgrade, so a database from before 0014 upgrades in one go (docs/decisions/024).
--
-- Before this version, 0015 refused (a CHECK named run_the_chat_migration_step_first) while a
-- message was not in its room, then dropped `messages`: a database from before 0014 upgraded in
-- one go stopped here with today's code unable to run the step. A migration already applied is
-- never applied again, so this version only changes databases that had not applied 0015; those
-- that did (every message moved and dropped) get empty legacy tables from 0042.
ALTER TABLE `messages` RENAME TO `legacy_messages`;--> statement-breakpoint
CREATE TABLE `legacy_conversation_members` (
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`listed` integer NOT NULL,
	`archived_at` text,
	`last_read_seq` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `user_id`),
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `legacy_conversation_members` (`conversation_id`, `user_id`, `listed`, `archived_at`, `last_read_seq`)
	SELECT `conversation_id`, `user_id`, `listed`, `archived_at`, `last_read_seq` FROM `conversation_members`;--> statement-breakpoint
DROP INDEX `conversation_members_list`;--> statement-breakpoint
CREATE INDEX `conversation_members_user` ON `conversation_members` (`user_id`,`last_activity_at`);--> statement-breakpoint
ALTER TABLE `conversation_members` DROP COLUMN `listed`;--> statement-breakpoint
ALTER TABLE `conversation_members` DROP COLUMN `archived_at`;--> statement-breakpoint
ALTER TABLE `conversation_members` DROP COLUMN `last_read_seq`;
