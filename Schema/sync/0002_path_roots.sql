-- photosync sync worker schema, migration 2: the mirrored folders are roots of asset paths.
--
-- An asset's `path` (the predicate key) is relative to the innermost root of the core's `asset_path_root`;
-- the sync worker registers each folder it mirrors there, in the transaction that records the folder. The
-- folders recorded before this migration (a library whose mirror was the core's) are registered now.
INSERT OR IGNORE INTO asset_path_root (path, client) SELECT path, 'photosync.sync' FROM mirror_root;
