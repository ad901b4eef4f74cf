# ATTACH/DETACH, PRAGMA writes, VACUUM, transactions, maintenance. Expected: refused.
ATTACH DATABASE '/tmp/sqlgrade-adversarial-attached.db' AS evil
ATTACH ':memory:' AS m
ATTACH 'file:/tmp/sqlgrade-adversarial-uri.db?mode=rwc' AS u
DETACH DATABASE main
DETACH temp
PRAGMA writable_schema = ON
PRAGMA writable_schema = 1
PRAGMA journal_mode = WAL
PRAGMA journal_mode = DELETE
PRAGMA journal_mode
PRAGMA query_only = 0
PRAGMA query_only = OFF
PRAGMA user_version = 42
PRAGMA application_id = 7
PRAGMA schema_version = 1
PRAGMA page_size = 512
PRAGMA auto_vacuum = FULL
PRAGMA locking_mode = EXCLUSIVE
PRAGMA synchronous = OFF
PRAGMA temp_store = MEMORY
PRAGMA cache_size = -100000000
PRAGMA mmap_size = 1099511627776
PRAGMA foreign_keys = ON
PRAGMA recursive_triggers = 1
PRAGMA trusted_schema = 1
PRAGMA cell_size_check = OFF
PRAGMA wal_checkpoint(TRUNCATE)
PRAGMA incremental_vacuum
PRAGMA optimize
PRAGMA main.integrity_check
PRAGMA shrink_memory
SELECT * FROM pragma_user_version
VACUUM
VACUUM INTO '/tmp/sqlgrade-adversarial-copy.db'
VACUUM main INTO 'file:/tmp/sqlgrade-adversarial-copy2.db'
ANALYZE
ANALYZE people
REINDEX
REINDEX people
BEGIN
BEGIN IMMEDIATE
BEGIN EXCLUSIVE TRANSACTION
COMMIT
ROLLBACK
SAVEPOINT s1
RELEASE s1
