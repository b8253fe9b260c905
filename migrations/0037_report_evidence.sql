CREATE TABLE `report_evidence` (
	`id` text PRIMARY KEY NOT NULL,
	`reporter_id` text NOT NULL,
	`reported_id` text NOT NULL,
	`reason_type` text NOT NULL,
	`details` text,
	`message_id` text,
	`message_text` text,
	`status` text NOT NULL,
	`weight` integer NOT NULL,
	`reported_at` text NOT NULL,
	`profile` text NOT NULL,
	`conversation` text,
	`kept_at` text NOT NULL,
	`erase_after` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `report_evidence_erase_after` ON `report_evidence` (`erase_after`);--> statement-breakpoint
CREATE INDEX `report_evidence_kept` ON `report_evidence` (`kept_at`);