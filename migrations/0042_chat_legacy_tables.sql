-- Expand: the legacy chat tables that 0015 keeps (docs/decisions/024), for databases that applied
-- 0015 before it kept them. Those databases dropped D1's messages only once every one was in its
-- room, so the tables start empty and stay so; a database that applied today's 0015 already has
-- them (with the messages not yet moved) and nothing here changes it. The index names are those
-- the rename in 0015 carried over. Today's code reads these tables (app/server/chat-migration.server.ts);
-- the code of the release before only ever read `messages`, gone since 0015 either way.
CREATE TABLE IF NOT EXISTS `legacy_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`seq` integer NOT NULL,
	`sender_id` text NOT NULL,
	`client_id` text,
	`message` text NOT NULL,
	`gift_id` text,
	`sent_at` text NOT NULL,
	`read_at` text,
	`deleted_at` text,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`sender_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`gift_id`) REFERENCES `gifts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `messages_conversation_seq` ON `legacy_messages` (`conversation_id`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `messages_sender_client_id` ON `legacy_messages` (`sender_id`,`client_id`);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `messages_conversation_sender_seq` ON `legacy_messages` (`conversation_id`,`sender_id`,`seq`);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `legacy_conversation_members` (
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`listed` integer NOT NULL,
	`archived_at` text,
	`last_read_seq` integer NOT NULL,
	PRIMARY KEY(`conversation_id`, `user_id`),
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
