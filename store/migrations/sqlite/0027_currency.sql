-- Each account's currency (ISO 4217 code), shown beside money on its pages.
ALTER TABLE accounts ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
