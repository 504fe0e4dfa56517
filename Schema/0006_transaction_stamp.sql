-- photosync library schema, migration 6: each transaction stores its token stamp.
--
-- A change token carries a stamp of the transaction it names (ChangeToken.swift); until this version every
-- reader derived it from `date` (REAL seconds) as `Int64((date * 1_000_000).rounded())`. From this version
-- on the commit writes it once, in `stamp`, and readers take it from there, as Schema/postgres does.
--
-- Existing rows are backfilled with exactly the value the earlier builds derived, so every token issued
-- before this migration names the same transaction after it. SQLite's round() adds 0.5 and truncates, which
-- is not Swift's rounding for every double (0.49999999999999994, and above 2^52 where the sum itself
-- rounds); so the rounding is spelled out: the product, truncated toward zero (CAST, exact below 2^63),
-- plus or minus one when the remainder — exact in a double — reaches half (ties away from zero, as Swift's
-- `.rounded()`). The multiplication is the same IEEE double product as Swift's. JournalStampMigrationTests
-- checks the result against the Swift function on adversarial dates.

ALTER TABLE change_transaction ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;   -- the token stamp: the commit date in microseconds
UPDATE change_transaction SET stamp =
    CAST(date * 1000000.0 AS INTEGER)
    + CASE
        WHEN date * 1000000.0 - CAST(date * 1000000.0 AS INTEGER) >= 0.5 THEN 1
        WHEN date * 1000000.0 - CAST(date * 1000000.0 AS INTEGER) <= -0.5 THEN -1
        ELSE 0
      END;
