CREATE TABLE `conversation_members` (
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`listed` integer DEFAULT false NOT NULL,
	`archived_at` text,
	`last_activity_at` text NOT NULL,
	`last_read_seq` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`conversation_id`, `user_id`),
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversation_members_list` ON `conversation_members` (`user_id`,`archived_at`,`last_activity_at`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`user_low` text NOT NULL,
	`user_high` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_low`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_high`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "conversations_ordered_pair" CHECK("conversations"."user_low" < "conversations"."user_high")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_pair` ON `conversations` (`user_low`,`user_high`);--> statement-breakpoint
CREATE INDEX `conversations_user_high` ON `conversations` (`user_high`);--> statement-breakpoint
CREATE TABLE `credit_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`amount` integer NOT NULL,
	`direction` text NOT NULL,
	`reason` text NOT NULL,
	`reference` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "credit_transactions_amount_positive" CHECK("credit_transactions"."amount" > 0),
	CONSTRAINT "credit_transactions_direction" CHECK("credit_transactions"."direction" IN ('in', 'out'))
);
--> statement-breakpoint
CREATE INDEX `credit_transactions_user` ON `credit_transactions` (`user_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `credit_transactions_reference` ON `credit_transactions` (`reason`,`reference`);--> statement-breakpoint
CREATE TABLE `gifts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`icon` text NOT NULL,
	`price_credits` integer NOT NULL,
	`position` integer NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	CONSTRAINT "gifts_price_positive" CHECK("gifts"."price_credits" > 0)
);
--> statement-breakpoint
CREATE TABLE `messages` (
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
CREATE UNIQUE INDEX `messages_conversation_seq` ON `messages` (`conversation_id`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `messages_sender_client_id` ON `messages` (`sender_id`,`client_id`);--> statement-breakpoint
CREATE INDEX `messages_conversation_sender_seq` ON `messages` (`conversation_id`,`sender_id`,`seq`);--> statement-breakpoint
CREATE TABLE `user_credits` (
	`user_id` text PRIMARY KEY NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`lifetime_earned` integer DEFAULT 0 NOT NULL,
	`lifetime_spent` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "user_credits_balance_non_negative" CHECK("user_credits"."balance" >= 0)
);
