-- photosync library schema, migration 7: tables of the library's clients, and the roots of asset paths.
--
-- A client of the library (a sync worker, an importer…) may keep tables of its own in the library's
-- database, written in the same transaction as the changes they describe (see LibraryClientSchema.swift).
-- Each client declares them as its own numbered series of migrations; the library applies them when the
-- client attaches and records here the version each client's series has reached. The core's series (this
-- folder) never names a client's table.
--
-- (IF NOT EXISTS: tests rewind `user_version` of a new library to simulate an older one.)
CREATE TABLE IF NOT EXISTS library_client_schema (
    client TEXT PRIMARY KEY,                   -- the client's name, as its LibraryClientSchema declares it
    version INTEGER NOT NULL CHECK (version > 0),
    migratedAt REAL NOT NULL
) WITHOUT ROWID;

-- Folders under which the files that assets reference have a path of interest: an asset's `path` (the
-- predicate key) is its file's path relative to the longest root holding it. Clients register their roots
-- (a sync worker, the folders it mirrors) in the transaction that makes them.
CREATE TABLE IF NOT EXISTS asset_path_root (
    path TEXT NOT NULL,                        -- absolute, standardized, without a trailing '/'
    client TEXT NOT NULL,                      -- who registered it (a root registered by two clients is kept twice)
    PRIMARY KEY (path, client)
) WITHOUT ROWID;
