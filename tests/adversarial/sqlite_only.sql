# Huge printf widths and precisions. SQLite bounds them (64 MiB length limit, fast). They are NOT run
# on DuckDB (UDA gold side): DuckDB allocates the whole width in one step, outside its memory_limit
# and beyond the reach of the interrupt — printf('%.*f', 2147483647, 1.5) takes 11 GB and crashes
# the process there. Known limitation, see docs/safety.md.
SELECT substr(printf('%900000000d', 1), 1, 5)
SELECT printf('%.*f', 2147483647, 1.5)
SELECT printf('%2000000000d', 1)
