-- The messages live in their conversations' rooms now (docs/decisions/012-chat-in-rooms.md). This
-- drops D1's copy only once every message was moved: run the migration step (POST
-- /admin/chat/migrate until next_cursor is null) after deploying 0014, then apply this one. A
-- message not moved yet (no row in message_rooms) fails the CHECK below and nothing is dropped.
CREATE TABLE `chat_migration_guard` (
	`messages_not_in_rooms` integer NOT NULL,
	CONSTRAINT `run_the_chat_migration_step_first` CHECK(`messages_not_in_rooms` = 0)
);
--> statement-breakpoint
INSERT INTO `chat_migration_guard` SELECT count(*) FROM `messages` m
	WHERE NOT EXISTS (SELECT 1 FROM `message_rooms` r WHERE r.`message_id` = m.`id`);--> statement-breakpoint
DROP TABLE `chat_migration_guard`;--> statement-breakpoint
DROP TABLE `messages`;--> statement-breakpoint
DROP INDEX `conversation_members_list`;--> statement-breakpoint
CREATE INDEX `conversation_members_user` ON `conversation_members` (`user_id`,`last_activity_at`);--> statement-breakpoint
ALTER TABLE `conversation_members` DROP COLUMN `listed`;--> statement-breakpoint
ALTER TABLE `conversation_members` DROP COLUMN `archived_at`;--> statement-breakpoint
ALTER TABLE `conversation_members` DROP COLUMN `last_read_seq`;