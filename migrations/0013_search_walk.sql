-- Partitions of the search table in key order (docs/decisions/010): a place or a gender, then the
-- row id (the sort key) that SQLite appends to every index entry. A first page walks one from the
-- top. Plain indexes on an existing table: safe on existing data.
CREATE INDEX `member_search_in_country` ON `member_search` (`country`);--> statement-breakpoint
CREATE INDEX `member_search_in_state` ON `member_search` (`country`,`state`);--> statement-breakpoint
CREATE INDEX `member_search_in_city` ON `member_search` (`country`,`state`,`city`);--> statement-breakpoint
CREATE INDEX `member_search_of_gender` ON `member_search` (`gender`);