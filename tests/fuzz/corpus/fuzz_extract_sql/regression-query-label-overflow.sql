-- Query 4444444444444uery 1:lect (t)
SELECT a y 2 *t;
/*we[r~> a±FROM t; -l
