-- Deleted messages leave no text behind in the other member's notifications (issue 12): scrub
-- the previews of messages deleted before this release. Only rows naming a deleted message change.
UPDATE notifications SET data = json_remove(data, '$.preview')
WHERE json_extract(data, '$.preview') IS NOT NULL
  AND json_extract(data, '$.message_id') IN (SELECT id FROM messages WHERE deleted_at IS NOT NULL);

-- Sliding-window rate limits (docs/decisions/009): the previous window's count. Existing rows
-- start with 0, which is what a fixed window had.
ALTER TABLE `rate_limits` ADD `prev_count` integer DEFAULT 0 NOT NULL;