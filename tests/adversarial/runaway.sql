# Queries that never end or take hours. Expected: stopped by the per-query deadline (plus a small
# margin) or the row/byte cap; verdict 0 with "timeout" / "too large".
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i FROM r) SELECT max(i) FROM r
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i FROM r
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r ORDER BY 1 DESC) SELECT sum(i) FROM r
WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || 'x' FROM r) SELECT count(*) FROM r
SELECT count(*) FROM people a, people b, people c, people d, people e, people f
SELECT count(*) FROM people a CROSS JOIN people b CROSS JOIN people c CROSS JOIN people d CROSS JOIN pets e
SELECT * FROM people a, people b, people c
SELECT a.name, b.name, c.name, d.name FROM people a, people b, people c, people d ORDER BY random()
SELECT DISTINCT a.id * b.id + c.id FROM people a, people b, people c, people d
SELECT a.name FROM people a, people b, people c, people d GROUP BY a.name HAVING count(*) < 0
SELECT max(length(a.name || b.name || c.name || d.name)) FROM people a, people b, people c, people d
SELECT count(*) FROM people a JOIN people b ON a.name LIKE '%' || b.name || '%' JOIN people c JOIN people d JOIN people e
SELECT sum(x.i) OVER (ORDER BY x.i ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM (SELECT a.id AS i FROM people a, people b, people c) x
SELECT count(*) FROM generate_series(1, 1000000000000)
SELECT group_concat(a.name || b.name || c.name) FROM people a, people b, people c, people d
# Issue 19: temporary files. A DISTINCT over big blobs made SQLite write 899 MiB of temporary files
# in 6 s; sort runs and temporary b-trees now stay in memory, under the query's memory cap.
SELECT count(*) FROM (SELECT DISTINCT randomblob(100000) FROM people a, people b)
SELECT length(b) FROM (SELECT randomblob(100000) AS b FROM people a, people b) ORDER BY b
