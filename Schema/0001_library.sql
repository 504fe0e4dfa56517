-- photosync library schema, migration 1: the object model.
--
-- Conventions
-- * Dates are REAL seconds since 1970-01-01T00:00:00Z.
-- * Every object has an internal INTEGER PRIMARY KEY AUTOINCREMENT `id` (never reused, also after
--   deletion) and a public, opaque `localIdentifier` that never changes and is never reused.
-- * Enumerations and option sets use PhotoKit's raw values.

-- One row: who this library is.
CREATE TABLE library (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    identity TEXT NOT NULL,                    -- random UUID; carried by every change token
    createdAt REAL NOT NULL,
    timeZoneIdentifier TEXT NOT NULL,          -- the zone moments are computed in when an asset has no offset
    recentlyAddedDays INTEGER NOT NULL DEFAULT 30
);

CREATE TABLE asset (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    localIdentifier TEXT NOT NULL UNIQUE,
    mediaType INTEGER NOT NULL DEFAULT 0 CHECK (mediaType BETWEEN 0 AND 3),
    mediaSubtypes INTEGER NOT NULL DEFAULT 0,
    pixelWidth INTEGER NOT NULL DEFAULT 0 CHECK (pixelWidth >= 0),
    pixelHeight INTEGER NOT NULL DEFAULT 0 CHECK (pixelHeight >= 0),
    creationDate REAL,
    creationTimeZoneOffset INTEGER,            -- seconds east of UTC where the capture's offset is known
    modificationDate REAL,
    latitude REAL CHECK (latitude IS NULL OR latitude BETWEEN -90 AND 90),
    longitude REAL CHECK (longitude IS NULL OR longitude BETWEEN -180 AND 180),
    altitude REAL,
    duration REAL NOT NULL DEFAULT 0 CHECK (duration >= 0),
    isFavorite INTEGER NOT NULL DEFAULT 0 CHECK (isFavorite IN (0, 1)),
    isHidden INTEGER NOT NULL DEFAULT 0 CHECK (isHidden IN (0, 1)),
    burstIdentifier TEXT,
    representsBurst INTEGER NOT NULL DEFAULT 0 CHECK (representsBurst IN (0, 1)),
    burstSelectionTypes INTEGER NOT NULL DEFAULT 0,
    sourceType INTEGER NOT NULL DEFAULT 1,
    hasAdjustments INTEGER NOT NULL DEFAULT 0 CHECK (hasAdjustments IN (0, 1)),
    -- Resource facts.
    originalFilename TEXT NOT NULL DEFAULT '',
    uniformTypeIdentifier TEXT,
    fileSize INTEGER NOT NULL DEFAULT 0 CHECK (fileSize >= 0),
    contentHash TEXT CHECK (contentHash IS NULL OR length(contentHash) = 32),
    -- Where the bytes are: 0 = copied into originals/ (content-addressed), 1 = referenced in place.
    storage INTEGER NOT NULL DEFAULT 0 CHECK (storage IN (0, 1)),
    filePath TEXT,                             -- absolute path of a referenced file
    -- Bookkeeping (not public properties; changes to these alone are invisible to observers).
    addedDate REAL NOT NULL,
    momentId INTEGER REFERENCES asset_collection(id) ON DELETE SET NULL
);
CREATE INDEX asset_by_creationDate ON asset(creationDate, id);
-- The default view (no hidden assets, one asset per burst) by date: fetches of it read this index alone.
CREATE INDEX asset_visible_by_creationDate ON asset(creationDate, id)
    WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1);
CREATE INDEX asset_by_modificationDate ON asset(modificationDate, id);
CREATE INDEX asset_by_addedDate ON asset(addedDate, id);
CREATE INDEX asset_by_contentHash ON asset(contentHash);
CREATE INDEX asset_by_burst ON asset(burstIdentifier) WHERE burstIdentifier IS NOT NULL;
CREATE INDEX asset_by_moment ON asset(momentId, creationDate, id);
CREATE INDEX asset_by_favorite ON asset(isFavorite) WHERE isFavorite = 1;
CREATE INDEX asset_by_hidden ON asset(isHidden) WHERE isHidden = 1;
CREATE INDEX asset_by_mediaType ON asset(mediaType, creationDate, id);
CREATE INDEX asset_by_filePath ON asset(filePath) WHERE filePath IS NOT NULL;

-- Albums, smart albums and moments.
CREATE TABLE asset_collection (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    localIdentifier TEXT NOT NULL UNIQUE,
    type INTEGER NOT NULL CHECK (type IN (1, 2, 3)),        -- album, smartAlbum, moment
    subtype INTEGER NOT NULL,
    title TEXT,
    startDate REAL,
    endDate REAL,
    assetCount INTEGER NOT NULL DEFAULT 0,
    latitude REAL,
    longitude REAL,
    momentDay TEXT UNIQUE,                     -- moments only: 'YYYY-MM-DD', or 'undated'
    locatedCount INTEGER NOT NULL DEFAULT 0,   -- moments only: members with a location (for the mean position)
    createdAt REAL NOT NULL
);
CREATE INDEX asset_collection_by_type ON asset_collection(type, subtype);

-- The ordered members of user albums. Smart albums and moments have derived membership.
CREATE TABLE album_asset (
    albumId INTEGER NOT NULL REFERENCES asset_collection(id) ON DELETE CASCADE,
    assetId INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (albumId, assetId)
) WITHOUT ROWID;
CREATE UNIQUE INDEX album_asset_by_position ON album_asset(albumId, position);
CREATE INDEX album_asset_by_asset ON album_asset(assetId);

-- Folders and moment year lists.
CREATE TABLE collection_list (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    localIdentifier TEXT NOT NULL UNIQUE,
    type INTEGER NOT NULL CHECK (type IN (1, 2, 3)),        -- momentList, folder, smartFolder
    subtype INTEGER NOT NULL,
    title TEXT,
    startDate REAL,
    endDate REAL,
    momentYear INTEGER UNIQUE,                 -- moment year lists only
    createdAt REAL NOT NULL
);

-- The ordered children of folders: albums and folders, each with at most one parent, never cyclic.
CREATE TABLE collection_list_child (
    listId INTEGER NOT NULL REFERENCES collection_list(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    childCollectionId INTEGER UNIQUE REFERENCES asset_collection(id) ON DELETE CASCADE,
    childListId INTEGER UNIQUE REFERENCES collection_list(id) ON DELETE CASCADE,
    CHECK ((childCollectionId IS NULL) <> (childListId IS NULL)),
    CHECK (childListId IS NULL OR childListId <> listId),
    PRIMARY KEY (listId, position)
) WITHOUT ROWID;

-- The smart albums every library has. Identifiers are random per library, like every other one.
INSERT INTO asset_collection (localIdentifier, type, subtype, title, createdAt)
SELECT upper(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-' || hex(randomblob(2)) || '-' ||
             hex(randomblob(2)) || '-' || hex(randomblob(6))) || '/L0/040',
       2, subtype, title, (julianday('now') - 2440587.5) * 86400.0
FROM (SELECT 209 AS subtype, 'Library' AS title, 1 AS ord
      UNION ALL SELECT 203, 'Favorites', 2
      UNION ALL SELECT 202, 'Videos', 3
      UNION ALL SELECT 206, 'Recently Added', 4
      UNION ALL SELECT 201, 'Panoramas', 5
      UNION ALL SELECT 211, 'Screenshots', 6
      UNION ALL SELECT 207, 'Bursts', 7
      UNION ALL SELECT 205, 'Hidden', 8)
ORDER BY ord;
