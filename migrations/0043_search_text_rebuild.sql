-- Expand (docs/decisions/024). The full-text rows of migrations 0017, 0019 and 0020 are written
-- again in batches by housekeeping, not in one statement (docs/decisions/050): those migrations
-- now mark a rebuild in this table, which they create when they run. A database that applied them
-- before that change has its rows written already and no table: it gets it here, empty (no
-- rebuild wanted).
CREATE TABLE IF NOT EXISTS `search_text_rebuild` (
	`id` integer PRIMARY KEY NOT NULL,
	`after` integer DEFAULT 0 NOT NULL,
	`started_at` text NOT NULL
);
