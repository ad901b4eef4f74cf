-- Query 1: select (t)
SELECT a FROM t;
/* Query 2 */ SELECT 'x;y' FROM t; -- tail
