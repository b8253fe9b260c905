-- Money at the edges (docs/decisions/008-payments.md, 019-past-due-grace.md).
--
-- 1. Money records outlive the member: `payments`, `subscriptions`, `credit_transactions` and
--    `user_credits` no longer reference `users` (no cascade). When an account is deleted they keep
--    its id, which then resolves to nothing (a tombstone id): the refund, chargeback and tax trail
--    stays, without personal data. SQLite cannot drop a foreign key, so each table is rebuilt.
-- 2. Refunds and disputes: a payment knows its Stripe charge (payment intent), what was refunded,
--    its dispute and how many of its credits were taken back; `credit_reversals` records each
--    take-back (taken from the balance, and owed: taken from the next purchase).
-- 3. One live subscription: an open Checkout Session's URL is kept on its payment.
-- 4. Webhooks: each event is claimed by an insert that its primary key refuses a second time, and
--    its outcome is recorded (applied, ignored and why, failed).
-- 5. past_due grace: when the subscription became past due.
CREATE TABLE `__new_payments` (
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
	`checkout_url` text,
	`checkout_expires_at` text,
	`customer_ref` text,
	`subscription_ref` text,
	`charge_ref` text,
	`receipt_url` text,
	`refunded_cents` integer DEFAULT 0 NOT NULL,
	`dispute_status` text,
	`credits_reversed` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`pack_id`) REFERENCES `credit_packs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "payments_refunded_in_range" CHECK("refunded_cents" >= 0),
	CONSTRAINT "payments_dispute_status" CHECK("dispute_status" IS NULL OR "dispute_status" IN ('open', 'won', 'lost'))
);
--> statement-breakpoint
INSERT INTO `__new_payments` (`id`, `user_id`, `kind`, `pack_id`, `plan_id`, `billing_cycle`, `credits`, `amount_cents`, `currency`, `provider`, `provider_ref`, `status`, `created_at`, `completed_at`)
SELECT `id`, `user_id`, `kind`, `pack_id`, `plan_id`, `billing_cycle`, `credits`, `amount_cents`, `currency`, `provider`, `provider_ref`, `status`, `created_at`, `completed_at` FROM `payments`;
--> statement-breakpoint
DROP TABLE `payments`;--> statement-breakpoint
ALTER TABLE `__new_payments` RENAME TO `payments`;--> statement-breakpoint
CREATE UNIQUE INDEX `payments_provider_ref` ON `payments` (`provider`,`provider_ref`);--> statement-breakpoint
CREATE INDEX `payments_user` ON `payments` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `payments_charge_ref` ON `payments` (`charge_ref`);--> statement-breakpoint
CREATE INDEX `payments_subscription_ref` ON `payments` (`subscription_ref`);--> statement-breakpoint
-- At most one open subscription checkout per member: a second attempt answers the first's page.
CREATE UNIQUE INDEX `payments_open_subscription_checkout` ON `payments` (`user_id`) WHERE `kind` = 'subscription' AND `status` = 'pending' AND `provider` = 'stripe';--> statement-breakpoint
CREATE TABLE `__new_subscriptions` (
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
	`customer_ref` text,
	`past_due_since` text,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_subscriptions` (`user_id`, `plan_id`, `billing_cycle`, `status`, `provider`, `provider_ref`, `provider_event_at`, `current_period_start`, `current_period_end`, `cancelled_at`, `cancel_reason`, `created_at`, `updated_at`, `past_due_since`)
SELECT `user_id`, `plan_id`, `billing_cycle`, `status`, `provider`, `provider_ref`, `provider_event_at`, `current_period_start`, `current_period_end`, `cancelled_at`, `cancel_reason`, `created_at`, `updated_at`,
	CASE WHEN `status` = 'past_due' THEN `updated_at` END FROM `subscriptions`;
