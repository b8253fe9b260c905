CREATE TABLE `credit_packs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`credits` integer NOT NULL,
	`price_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`position` integer NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	CONSTRAINT "credit_packs_credits_positive" CHECK("credit_packs"."credits" > 0),
	CONSTRAINT "credit_packs_price_positive" CHECK("credit_packs"."price_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`pack_id` text,
	`plan_id` text,
	`billing_cycle` text,
	`credits` integer,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`provider` text NOT NULL,
	`provider_ref` text,
	`status` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`completed_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`pack_id`) REFERENCES `credit_packs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_provider_ref` ON `payments` (`provider`,`provider_ref`);--> statement-breakpoint
CREATE INDEX `payments_user` ON `payments` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `plans` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`price_monthly_cents` integer NOT NULL,
	`price_yearly_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`perks` text NOT NULL,
	`daily_likes` integer NOT NULL,
	`advanced_search` integer DEFAULT false NOT NULL,
	`incognito` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	CONSTRAINT "plans_prices_positive" CHECK("plans"."price_monthly_cents" > 0 AND "plans"."price_yearly_cents" > 0)
);
--> statement-breakpoint
CREATE TABLE `stripe_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`user_id` text PRIMARY KEY NOT NULL,
	`plan_id` text NOT NULL,
	`billing_cycle` text NOT NULL,
	`status` text NOT NULL,
	`provider` text NOT NULL,
	`provider_ref` text,
	`provider_event_at` integer,
	`current_period_start` text NOT NULL,
	`current_period_end` text NOT NULL,
	`cancelled_at` text,
	`cancel_reason` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_provider_ref` ON `subscriptions` (`provider_ref`);--> statement-breakpoint
-- What is on sale: every environment starts with the same packs and plans. Prices are in cents.
INSERT INTO `credit_packs` (`id`, `name`, `credits`, `price_cents`, `currency`, `position`, `active`) VALUES
	('starter', 'Starter', 50, 499, 'usd', 1, 1),
	('popular', 'Popular', 120, 999, 'usd', 2, 1),
	('value', 'Value', 300, 1999, 'usd', 3, 1),
	('big', 'Big', 800, 4499, 'usd', 4, 1)
ON CONFLICT(`id`) DO NOTHING;
--> statement-breakpoint
INSERT INTO `plans` (`id`, `name`, `price_monthly_cents`, `price_yearly_cents`, `currency`, `perks`, `daily_likes`, `advanced_search`, `incognito`, `position`, `active`) VALUES
	('plus', 'Plus', 999, 7999, 'usd', '["150 likes a day","Advanced search filters"]', 150, 1, 0, 1, 1),
	('premium', 'Premium', 1999, 15999, 'usd', '["500 likes a day","Advanced search filters","Incognito browsing"]', 500, 1, 1, 2, 1)
ON CONFLICT(`id`) DO NOTHING;
