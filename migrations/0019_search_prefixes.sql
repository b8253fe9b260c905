-- Keywords read one list each (docs/decisions/016). A keyword is a prefix ("hik" finds hiking):
-- without prefix indexes, FTS5 merges the lists of every word the prefix begins, whole, before
-- the first match, so a search cost grew with the site (at a million members, 5–12 ms of database
-- time a keyword search). With a list of its own per prefix of 2 to 8 characters, a keyword is
-- one list in key order that the walk stops reading with the page; longer keywords are looked up
-- by their first 8 characters (app/server/search/filters.server.ts, PREFIX_CHARS).
-- `detail=column` keeps which column each word is in (the keyword and tag column filters) but not
-- its positions, which no query reads (no phrases, no NEAR): the lists are a third smaller.
-- The triggers of migration 0009 write to the table by name, so they keep working.
DROP TABLE `member_search_fts`;--> statement-breakpoint
CREATE VIRTUAL TABLE `member_search_fts` USING fts5(
  username, first_name, bio, interests, tags,
  content = '', contentless_delete = 1,
  prefix = '2 3 4 5 6 7 8', detail = column,
  tokenize = 'unicode61 remove_diacritics 2'
);--> statement-breakpoint
-- Every member's full-text rows again (the same rows and keys).
INSERT INTO `member_search_fts` (rowid, username, first_name, bio, interests, tags)
SELECT s.sort_key, v.username, v.first_name, v.bio, v.interests, v.tags
FROM `member_search` s JOIN `member_search_source` v ON v.user_id = s.user_id;
