-- Where a background job that walks a table once stands (worker/scheduled.ts): the id it goes on
-- after, and when it reached the end; first used by `clean_stored_photos` (docs/decisions/020).
-- Expand only (docs/decisions/024): a new table the code before it never reads.
CREATE TABLE `job_cursors` (
	`name` text PRIMARY KEY NOT NULL,
	`cursor` text,
	`finished_at` text,
	`updated_at` text NOT NULL
);
