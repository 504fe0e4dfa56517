-- photosync sync worker schema for PostgreSQL, migration 3: the two indexes of mirror_file that no statement
-- reads (Schema/sync/0003_unread_indexes.sql in PostgreSQL's dialect).
DROP INDEX IF EXISTS mirror_file_by_contentHash;
DROP INDEX IF EXISTS mirror_file_by_inode;
