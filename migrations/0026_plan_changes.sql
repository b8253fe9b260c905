-- Plan changes in place and the test provider's renewals (docs/decisions/008-payments.md "Plan
-- changes and renewals"). Expand only (docs/decisions/024): new nullable or defaulted columns; the
-- code before it runs unchanged.
--
-- 1. A subscription of the test provider keeps what it bills each period (`price_cents`), its
--    billing cycle anchor (`billing_anchor`: periods end on its day of the month, as Stripe's) and
--    the credit a downgrade left for the next payments (`credit_cents`, as Stripe's customer
--    balance).
-- 2. A payment says what it was after a subscription's start (`purpose`: change or renewal) and
--    what its amount is made of (`lines`, JSON: the proration's credit and charge, as the lines of
--    a Stripe invoice).
ALTER TABLE `payments` ADD `purpose` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `lines` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `price_cents` integer;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `billing_anchor` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `credit_cents` integer DEFAULT 0 NOT NULL;
