ALTER TABLE `notifications` ADD `in_app` integer DEFAULT true NOT NULL;
