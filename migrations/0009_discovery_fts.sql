-- Discovery search index: keeps `member_search` (0008_discovery) and its full-text table in step
-- with users, profiles and photos. Application code never writes either table; these triggers do,
-- whoever changes a member (the profile module, the seed, a heartbeat, a moderator).
--
-- A migration that rebuilds `users`, `profiles` or `photos` (drop and re-create) drops their
-- triggers and the `users_online` index: it must create them again (tests/discovery checks the
-- triggers exist and that "online now" searches use the index).
--
-- What a member looks like to search, computed from the source tables. Only active members with a
-- verified email and a profile are searchable.
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
  coalesce((SELECT group_concat(hex(lower(trim(j.value))), ' ') FROM json_each(p.interests) j), '') AS tags
FROM users u
JOIN profiles p ON p.user_id = u.id
WHERE u.status = 'active' AND u.email_verified_at IS NOT NULL;
--> statement-breakpoint
-- Keyword search over username, first name, bio and interests; `tags` serves the interests
-- filter. Its row ids are member_search sort keys, so matches come out in result order.
CREATE VIRTUAL TABLE `member_search_fts` USING fts5(
  username, first_name, bio, interests, tags,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `member_search_fts_insert` AFTER INSERT ON `member_search` BEGIN
  INSERT INTO member_search_fts (rowid, username, first_name, bio, interests, tags)
  SELECT NEW.sort_key, v.username, v.first_name, v.bio, v.interests, v.tags
  FROM member_search_source v WHERE v.user_id = NEW.user_id;
END;
--> statement-breakpoint
CREATE TRIGGER `member_search_fts_delete` AFTER DELETE ON `member_search` BEGIN
  DELETE FROM member_search_fts WHERE rowid = OLD.sort_key;
END;
--> statement-breakpoint
-- A request to bring one member's search rows up to date; the trigger below does the work and
-- removes the request, so the table is always empty between statements.
CREATE TABLE `member_search_sync` (
  `user_id` text NOT NULL,
  `text_changed` integer NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `member_search_sync_run` AFTER INSERT ON `member_search_sync` BEGIN
  -- No longer searchable (unverified, suspended, deleted): every row goes at once.
  DELETE FROM member_search
  WHERE user_id = NEW.user_id
    AND NOT EXISTS (SELECT 1 FROM member_search_source v WHERE v.user_id = NEW.user_id);
  -- The order changed (new activity hour, or completeness): close the current row.
  UPDATE member_search SET valid_to = CAST(unixepoch('subsec') * 1000 AS INTEGER)
  WHERE user_id = NEW.user_id AND valid_to IS NULL
    AND EXISTS (
      SELECT 1 FROM member_search_source v
      WHERE v.user_id = NEW.user_id
        AND (v.bucket <> member_search.bucket OR v.completeness <> member_search.completeness)
    );
  -- Everything else is updated in place, on every row of the member.
  UPDATE member_search SET
    birth = v.birth, gender = v.gender, country = v.country, state = v.state, city = v.city,
    age_min = v.age_min, age_max = v.age_max, has_photo = v.has_photo
  FROM member_search_source v
  WHERE v.user_id = NEW.user_id AND member_search.user_id = NEW.user_id
    AND (member_search.birth IS NOT v.birth OR member_search.gender IS NOT v.gender
      OR member_search.country IS NOT v.country OR member_search.state IS NOT v.state
      OR member_search.city IS NOT v.city OR member_search.age_min IS NOT v.age_min
      OR member_search.age_max IS NOT v.age_max OR member_search.has_photo IS NOT v.has_photo);
  -- New text for the full-text rows the member already has.
  DELETE FROM member_search_fts
  WHERE NEW.text_changed
    AND rowid IN (SELECT sort_key FROM member_search WHERE user_id = NEW.user_id);
  INSERT INTO member_search_fts (rowid, username, first_name, bio, interests, tags)
  SELECT s.sort_key, v.username, v.first_name, v.bio, v.interests, v.tags
  FROM member_search s JOIN member_search_source v ON v.user_id = s.user_id
  WHERE NEW.text_changed AND s.user_id = NEW.user_id;
  -- A current row when there is none: the next key of its (bucket, completeness) range.
  INSERT INTO member_search (
    sort_key, user_id, valid_from, valid_to, bucket, completeness,
    birth, gender, country, state, city, age_min, age_max, has_photo
  )
  SELECT
    coalesce(
      (SELECT max(s.sort_key) + 1 FROM member_search s
        WHERE s.sort_key >= (v.bucket * 4 + v.completeness) * 1073741824
          AND s.sort_key < (v.bucket * 4 + v.completeness + 1) * 1073741824),
      (v.bucket * 4 + v.completeness) * 1073741824
    ),
    v.user_id, CAST(unixepoch('subsec') * 1000 AS INTEGER), NULL, v.bucket, v.completeness,
    v.birth, v.gender, v.country, v.state, v.city, v.age_min, v.age_max, v.has_photo
  FROM member_search_source v
  WHERE v.user_id = NEW.user_id
    AND NOT EXISTS (SELECT 1 FROM member_search s WHERE s.user_id = NEW.user_id AND s.valid_to IS NULL);
  -- Rows closed more than a day ago serve no search any more; a few go on every change, which
  -- removes them at least as fast as changes close them.
  DELETE FROM member_search
  WHERE sort_key IN (
    SELECT sort_key FROM member_search
    WHERE valid_to IS NOT NULL AND valid_to < CAST(unixepoch('subsec') * 1000 AS INTEGER) - 86400000
    ORDER BY valid_to LIMIT 4
  );
  DELETE FROM member_search_sync WHERE rowid = NEW.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `users_search_update` AFTER UPDATE OF username, email_verified_at, status, hide_online, last_seen_at ON `users`
WHEN NEW.username IS NOT OLD.username
  OR NEW.email_verified_at IS NOT OLD.email_verified_at
  OR NEW.status IS NOT OLD.status
  OR NEW.hide_online IS NOT OLD.hide_online
  OR unixepoch(NEW.last_seen_at) / 3600 IS NOT unixepoch(OLD.last_seen_at) / 3600
BEGIN
  INSERT INTO member_search_sync (user_id, text_changed)
  VALUES (NEW.id, NEW.username IS NOT OLD.username);
END;
--> statement-breakpoint
CREATE TRIGGER `profiles_search_insert` AFTER INSERT ON `profiles` BEGIN
  INSERT INTO member_search_sync (user_id, text_changed) VALUES (NEW.user_id, 1);
END;
--> statement-breakpoint
CREATE TRIGGER `profiles_search_update` AFTER UPDATE ON `profiles`
WHEN NEW.first_name IS NOT OLD.first_name OR NEW.bio IS NOT OLD.bio
  OR NEW.interests IS NOT OLD.interests OR NEW.gender IS NOT OLD.gender
  OR NEW.date_of_birth IS NOT OLD.date_of_birth OR NEW.age_min IS NOT OLD.age_min
  OR NEW.age_max IS NOT OLD.age_max OR NEW.country_code IS NOT OLD.country_code
  OR NEW.state_code IS NOT OLD.state_code OR NEW.city_name IS NOT OLD.city_name
BEGIN
  INSERT INTO member_search_sync (user_id, text_changed)
  VALUES (NEW.user_id, NEW.first_name IS NOT OLD.first_name OR NEW.bio IS NOT OLD.bio
    OR NEW.interests IS NOT OLD.interests);
END;
--> statement-breakpoint
CREATE TRIGGER `photos_search_insert` AFTER INSERT ON `photos` BEGIN
  INSERT INTO member_search_sync (user_id, text_changed) VALUES (NEW.user_id, 0);
END;
--> statement-breakpoint
CREATE TRIGGER `photos_search_delete` AFTER DELETE ON `photos` BEGIN
  INSERT INTO member_search_sync (user_id, text_changed) VALUES (OLD.user_id, 0);
END;
--> statement-breakpoint
-- The members online now (seen in the last minutes, not hiding it): where "online now" searches
-- start, so that they read the members online rather than every member.
CREATE INDEX `users_online` ON `users` (`last_seen_at`, `id`) WHERE `hide_online` = 0;
--> statement-breakpoint
-- Members who existed before this migration.
INSERT INTO member_search_sync (user_id, text_changed) SELECT id, 1 FROM users;
