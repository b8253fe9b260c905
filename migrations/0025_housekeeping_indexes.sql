-- Housekeeping (docs/decisions/023): each table the scheduled handler prunes gets the index its
-- retention rule reads, so that every batch of deletes finds its rows by an index range instead of
-- walking the table. Expand only: new indexes, no table or column changes; the code before it runs
-- unchanged (docs/decisions/024). Each index is built in one statement: on a table of millions of
-- rows that holds the database for seconds (see docs/runbook.md "Before a migration").
CREATE INDEX `sessions_expires_at` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `sessions_idle` ON `sessions` (`remember`,`last_active_at`);--> statement-breakpoint
CREATE INDEX `password_reset_tokens_expires_at` ON `password_reset_tokens` (`expires_at`);--> statement-breakpoint
CREATE INDEX `rate_limits_window_start` ON `rate_limits` (`window_start`);--> statement-breakpoint
CREATE INDEX `stripe_events_received_at` ON `stripe_events` (`received_at`);--> statement-breakpoint
CREATE INDEX `profile_views_day` ON `profile_views` (`day`);--> statement-breakpoint
CREATE INDEX `activities_created_at` ON `activities` (`created_at`);--> statement-breakpoint
CREATE INDEX `subscriptions_period_end` ON `subscriptions` (`current_period_end`);
