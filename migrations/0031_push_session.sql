ALTER TABLE `push_subscriptions` ADD `session_hash` text REFERENCES sessions(id_hash) ON DELETE cascade;--> statement-breakpoint
CREATE INDEX `push_subscriptions_session` ON `push_subscriptions` (`session_hash`);
