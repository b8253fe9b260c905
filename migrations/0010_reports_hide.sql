ALTER TABLE `users` ADD `hidden_by_reports` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Members reported by REPORT_HIDE_THRESHOLD (app/schemas/report.ts: 3) distinct members with open
-- reports are hidden from search until a moderator reviews the reports. The flag is kept here,
-- whoever changes a report (a member reporting again, a moderator, an account deletion's
-- cascade), so that search reads one column rather than counting reports in every statement.
UPDATE `users` SET `hidden_by_reports` = 1
WHERE `id` IN (
  SELECT `reported_id` FROM `reports` WHERE `status` = 'open'
  GROUP BY `reported_id` HAVING count(*) >= 3
);
--> statement-breakpoint
CREATE TRIGGER `reports_hide_insert` AFTER INSERT ON `reports` BEGIN
  UPDATE `users` SET `hidden_by_reports` = h.hidden
  FROM (
    SELECT u.`id` AS id, (SELECT count(*) FROM `reports` r
      WHERE r.`reported_id` = u.`id` AND r.`status` = 'open') >= 3 AS hidden
    FROM `users` u WHERE u.`id` IN (NEW.`reported_id`)
  ) h
  WHERE `users`.`id` = h.id AND `users`.`hidden_by_reports` IS NOT h.hidden;
END;
--> statement-breakpoint
CREATE TRIGGER `reports_hide_update` AFTER UPDATE OF `status`, `reported_id` ON `reports` BEGIN
  UPDATE `users` SET `hidden_by_reports` = h.hidden
  FROM (
    SELECT u.`id` AS id, (SELECT count(*) FROM `reports` r
      WHERE r.`reported_id` = u.`id` AND r.`status` = 'open') >= 3 AS hidden
    FROM `users` u WHERE u.`id` IN (OLD.`reported_id`, NEW.`reported_id`)
  ) h
  WHERE `users`.`id` = h.id AND `users`.`hidden_by_reports` IS NOT h.hidden;
END;
--> statement-breakpoint
CREATE TRIGGER `reports_hide_delete` AFTER DELETE ON `reports` BEGIN
  UPDATE `users` SET `hidden_by_reports` = h.hidden
  FROM (
    SELECT u.`id` AS id, (SELECT count(*) FROM `reports` r
      WHERE r.`reported_id` = u.`id` AND r.`status` = 'open') >= 3 AS hidden
    FROM `users` u WHERE u.`id` IN (OLD.`reported_id`)
  ) h
  WHERE `users`.`id` = h.id AND `users`.`hidden_by_reports` IS NOT h.hidden;
END;
--> statement-breakpoint
-- Search (0009_discovery_fts) no longer finds hidden members: they have no search rows while the
-- flag is set, and get them back (with a new key) when it is lifted.
DROP VIEW `member_search_source`;
--> statement-breakpoint
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
WHERE u.status = 'active' AND u.email_verified_at IS NOT NULL AND u.hidden_by_reports = 0;

--> statement-breakpoint
DROP TRIGGER `users_search_update`;
--> statement-breakpoint
CREATE TRIGGER `users_search_update` AFTER UPDATE OF username, email_verified_at, status, hide_online, last_seen_at, hidden_by_reports ON `users`
WHEN NEW.username IS NOT OLD.username
  OR NEW.email_verified_at IS NOT OLD.email_verified_at
  OR NEW.status IS NOT OLD.status
  OR NEW.hide_online IS NOT OLD.hide_online
  OR NEW.hidden_by_reports IS NOT OLD.hidden_by_reports
  OR unixepoch(NEW.last_seen_at) / 3600 IS NOT unixepoch(OLD.last_seen_at) / 3600
BEGIN
  INSERT INTO member_search_sync (user_id, text_changed)
  VALUES (NEW.id, NEW.username IS NOT OLD.username);
END;
--> statement-breakpoint
-- Members hidden before this migration lose their rows now.
INSERT INTO member_search_sync (user_id, text_changed) SELECT id, 0 FROM users WHERE hidden_by_reports = 1;
