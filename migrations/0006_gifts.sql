-- The gifts catalogue: every environment starts with the same gifts. Prices are in credits.
INSERT INTO `gifts` (`id`, `name`, `icon`, `price_credits`, `position`, `active`) VALUES
	('rose', 'Rose', '🌹', 5, 1, 1),
	('coffee', 'Coffee', '☕', 10, 2, 1),
	('chocolate', 'Chocolates', '🍫', 15, 3, 1),
	('teddy', 'Teddy bear', '🧸', 25, 4, 1),
	('bouquet', 'Bouquet', '💐', 40, 5, 1),
	('diamond', 'Diamond', '💎', 100, 6, 1)
ON CONFLICT(`id`) DO NOTHING;
