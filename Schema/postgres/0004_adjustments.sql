-- photosync library schema for PostgreSQL, migration 4: non-destructive edits (PhotoKit's adjustments);
-- Schema/0004_adjustments.sql in PostgreSQL's dialect.

ALTER TABLE asset ADD COLUMN adjustedContentHash TEXT COLLATE "C";

CREATE INDEX asset_adjustedContentHash ON asset(adjustedContentHash) WHERE adjustedContentHash IS NOT NULL;

CREATE TABLE asset_adjustment (
    assetId BIGINT PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE,
    formatIdentifier TEXT COLLATE "C" NOT NULL,
    formatVersion TEXT COLLATE "C" NOT NULL,
    data BYTEA NOT NULL,
    renderedFileSize BIGINT NOT NULL,
    renderedUniformTypeIdentifier TEXT COLLATE "C",
    baseContentHash TEXT COLLATE "C",
    adjustedAt DOUBLE PRECISION NOT NULL
);
