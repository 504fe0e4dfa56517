-- photosync sync worker schema, migration 1: the mirror state (the SyncWorker client's own series).
--
-- What the sync worker knows about the folders it mirrors: the roots, a stat cache of every mirrored file
-- (so a rescan rehashes only what changed) with the asset it became, and the album or folder each directory
-- became. These rows are bookkeeping: they are written in the same SQLite transaction as the asset changes
-- they describe, and never journaled (observers and change tokens don't see them).
--
-- Until the mirror moved out of the core, this was the core's Schema/0003_mirror.sql, with the same text: a
-- library made by such a build holds these tables already, and the sync worker adopts them as this
-- migration (SyncSchema.swift) without touching a row.

CREATE TABLE mirror_root (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE,                 -- absolute, standardized
    device INTEGER,                            -- st_dev of the root when it was last scanned
    lastScanStart REAL,
    lastScanEnd REAL,
    lastScanSummary TEXT,                      -- JSON, as the sync worker wrote it
    lastSyncCookie TEXT                        -- the last sync cookie the watcher processed
);

-- The sync cookies the watcher processed (the barrier of `photosync changes --sync`), kept for an hour so
-- that every waiter finds its own, however many wait at once and in whatever order they are processed.
CREATE TABLE mirror_sync_cookie (
    rootId INTEGER NOT NULL REFERENCES mirror_root(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    recordedAt REAL NOT NULL,
    PRIMARY KEY (rootId, name)
) WITHOUT ROWID;

-- The stat cache: one row per mirrored media file.
CREATE TABLE mirror_file (
    rootId INTEGER NOT NULL REFERENCES mirror_root(id) ON DELETE CASCADE,
    relativePath TEXT NOT NULL,                -- '/'-separated, relative to the root
    device INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtimeNs INTEGER NOT NULL,
    ctimeNs INTEGER NOT NULL,
    contentHash TEXT NOT NULL CHECK (length(contentHash) = 32),
    assetId INTEGER REFERENCES asset(id) ON DELETE SET NULL,
    PRIMARY KEY (rootId, relativePath)
) WITHOUT ROWID;
CREATE INDEX mirror_file_by_contentHash ON mirror_file(rootId, contentHash);
CREATE INDEX mirror_file_by_inode ON mirror_file(device, inode);
CREATE INDEX mirror_file_by_asset ON mirror_file(assetId) WHERE assetId IS NOT NULL;

-- The directories of a root that became an album and/or a folder.
CREATE TABLE mirror_directory (
    rootId INTEGER NOT NULL REFERENCES mirror_root(id) ON DELETE CASCADE,
    relativePath TEXT NOT NULL,                -- '' for the root itself
    device INTEGER,                            -- the directory's identity on disk: a renamed directory keeps it
    inode INTEGER,
    albumId INTEGER REFERENCES asset_collection(id) ON DELETE SET NULL,
    folderId INTEGER REFERENCES collection_list(id) ON DELETE SET NULL,
    PRIMARY KEY (rootId, relativePath)
) WITHOUT ROWID;
