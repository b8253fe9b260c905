-- Keywords or interests with a gender and a place read one list of that place and gender
-- (docs/decisions/010). The full-text query names the narrowest place filter as a token
-- (app/server/search/filters.server.ts, matchExpression); with a gender too, it names that place's
-- token for the gender, which lists the members of the place with that gender: about half as many
-- rows for the walk to check as the place's own list, so keyword + gender + country reads half
-- the rows. (A token of the gender alone would list half the site: intersecting it costs more
-- than checking the gender on each row.)
DROP VIEW `member_search_source`;--> statement-breakpoint
CREATE VIEW `member_search_source` AS
SELECT
  u.id AS user_id,
  -- The hour of the member's last activity; the day's first hour for members who hide it.
  CAST(unixepoch(coalesce(u.last_seen_at, u.email_verified_at, u.created_at)) / 3600 AS INTEGER)
    - CASE WHEN u.hide_online
        THEN CAST(unixepoch(coalesce(u.last_seen_at, u.email_verified_at, u.created_at)) / 3600 AS INTEGER) % 24
        ELSE 0 END AS bucket,
  (EXISTS (SELECT 1 FROM photos ph WHERE ph.user_id = u.id))
    + (trim(p.bio) <> '')
    + (p.interests NOT IN ('[]', '')) AS completeness,
  p.date_of_birth AS birth,
  nullif(lower(trim(p.gender)), '') AS gender,
  p.country_code AS country,
  p.state_code AS state,
  nullif(lower(trim(p.city_name)), '') AS city,
  p.age_min AS age_min,
  p.age_max AS age_max,
  EXISTS (SELECT 1 FROM photos ph WHERE ph.user_id = u.id) AS has_photo,
  u.username AS username,
  coalesce(p.first_name, '') AS first_name,
  p.bio AS bio,
  coalesce((SELECT group_concat(j.value, ' , ') FROM json_each(p.interests) j), '') AS interests,
  -- Each interest as one token (hex of its lower-cased text) for the "any of" interests filter.
  -- and the member's place, a token each (n country, p state, y city, then the hex of the value as
  -- member_search stores it), so that keywords and interests with a place read one list.
  coalesce((SELECT group_concat(hex(lower(trim(j.value))), ' ') FROM json_each(p.interests) j), '')
    || coalesce(' n' || hex(p.country_code), '')
    || coalesce(' p' || hex(p.state_code), '')
    || coalesce(' y' || hex(nullif(lower(trim(p.city_name)), '')), '')
    -- Each place again with the member's gender (the place's token, x, the hex of the gender as
    -- member_search stores it), so that a gender with a place is one list of its own too.
    || coalesce(' n' || hex(p.country_code) || 'x' || hex(nullif(lower(trim(p.gender)), '')), '')
    || coalesce(' p' || hex(p.state_code) || 'x' || hex(nullif(lower(trim(p.gender)), '')), '')
    || coalesce(' y' || hex(nullif(lower(trim(p.city_name)), '')) || 'x'
      || hex(nullif(lower(trim(p.gender)), '')), '') AS tags
FROM users u
JOIN profiles p ON p.user_id = u.id
WHERE u.status = 'active' AND u.email_verified_at IS NOT NULL AND u.hidden_by_reports = 0;
--> statement-breakpoint
-- A new gender is new text for the full-text rows (its place tokens).
DROP TRIGGER `profiles_search_update`;--> statement-breakpoint
CREATE TRIGGER `profiles_search_update` AFTER UPDATE ON `profiles`
WHEN NEW.first_name IS NOT OLD.first_name OR NEW.bio IS NOT OLD.bio
  OR NEW.interests IS NOT OLD.interests OR NEW.gender IS NOT OLD.gender
  OR NEW.date_of_birth IS NOT OLD.date_of_birth OR NEW.age_min IS NOT OLD.age_min
  OR NEW.age_max IS NOT OLD.age_max OR NEW.country_code IS NOT OLD.country_code
  OR NEW.state_code IS NOT OLD.state_code OR NEW.city_name IS NOT OLD.city_name
BEGIN
  INSERT INTO member_search_sync (user_id, text_changed)
  VALUES (NEW.user_id, NEW.first_name IS NOT OLD.first_name OR NEW.bio IS NOT OLD.bio
    OR NEW.interests IS NOT OLD.interests OR NEW.country_code IS NOT OLD.country_code
    OR NEW.state_code IS NOT OLD.state_code OR NEW.city_name IS NOT OLD.city_name
    OR NEW.gender IS NOT OLD.gender);
END;
--> statement-breakpoint
-- Every member's full-text rows again: not here. Written in one statement, that took 164 s at a
-- million members, past D1's 30 s limit on a statement. Until 2026-11-29 this migration ended with
-- `delete-all` and that statement; a database that applied it then has its rows rewritten already.
-- One that applies it now, with members, marks the rows for a rebuild in batches by sort key,
-- which housekeeping runs (app/server/search/text-rebuild.server.ts, docs/decisions/050).
CREATE TABLE IF NOT EXISTS `search_text_rebuild` (
	`id` integer PRIMARY KEY NOT NULL,
	`after` integer DEFAULT 0 NOT NULL,
	`started_at` text NOT NULL
);--> statement-breakpoint
INSERT INTO `search_text_rebuild` (`id`, `after`, `started_at`)
SELECT 1, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE EXISTS (SELECT 1 FROM `member_search`)
ON CONFLICT (`id`) DO UPDATE SET `after` = 0;
