# DuckDB-specific escapes, used on the gold side of UDA (in-memory DuckDB over CSV gold tables).
# Expected: refused (enable_external_access=false, locked configuration) or stopped by the deadline.
# DuckDB evaluates repeat/lpad/rpad/printf/format of one value in one step, outside memory_limit and
# the interrupt: repeat('ab', 1000000000) takes 7.6 GB and 24 s. Constant sizes over 64 MiB are
# refused before the statement runs (the last lines here), as are scalar range()/generate_series()
# lists over 64 MiB or of a non-constant size (also built in one step: range(1e9) took 6 GB with a
# 1 GB memory_limit); other computed sizes are a known limitation (docs/safety.md), so only 10 MB
# values are computed in this corpus.
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
SELECT repeat('ab', 1000000000)
SELECT lpad('x', 1e9, 'y')
SELECT rpad('x', 900000000)
SELECT length(repeat([1, 2], 500000000))
SELECT bar(1, 0, 10, 1000000000)
SELECT format('{:>900000000}', 1)
SELECT format('{:.{}f}', 1.5, 2000000000)
SELECT printf('%.*f', 2147483647, 1.5)
SELECT len(range(1000000000))
SELECT unnest(generate_series(1, 2000000000)) LIMIT 1
SELECT len(range(1000 * 1000000))
SELECT len(generate_series(TIMESTAMP '2000-01-01', TIMESTAMP '3000-01-01', INTERVAL 1 SECOND))
SELECT repeat('ab', 40000000)
