-- photosync library schema, migration 4: non-destructive edits (PhotoKit's adjustments).
--
-- An edit is the app's adjustment data (format identifier, version, opaque bytes) and the rendered result,
-- a file kept in the library's content-addressed `originals/` store. The original — copied or mirrored in
-- place — is never modified. `asset.adjustedContentHash` names the rendered file: it is part of the asset's
-- content, so an edit and a revert are journaled as content changes. A rendered file is removed from the
-- store once no asset refers to it (as a copied original or as an edit).

ALTER TABLE asset ADD COLUMN adjustedContentHash TEXT;   -- NULL when the asset has no edit

CREATE INDEX asset_adjustedContentHash ON asset(adjustedContentHash) WHERE adjustedContentHash IS NOT NULL;

-- One row per edited asset: bookkeeping beside the asset row, never journaled.
CREATE TABLE asset_adjustment (
    assetId INTEGER PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    formatIdentifier TEXT NOT NULL,
    formatVersion TEXT NOT NULL,
    data BLOB NOT NULL,
    renderedFileSize INTEGER NOT NULL,
    renderedUniformTypeIdentifier TEXT,
    baseContentHash TEXT,                          -- the content the edit was made from
    adjustedAt REAL NOT NULL
);
