-- photosync schema for PostgreSQL, migration 7: the date indexes in the order fetches ask for.
--
-- Fetches order dates as SQLite does, undated assets first (`creationDate ASC NULLS FIRST`, and
-- `DESC NULLS LAST` the other way). PostgreSQL builds an index NULLS LAST by default, so no index of 0001
-- gave that order: every sorted fetch sorted all its rows. The same indexes, NULLS FIRST (read backwards,
-- they give DESC NULLS LAST).

DROP INDEX asset_by_creationDate;
CREATE INDEX asset_by_creationDate ON asset(creationDate NULLS FIRST, id);
DROP INDEX asset_visible_by_creationDate;
CREATE INDEX asset_visible_by_creationDate ON asset(creationDate NULLS FIRST, id)
    WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1);
DROP INDEX asset_by_modificationDate;
CREATE INDEX asset_by_modificationDate ON asset(modificationDate NULLS FIRST, id);
DROP INDEX asset_by_addedDate;
CREATE INDEX asset_by_addedDate ON asset(addedDate NULLS FIRST, id);
DROP INDEX asset_by_moment;
CREATE INDEX asset_by_moment ON asset(momentId, creationDate NULLS FIRST, id);
DROP INDEX asset_by_mediaType;
CREATE INDEX asset_by_mediaType ON asset(mediaType, creationDate NULLS FIRST, id);
