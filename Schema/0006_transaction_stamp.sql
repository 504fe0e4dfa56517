-- photosync library schema, migration 6: each transaction stores its token stamp.
--
-- A change token carries a stamp of the transaction it names (ChangeToken.swift); until this version every
-- reader derived it from `date` (REAL seconds) as `Int64((date * 1_000_000).rounded())`. From this version
-- on the commit writes it once, in `stamp`, and readers take it from there, as Schema/postgres does.
--
-- Existing rows are backfilled with exactly the value the earlier builds derived, so every token issued
-- before this migration names the same transaction after it. The rounding is spelled out with exact
-- operations only, rather than trusting round(), whose algorithm has changed between SQLite versions and
-- which adds 0.5 and truncates (wrong for 0.49999999999999994): the product — the same IEEE double product as
-- Swift's — truncated toward zero (CAST, exact below 2^63), plus or minus one when the remainder (exact in a
-- double) reaches one half: ties away from zero, as Swift's `.rounded()`. JournalStampTests checks the result
-- against the Swift function on ties, their neighbours, products above 2^52 and negative dates.

ALTER TABLE change_transaction ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;   -- the token stamp: the commit date in microseconds
UPDATE change_transaction SET stamp =
    CAST(date * 1000000.0 AS INTEGER)
    + CASE
        WHEN date * 1000000.0 - CAST(date * 1000000.0 AS INTEGER) >= 0.5 THEN 1
        WHEN date * 1000000.0 - CAST(date * 1000000.0 AS INTEGER) <= -0.5 THEN -1
        ELSE 0
      END;
