-- photosync sync worker schema for PostgreSQL, migration 2: the mirrored folders are roots of asset paths
-- (Schema/sync/0002_path_roots.sql in PostgreSQL's dialect).
INSERT INTO asset_path_root (path, client) SELECT path, 'photosync.sync' FROM mirror_root ON CONFLICT DO NOTHING;
