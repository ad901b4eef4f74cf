# Queries that ask the engine for huge values. Expected: refused by SQLite's length limit or the
# result caps, never gigabytes of memory. printf's %c repeats its character in a loop that one VM
# step cannot interrupt (~13 ns per repetition here), so its count stays at 2e7 here (docs/safety.md).
SELECT randomblob(1000000000)
SELECT length(randomblob(900000000))
SELECT hex(randomblob(400000000))
SELECT zeroblob(1000000000)
SELECT length(hex(zeroblob(500000000)))
SELECT replace(hex(zeroblob(100000000)), '0', 'xx')
SELECT printf('%.*c', 20000000, 'x')
SELECT length(replace(printf('%.7000000c', 'x'), 'x', 'yyyyyyyyyy'))
WITH RECURSIVE r(s) AS (SELECT 'xxxxxxxx' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r
WITH RECURSIVE r(s, n) AS (SELECT 'x', 1 UNION ALL SELECT s || s, n + 1 FROM r WHERE n < 40) SELECT max(length(s)) FROM r
SELECT length(group_concat(hex(randomblob(1000)))) FROM people a, people b, people c
SELECT json_group_array(a.name || b.name) FROM people a, people b, people c
SELECT a.name || b.name || c.name || hex(randomblob(64)) FROM people a, people b, people c
