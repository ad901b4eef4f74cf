# DuckDB-specific escapes, used on the gold side of UDA (in-memory DuckDB over CSV gold tables).
# Expected: refused (enable_external_access=false, locked configuration) or stopped by the deadline.
# DuckDB evaluates repeat/lpad/rpad/printf/format of one value in one step, outside memory_limit and
# the interrupt: repeat('ab', 1000000000) takes 7.6 GB and 24 s. Such counts are not in this corpus
# (known limitation, docs/safety.md); 10 MB values are.
COPY products TO '/tmp/sqlgrade-adversarial-copy.csv'
COPY (SELECT 1) TO '/tmp/sqlgrade-adversarial-copy2.parquet' (FORMAT parquet)
SELECT * FROM read_csv_auto('/etc/passwd')
SELECT * FROM read_text('/etc/hostname')
SELECT * FROM read_blob('/etc/hostname')
SELECT * FROM '/etc/passwd'
SELECT * FROM glob('/*')
INSTALL httpfs
LOAD httpfs
SELECT * FROM read_parquet('https://example.com/x.parquet')
ATTACH '/tmp/sqlgrade-adversarial-duck.db' AS evil
SET enable_external_access = true
SET memory_limit = '100TB'
RESET memory_limit
SET threads = 1000
PRAGMA enable_profiling
EXPORT DATABASE '/tmp/sqlgrade-adversarial-export'
CREATE TABLE evil AS SELECT 1
CREATE MACRO evil(x) AS x
CREATE SECRET (TYPE s3, KEY_ID 'x', SECRET 'y')
CHECKPOINT
SELECT getenv('HOME')
SELECT count(*) FROM range(1000000000000) a
SELECT count(*) FROM range(100000) a, range(100000) b, range(100000) c
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r
SELECT max(length(repeat(range::VARCHAR, 1000))) FROM range(100000000)
SELECT string_agg(repeat('x', 1000), '') FROM range(10000000)
SELECT list(range) FROM range(1000000000)
