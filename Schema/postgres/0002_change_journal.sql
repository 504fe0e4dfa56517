-- photosync library schema for PostgreSQL, migration 2: the append-only change journal.
--
-- Every committed change block appends one change_transaction row and its change_record rows in the same
-- transaction as the change itself. `seq` comes from a sequence: never reused, not after expiry, a crash or
-- an aborted transaction (which leaves a gap that no reader ever waits for).
--
-- Readers must never see sequence 11 before 10 commits: PostgreSQL draws sequence values at insert, not at
-- commit. Appends are therefore serialised: an append takes a transaction-scoped advisory lock before it
-- draws its `seq`, and holds it until its transaction ends, so sequence numbers commit in order. README.md
-- says why this rather than a snapshot horizon.

CREATE TABLE change_transaction (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    author TEXT COLLATE "C" NOT NULL,
    date DOUBLE PRECISION NOT NULL,            -- seconds since 1970, as everywhere
    stamp BIGINT NOT NULL                      -- the token stamp: the commit date in microseconds
);
CREATE INDEX change_transaction_by_date ON change_transaction(date);

CREATE TABLE change_record (
    seq BIGINT NOT NULL REFERENCES change_transaction(seq) ON DELETE CASCADE,
    objectType SMALLINT NOT NULL CHECK (objectType IN (1, 2, 3)),  -- asset, assetCollection, collectionList
    objectId BIGINT NOT NULL,
    localIdentifier TEXT COLLATE "C" NOT NULL,
    kind SMALLINT NOT NULL CHECK (kind IN (1, 2, 3)),              -- inserted, updated, deleted
    changedProperties BIGINT NOT NULL DEFAULT 0,
    contentChanged SMALLINT NOT NULL DEFAULT 0 CHECK (contentChanged IN (0, 1)),
    previousValues BYTEA,
    PRIMARY KEY (seq, objectType, objectId)
);
CREATE INDEX change_record_by_object ON change_record(objectType, objectId, seq);

-- One row: the journal's state. Tokens with a sequence number below `floor` have expired.
CREATE TABLE change_journal (
    id SMALLINT PRIMARY KEY CHECK (id = 1),
    floor BIGINT NOT NULL DEFAULT 0,
    floorStamp BIGINT NOT NULL DEFAULT 0,
    retentionDays DOUBLE PRECISION NOT NULL DEFAULT 30,
    retentionCount BIGINT NOT NULL DEFAULT 1000000
);
INSERT INTO change_journal (id) VALUES (1);