--> statement-breakpoint
DROP TABLE `subscriptions`;--> statement-breakpoint
ALTER TABLE `__new_subscriptions` RENAME TO `subscriptions`;--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_provider_ref` ON `subscriptions` (`provider_ref`);--> statement-breakpoint
CREATE INDEX `subscriptions_customer_ref` ON `subscriptions` (`customer_ref`);--> statement-breakpoint
CREATE TABLE `__new_credit_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`amount` integer NOT NULL,
	`direction` text NOT NULL,
	`reason` text NOT NULL,
	`reference` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	CONSTRAINT "credit_transactions_amount_positive" CHECK("amount" > 0),
	CONSTRAINT "credit_transactions_direction" CHECK("direction" IN ('in', 'out'))
);
--> statement-breakpoint
INSERT INTO `__new_credit_transactions` SELECT `id`, `user_id`, `amount`, `direction`, `reason`, `reference`, `created_at` FROM `credit_transactions`;
--> statement-breakpoint
DROP TABLE `credit_transactions`;--> statement-breakpoint
ALTER TABLE `__new_credit_transactions` RENAME TO `credit_transactions`;--> statement-breakpoint
CREATE INDEX `credit_transactions_user` ON `credit_transactions` (`user_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `credit_transactions_reference` ON `credit_transactions` (`reason`,`reference`);--> statement-breakpoint
CREATE TABLE `__new_user_credits` (
	`user_id` text PRIMARY KEY NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`lifetime_earned` integer DEFAULT 0 NOT NULL,
	`lifetime_spent` integer DEFAULT 0 NOT NULL,
	`owed` integer DEFAULT 0 NOT NULL,
	CONSTRAINT "user_credits_balance_non_negative" CHECK("balance" >= 0),
	CONSTRAINT "user_credits_owed_non_negative" CHECK("owed" >= 0)
);
--> statement-breakpoint
INSERT INTO `__new_user_credits` (`user_id`, `balance`, `lifetime_earned`, `lifetime_spent`)
SELECT `user_id`, `balance`, `lifetime_earned`, `lifetime_spent` FROM `user_credits`;
--> statement-breakpoint
DROP TABLE `user_credits`;--> statement-breakpoint
ALTER TABLE `__new_user_credits` RENAME TO `user_credits`;--> statement-breakpoint
CREATE TABLE `credit_reversals` (
	`id` text PRIMARY KEY NOT NULL,
	`payment_id` text NOT NULL,
	`user_id` text NOT NULL,
	`reason` text NOT NULL,
	`credits` integer NOT NULL,
	`taken` integer NOT NULL,
	`owed` integer NOT NULL,
	`created_at` text NOT NULL,
	CONSTRAINT "credit_reversals_reason" CHECK("reason" IN ('refund', 'dispute')),
	CONSTRAINT "credit_reversals_sum" CHECK("credits" > 0 AND "taken" >= 0 AND "owed" >= 0 AND "taken" + "owed" = "credits")
);
--> statement-breakpoint
CREATE INDEX `credit_reversals_payment` ON `credit_reversals` (`payment_id`);--> statement-breakpoint
ALTER TABLE `stripe_events` ADD `outcome` text DEFAULT 'applied' NOT NULL;--> statement-breakpoint
ALTER TABLE `stripe_events` ADD `note` text;--> statement-breakpoint
ALTER TABLE `stripe_events` ADD `object_id` text;--> statement-breakpoint
ALTER TABLE `stripe_events` ADD `claimed_at` text;--> statement-breakpoint
-- The gifts page reads a member's gifts newest first with the message id as the tie-break: each
-- list (sent, received) walks an index in exactly that order, and stops after one page.
DROP INDEX `gift_messages_sender`;--> statement-breakpoint
DROP INDEX `gift_messages_recipient`;--> statement-breakpoint
CREATE INDEX `gift_messages_sender` ON `gift_messages` (`sender_id`,`sent_at`,`message_id`);--> statement-breakpoint
CREATE INDEX `gift_messages_recipient` ON `gift_messages` (`recipient_id`,`sent_at`,`message_id`);
