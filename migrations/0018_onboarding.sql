-- Onboarding (the guided first steps after verifying): a new column with a default, so existing
-- members are `done` and never see it; registration writes `pending`. Safe on existing data.
ALTER TABLE `users` ADD `onboarding` text DEFAULT 'done' NOT NULL;
