# Huge printf widths and precisions. SQLite bounds them (64 MiB length limit, fast). DuckDB would
# allocate the whole width in one step, outside its memory_limit and beyond the reach of the
# interrupt (printf('%.*f', 2147483647, 1.5) took 11 GB and crashed the process), so the UDA gold
# side refuses statements with such constant sizes before running them (QueryShape::oversized_values).
SELECT substr(printf('%900000000d', 1), 1, 5)
SELECT printf('%.*f', 2147483647, 1.5)
SELECT printf('%2000000000d', 1)
# Issue 19: printf's '%c' repeats in a loop that keeps running after the value limit is passed
# (~30 s for 2^31 - 1); sqlgrade answers SQLite's NULL at once.
SELECT printf('%.*c', 2147483647, 'x') IS NULL
