-- photosync library schema for PostgreSQL, migration 6: tables of the library's clients, and the roots of
-- asset paths (Schema/0007_client_schema.sql in PostgreSQL's dialect).

CREATE TABLE library_client_schema (
    client TEXT COLLATE "C" PRIMARY KEY,
    version BIGINT NOT NULL CHECK (version > 0),
    migratedAt DOUBLE PRECISION NOT NULL
);

CREATE TABLE asset_path_root (
    path TEXT COLLATE "C" NOT NULL,
    client TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (path, client)
);
