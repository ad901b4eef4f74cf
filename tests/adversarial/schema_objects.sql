# Triggers, temporary tables and views: refused even though temp objects would not touch the file.
CREATE TRIGGER evil_t AFTER INSERT ON people BEGIN DELETE FROM pets; END
CREATE TEMP TRIGGER evil_tt BEFORE DELETE ON people BEGIN SELECT 1; END
CREATE TEMP TABLE scratch(x)
CREATE TEMPORARY TABLE scratch AS SELECT * FROM people
CREATE TEMP VIEW tv AS SELECT name FROM people
CREATE TEMP TABLE big AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n
DROP TRIGGER IF EXISTS evil_t
INSERT INTO temp.scratch VALUES (1)
SELECT name FROM people WHERE 0; CREATE TEMP TABLE t2(x)
