CREATE TABLE `appeals` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`text` text NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`created_at` text NOT NULL,
	`decided_at` text,
	`decided_by` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`decided_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `appeals_once` ON `appeals` (`user_id`,`kind`) WHERE "appeals"."status" <> 'granted';--> statement-breakpoint
CREATE INDEX `appeals_open` ON `appeals` (`created_at`) WHERE "appeals"."status" = 'open';--> statement-breakpoint
CREATE TABLE `photo_verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`pose_id` text NOT NULL,
	`r2_key` text,
	`content_type` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`reason` text,
	`compared_photo_ids` text,
	`created_at` text NOT NULL,
	`decided_at` text,
	`decided_by` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`decided_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `photo_verifications_one_pending` ON `photo_verifications` (`user_id`) WHERE "photo_verifications"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `photo_verifications_queue` ON `photo_verifications` (`created_at`) WHERE "photo_verifications"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `photo_verifications_user` ON `photo_verifications` (`user_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `photo_verified_at` text;
--> statement-breakpoint
-- Photo verification and appeals (docs/decisions/042). A verified member's full-text row carries
-- the token `verified` in `tags`, so that "verified only" is read from the full-text index in
-- result order like an interest (docs/decisions/041): the view gains the token, and a change of
-- users.photo_verified_at rewrites the member's full-text rows. No member is verified yet, so no
-- row needs rewriting now.
DROP VIEW `member_search_source`;
--> statement-breakpoint
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
      + CAST(floor((v.lng + 180) / 4) AS INTEGER) % 90), '')
    -- A verified member's token: the verified_only filter (0040).
    || CASE WHEN v.verified THEN ' verified' ELSE '' END AS tags
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
    u.photo_verified_at IS NOT NULL AS verified,
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
CREATE TRIGGER `users_verified_search` AFTER UPDATE OF photo_verified_at ON `users`
WHEN (OLD.photo_verified_at IS NULL) <> (NEW.photo_verified_at IS NULL)
BEGIN
  INSERT INTO member_search_sync (user_id, text_changed) VALUES (NEW.id, 1);
END;
--> statement-breakpoint
-- Verification lasts while one of the photos the moderator compared the selfie with is still on
-- the profile: when the last of them goes (deleted, or replaced by new ones), so does the badge.
-- In the database, so every way a photo leaves (the API, account tools, housekeeping) keeps it true.
CREATE TRIGGER `photos_verification_lost` AFTER DELETE ON `photos`
WHEN EXISTS (SELECT 1 FROM users u WHERE u.id = OLD.user_id AND u.photo_verified_at IS NOT NULL)
BEGIN
  UPDATE users SET photo_verified_at = NULL
  WHERE id = OLD.user_id
    AND NOT EXISTS (
      SELECT 1 FROM photos p
      WHERE p.user_id = OLD.user_id
        AND p.id IN (
          SELECT j.value FROM json_each((
            SELECT pv.compared_photo_ids FROM photo_verifications pv
            WHERE pv.user_id = OLD.user_id AND pv.status = 'verified'
            ORDER BY pv.decided_at DESC LIMIT 1
          )) j
        )
    );
END;
