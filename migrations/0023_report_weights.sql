-- Reports weigh what their reporter's standing is worth (docs/decisions/021,
-- app/schemas/report.ts REPORT_WEIGHT): fresh accounts weigh nothing, so that a handful of new
-- accounts can no longer hide a member. A member is hidden from search while their open reports
-- weigh REPORT_HIDE_WEIGHT (6) or more. Reports from before weigh 2 each (a seasoned member's),
-- so that everyone hidden by three open reports stays hidden until a moderator looks.
ALTER TABLE `reports` ADD `weight` integer DEFAULT 2 NOT NULL;
--> statement-breakpoint
DROP TRIGGER `reports_hide_insert`;
--> statement-breakpoint
DROP TRIGGER `reports_hide_update`;
--> statement-breakpoint
DROP TRIGGER `reports_hide_delete`;
--> statement-breakpoint
CREATE TRIGGER `reports_hide_insert` AFTER INSERT ON `reports` BEGIN
  UPDATE `users` SET `hidden_by_reports` = h.hidden
  FROM (
    SELECT u.`id` AS id, (SELECT coalesce(sum(r.`weight`), 0) FROM `reports` r
      WHERE r.`reported_id` = u.`id` AND r.`status` = 'open') >= 6 AS hidden
    FROM `users` u WHERE u.`id` IN (NEW.`reported_id`)
  ) h
  WHERE `users`.`id` = h.id AND `users`.`hidden_by_reports` IS NOT h.hidden;
END;
--> statement-breakpoint
CREATE TRIGGER `reports_hide_update` AFTER UPDATE OF `status`, `reported_id`, `weight` ON `reports` BEGIN
  UPDATE `users` SET `hidden_by_reports` = h.hidden
  FROM (
    SELECT u.`id` AS id, (SELECT coalesce(sum(r.`weight`), 0) FROM `reports` r
      WHERE r.`reported_id` = u.`id` AND r.`status` = 'open') >= 6 AS hidden
    FROM `users` u WHERE u.`id` IN (OLD.`reported_id`, NEW.`reported_id`)
  ) h
  WHERE `users`.`id` = h.id AND `users`.`hidden_by_reports` IS NOT h.hidden;
END;
--> statement-breakpoint
CREATE TRIGGER `reports_hide_delete` AFTER DELETE ON `reports` BEGIN
  UPDATE `users` SET `hidden_by_reports` = h.hidden
  FROM (
    SELECT u.`id` AS id, (SELECT coalesce(sum(r.`weight`), 0) FROM `reports` r
      WHERE r.`reported_id` = u.`id` AND r.`status` = 'open') >= 6 AS hidden
    FROM `users` u WHERE u.`id` IN (OLD.`reported_id`)
  ) h
  WHERE `users`.`id` = h.id AND `users`.`hidden_by_reports` IS NOT h.hidden;
END;
