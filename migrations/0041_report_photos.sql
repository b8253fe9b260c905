-- Reported photos kept as evidence (docs/decisions/049): at a report, a copy of each of the
-- reported member's photos goes to R2 under evidence/<report>/ and is listed here, for moderators
-- only. A copy is kept while its report is open; erase_after is set when the report stops needing
-- it (dismissed, upheld, kept after a deletion, or gone with its reporter), and housekeeping
-- erases the object and the row once it has passed, through report_photos_erase_after.
CREATE TABLE `report_photos` (
	`report_id` text NOT NULL,
	`photo_id` text NOT NULL,
	`position` integer NOT NULL,
	`r2_key` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`kept_at` text NOT NULL,
	`erase_after` text,
	PRIMARY KEY(`report_id`, `photo_id`)
);
--> statement-breakpoint
CREATE INDEX `report_photos_erase_after` ON `report_photos` (`erase_after`);