-- photosync sync worker schema, migration 3: the two indexes of mirror_file that no statement reads.
--
-- mirror_file_by_contentHash and mirror_file_by_inode date from when the reconciler looked records up by
-- hash and by inode in the database. It looks them up in its model of the mirror since (MirrorModel.swift,
-- loaded once per handle), and no statement of the sync worker, the command or the server reads mirror_file
-- by either. Yet every batch of a scan wrote both: the hash index at random places, so that each batch put
-- most of its pages in the log again. Without them, the commit thread of a 3,000-file scan does 5 % fewer
-- instructions (README, issue 12). mirror_file_by_asset stays: `ON DELETE SET NULL` on assetId reads it.
DROP INDEX IF EXISTS mirror_file_by_contentHash;
DROP INDEX IF EXISTS mirror_file_by_inode;
