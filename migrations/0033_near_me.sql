CREATE TABLE `member_places` (
	`id` integer PRIMARY KEY NOT NULL,
	`x` real NOT NULL,
	`y` real NOT NULL,
	`z` real NOT NULL,
	`cell` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `member_places_point` ON `member_places` (`x`,`y`,`z`);--> statement-breakpoint
CREATE INDEX `member_places_by_cell` ON `member_places` (`cell`,`x`,`y`,`z`);--> statement-breakpoint
ALTER TABLE `profiles` ADD `latitude` real;--> statement-breakpoint
ALTER TABLE `profiles` ADD `longitude` real;--> statement-breakpoint
ALTER TABLE `profiles` ADD `prompts` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `profiles` ADD `travel_country_code` text;--> statement-breakpoint
ALTER TABLE `profiles` ADD `travel_state_code` text;--> statement-breakpoint
ALTER TABLE `profiles` ADD `travel_city_name` text;--> statement-breakpoint
ALTER TABLE `profiles` ADD `travel_location` text;--> statement-breakpoint
ALTER TABLE `profiles` ADD `travel_latitude` real;--> statement-breakpoint
ALTER TABLE `profiles` ADD `travel_longitude` real;--> statement-breakpoint
ALTER TABLE `profiles` ADD `travel_started_at` text;--> statement-breakpoint
CREATE INDEX `profiles_without_coordinates` ON `profiles` (`user_id`) WHERE "profiles"."latitude" IS NULL AND "profiles"."country_code" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `likes` ADD `comment` text;--> statement-breakpoint
ALTER TABLE `likes` ADD `target_photo_id` text;--> statement-breakpoint
ALTER TABLE `likes` ADD `target_prompt_id` text;--> statement-breakpoint
ALTER TABLE `member_search` ADD `x` real;--> statement-breakpoint
ALTER TABLE `member_search` ADD `y` real;--> statement-breakpoint
ALTER TABLE `member_search` ADD `z` real;--> statement-breakpoint
ALTER TABLE `member_search` ADD `cell` integer;--> statement-breakpoint
CREATE INDEX `member_search_by_cell` ON `member_search` (`cell`,`birth`,`gender`,`age_min`,`age_max`,`has_photo`,`valid_to`,`valid_from`,`user_id`,`x`,`y`,`z`);--> statement-breakpoint
CREATE INDEX `member_search_at_point` ON `member_search` (`x`,`y`,`z`);--> statement-breakpoint
ALTER TABLE `member_search` ADD `joined` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `member_search_newest` ON `member_search` (`joined`);--> statement-breakpoint
-- Near me (docs/decisions/040): the search rows carry the member's place as a point on the unit
-- sphere (x, y, z: a radius is a dot product) and its one-degree grid cell (the by_cell index);
-- the full-text rows carry the place's cells as tokens (ga: one degree, gb: four degrees), so that
-- a radius with many members reads their list in result order like a place does; member_places
-- lists the places members are in, for searches sorted by distance; the bio column
-- carries the prompt answers, so keywords find them. While a member travels (a subscriber perk),
-- their travel place stands for their own in all of it.
DROP VIEW `member_search_source`;--> statement-breakpoint
CREATE VIEW `member_search_source` AS
SELECT
  v.*,
  cos(radians(v.lat)) * cos(radians(v.lng)) AS x,
  cos(radians(v.lat)) * sin(radians(v.lng)) AS y,
  sin(radians(v.lat)) AS z,
  min(179, CAST(floor(v.lat + 90) AS INTEGER)) * 360 + CAST(floor(v.lng + 180) AS INTEGER) % 360 AS cell,
  v.place_tags
    || coalesce(' ga' || (min(179, CAST(floor(v.lat + 90) AS INTEGER)) * 360
      + CAST(floor(v.lng + 180) AS INTEGER) % 360), '')
    || coalesce(' gb' || (min(44, CAST(floor((v.lat + 90) / 4) AS INTEGER)) * 90
      + CAST(floor((v.lng + 180) / 4) AS INTEGER) % 90), '') AS tags
FROM (
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
    pl.country AS country,
    pl.state AS state,
    nullif(lower(trim(pl.city)), '') AS city,
    pl.lat AS lat,
    pl.lng AS lng,
    p.age_min AS age_min,
    p.age_max AS age_max,
    EXISTS (SELECT 1 FROM photos ph WHERE ph.user_id = u.id) AS has_photo,
    u.username AS username,
    CAST(unixepoch(u.created_at) AS INTEGER) AS joined,
    coalesce(p.first_name, '') AS first_name,
    p.bio || coalesce((SELECT ' ' || group_concat(j.value ->> 'answer', ' ') FROM json_each(p.prompts) j), '') AS bio,
    coalesce((SELECT group_concat(j.value, ' , ') FROM json_each(p.interests) j), '') AS interests,
    -- Each interest as one token (hex of its lower-cased text) for the "any of" interests filter,
    -- then the place's tokens and the place's with the gender (0017, 0020).
    coalesce((SELECT group_concat(hex(lower(trim(j.value))), ' ') FROM json_each(p.interests) j), '')
      || coalesce(' n' || hex(pl.country), '')
      || coalesce(' p' || hex(pl.state), '')
      || coalesce(' y' || hex(nullif(lower(trim(pl.city)), '')), '')
      || coalesce(' n' || hex(pl.country) || 'x' || hex(nullif(lower(trim(p.gender)), '')), '')
      || coalesce(' p' || hex(pl.state) || 'x' || hex(nullif(lower(trim(p.gender)), '')), '')
      || coalesce(' y' || hex(nullif(lower(trim(pl.city)), '')) || 'x'
        || hex(nullif(lower(trim(p.gender)), '')), '') AS place_tags
  FROM users u
  JOIN profiles p ON p.user_id = u.id
  -- The place the member is found in: their travel place while they travel, else their own.
  JOIN (
    SELECT q.user_id,
      CASE WHEN q.travel_country_code IS NULL THEN q.country_code ELSE q.travel_country_code END AS country,
      CASE WHEN q.travel_country_code IS NULL THEN q.state_code ELSE q.travel_state_code END AS state,
      CASE WHEN q.travel_country_code IS NULL THEN q.city_name ELSE q.travel_city_name END AS city,
      CASE WHEN q.travel_country_code IS NULL THEN q.latitude ELSE q.travel_latitude END AS lat,
      CASE WHEN q.travel_country_code IS NULL THEN q.longitude ELSE q.travel_longitude END AS lng
    FROM profiles q
  ) pl ON pl.user_id = p.user_id
  WHERE u.status = 'active' AND u.email_verified_at IS NOT NULL AND u.hidden_by_reports = 0
) v;
--> statement-breakpoint
DROP TRIGGER `member_search_sync_run`;--> statement-breakpoint
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
    age_min = v.age_min, age_max = v.age_max, has_photo = v.has_photo,
    x = v.x, y = v.y, z = v.z, cell = v.cell, joined = v.joined
  FROM member_search_source v
  WHERE v.user_id = NEW.user_id AND member_search.user_id = NEW.user_id
    AND (member_search.birth IS NOT v.birth OR member_search.gender IS NOT v.gender
      OR member_search.country IS NOT v.country OR member_search.state IS NOT v.state
      OR member_search.city IS NOT v.city OR member_search.age_min IS NOT v.age_min
      OR member_search.age_max IS NOT v.age_max OR member_search.has_photo IS NOT v.has_photo
      OR member_search.x IS NOT v.x OR member_search.y IS NOT v.y OR member_search.z IS NOT v.z
      OR member_search.cell IS NOT v.cell OR member_search.joined IS NOT v.joined);
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
    birth, gender, country, state, city, age_min, age_max, has_photo, x, y, z, cell, joined
  )
  SELECT
    coalesce(
      (SELECT max(s.sort_key) + 1 FROM member_search s
        WHERE s.sort_key >= (v.bucket * 4 + v.completeness) * 1073741824
          AND s.sort_key < (v.bucket * 4 + v.completeness + 1) * 1073741824),
      (v.bucket * 4 + v.completeness) * 1073741824
    ),
    v.user_id, CAST(unixepoch('subsec') * 1000 AS INTEGER), NULL, v.bucket, v.completeness,
    v.birth, v.gender, v.country, v.state, v.city, v.age_min, v.age_max, v.has_photo,
    v.x, v.y, v.z, v.cell, v.joined
  FROM member_search_source v
  WHERE v.user_id = NEW.user_id
    AND NOT EXISTS (SELECT 1 FROM member_search s WHERE s.user_id = NEW.user_id AND s.valid_to IS NULL);
  -- A place nobody was found in before (search/near.server.ts reads places nearest first).
  INSERT OR IGNORE INTO member_places (x, y, z, cell)
  SELECT v.x, v.y, v.z, v.cell FROM member_search_source v
  WHERE NEW.text_changed AND v.user_id = NEW.user_id AND v.x IS NOT NULL;
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
-- A new place, coordinates, travel or prompt answers are new text for the full-text rows too.
DROP TRIGGER `profiles_search_update`;--> statement-breakpoint
CREATE TRIGGER `profiles_search_update` AFTER UPDATE ON `profiles`
WHEN NEW.first_name IS NOT OLD.first_name OR NEW.bio IS NOT OLD.bio
  OR NEW.interests IS NOT OLD.interests OR NEW.gender IS NOT OLD.gender
  OR NEW.date_of_birth IS NOT OLD.date_of_birth OR NEW.age_min IS NOT OLD.age_min
  OR NEW.age_max IS NOT OLD.age_max OR NEW.country_code IS NOT OLD.country_code
  OR NEW.state_code IS NOT OLD.state_code OR NEW.city_name IS NOT OLD.city_name
  OR NEW.latitude IS NOT OLD.latitude OR NEW.longitude IS NOT OLD.longitude
  OR NEW.prompts IS NOT OLD.prompts
  OR NEW.travel_country_code IS NOT OLD.travel_country_code
  OR NEW.travel_state_code IS NOT OLD.travel_state_code
  OR NEW.travel_city_name IS NOT OLD.travel_city_name
  OR NEW.travel_latitude IS NOT OLD.travel_latitude
  OR NEW.travel_longitude IS NOT OLD.travel_longitude
BEGIN
  INSERT INTO member_search_sync (user_id, text_changed)
  VALUES (NEW.user_id, NEW.first_name IS NOT OLD.first_name OR NEW.bio IS NOT OLD.bio
    OR NEW.interests IS NOT OLD.interests OR NEW.country_code IS NOT OLD.country_code
    OR NEW.state_code IS NOT OLD.state_code OR NEW.city_name IS NOT OLD.city_name
    OR NEW.gender IS NOT OLD.gender
    OR NEW.latitude IS NOT OLD.latitude OR NEW.longitude IS NOT OLD.longitude
    OR NEW.prompts IS NOT OLD.prompts
    OR NEW.travel_country_code IS NOT OLD.travel_country_code
    OR NEW.travel_state_code IS NOT OLD.travel_state_code
    OR NEW.travel_city_name IS NOT OLD.travel_city_name
    OR NEW.travel_latitude IS NOT OLD.travel_latitude
    OR NEW.travel_longitude IS NOT OLD.travel_longitude);
END;
--> statement-breakpoint
-- Every member's sign-up time on their rows (the newest order).
UPDATE member_search SET joined = CAST(unixepoch(u.created_at) AS INTEGER)
FROM users u WHERE u.id = member_search.user_id;
