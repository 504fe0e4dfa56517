-- photosync library schema, migration 2: the append-only change journal.
--
-- Every committed change block appends one change_transaction row and its change_record rows in the same
-- SQLite transaction as the change itself. `seq` is AUTOINCREMENT: SQLite keeps the largest value ever used
-- in sqlite_sequence, so a sequence number is never reused, not after expiry and not after a crash.

CREATE TABLE change_transaction (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    author TEXT NOT NULL,
    date REAL NOT NULL
);
CREATE INDEX change_transaction_by_date ON change_transaction(date);

CREATE TABLE change_record (
    seq INTEGER NOT NULL REFERENCES change_transaction(seq) ON DELETE CASCADE,
    objectType INTEGER NOT NULL CHECK (objectType IN (1, 2, 3)),   -- asset, assetCollection, collectionList
    objectId INTEGER NOT NULL,                                      -- the object's internal id
    localIdentifier TEXT NOT NULL,
    kind INTEGER NOT NULL CHECK (kind IN (1, 2, 3)),                -- inserted, updated, deleted
    changedProperties INTEGER NOT NULL DEFAULT 0,                   -- bit set of the properties that changed
    contentChanged INTEGER NOT NULL DEFAULT 0 CHECK (contentChanged IN (0, 1)),
    previousValues BLOB,                                            -- updated and deleted: the values before
    PRIMARY KEY (seq, objectType, objectId)
) WITHOUT ROWID;
CREATE INDEX change_record_by_object ON change_record(objectType, objectId, seq);

-- One row: the journal's state. Tokens with a sequence number below `floor` have expired: the changes
-- that followed them are no longer all retained.
CREATE TABLE change_journal (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    floor INTEGER NOT NULL DEFAULT 0,
    floorStamp INTEGER NOT NULL DEFAULT 0,                          -- the stamp of the transaction at `floor`
    retentionDays REAL NOT NULL DEFAULT 30,
    retentionCount INTEGER NOT NULL DEFAULT 1000000
);
INSERT INTO change_journal (id) VALUES (1);
