-- photosync library schema, migration 5: cheaper journal records.
--
-- 1. change_record's CHECK constraints on objectType and kind become equalities joined by OR: the same rule,
--    but SQLite (3.40) evaluates a CHECK of the form `x IN (1, 2, 3)` by building a temporary b-tree for
--    every row written, and those two were most of the cost of appending a record (about 60 % of its
--    instructions). Constraints can't be altered in place, so the table is rebuilt (SQLite's documented
--    procedure: new table, copy, drop, rename) in this migration's transaction, like every migration: a
--    crash leaves the old table whole. The copy costs O(records retained), once.
-- 2. From this version on, `previousValues` is written in the journal's binary encoding (PreviousValues.swift:
--    a format byte, then the row's columns in a fixed order, each tagged with its SQLite type); rows written
--    before keep their JSON, and readers take both. A build that doesn't know this version refuses the
--    library (PRAGMA user_version), so no older build ever misreads a binary row.

CREATE TABLE change_record_v4 (
    seq INTEGER NOT NULL REFERENCES change_transaction(seq) ON DELETE CASCADE,
    objectType INTEGER NOT NULL CHECK (objectType = 1 OR objectType = 2 OR objectType = 3),  -- asset, assetCollection, collectionList
    objectId INTEGER NOT NULL,                                                               -- the object's internal id
    localIdentifier TEXT NOT NULL,
    kind INTEGER NOT NULL CHECK (kind = 1 OR kind = 2 OR kind = 3),                          -- inserted, updated, deleted
    changedProperties INTEGER NOT NULL DEFAULT 0,                                            -- bit set of the properties that changed
    contentChanged INTEGER NOT NULL DEFAULT 0 CHECK (contentChanged IN (0, 1)),              -- two values: compiled as comparisons
    previousValues BLOB,                                                                     -- updated and deleted: the values before
    PRIMARY KEY (seq, objectType, objectId)
) WITHOUT ROWID;
INSERT INTO change_record_v4 (seq, objectType, objectId, localIdentifier, kind, changedProperties, contentChanged, previousValues)
    SELECT seq, objectType, objectId, localIdentifier, kind, changedProperties, contentChanged, previousValues FROM change_record;
DROP TABLE change_record;
ALTER TABLE change_record_v4 RENAME TO change_record;
CREATE INDEX change_record_by_object ON change_record(objectType, objectId, seq);
