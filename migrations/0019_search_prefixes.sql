-- Keywords read one list each (docs/decisions/016). A keyword is a prefix ("hik" finds hiking):
-- without prefix indexes, FTS5 merges the lists of every word the prefix begins, whole, before
-- the first match, so a search cost grew with the site (at a million members, 5–12 ms of database
-- time a keyword search; 350 ms for a single letter). With a list of its own per prefix of 1 to 8
-- characters, a keyword is one list in key order that the walk stops reading with the page;
-- longer keywords are looked up by their first 8 characters (app/server/search/filters.server.ts,
-- PREFIX_CHARS).
-- `detail=column` keeps which column each word is in (the keyword and tag column filters) but not
-- its positions, which no query reads (no phrases, no NEAR): the lists are a third smaller.
-- The triggers of migration 0009 write to the table by name, so they keep working.
DROP TABLE `member_search_fts`;--> statement-breakpoint
CREATE VIRTUAL TABLE `member_search_fts` USING fts5(
  username, first_name, bio, interests, tags,
  content = '', contentless_delete = 1,
  prefix = '1 2 3 4 5 6 7 8', detail = column,
  tokenize = 'unicode61 remove_diacritics 2'
);--> statement-breakpoint
-- Every member's full-text rows again: not here. Written in one statement, that took 164 s at a
-- million members, past D1's 30 s limit on a statement. Until 2026-11-29 this migration ended with
-- that statement (into the index it recreates, empty); a database that applied it then has its
-- rows written already. One that applies it now, with members, marks the rows for a rebuild in
-- batches by sort key, which housekeeping runs (app/server/search/text-rebuild.server.ts,
-- docs/decisions/050); until it is over, keyword searches find only the members it has passed.
CREATE TABLE IF NOT EXISTS `search_text_rebuild` (
	`id` integer PRIMARY KEY NOT NULL,
	`after` integer DEFAULT 0 NOT NULL,
	`started_at` text NOT NULL
);--> statement-breakpoint
INSERT INTO `search_text_rebuild` (`id`, `after`, `started_at`)
SELECT 1, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE EXISTS (SELECT 1 FROM `member_search`)
ON CONFLICT (`id`) DO UPDATE SET `after` = 0;
