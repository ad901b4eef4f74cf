# Code loading and file access through SQL functions. Expected: refused or no such function.
SELECT load_extension('/tmp/evil.so')
SELECT load_extension('libc.so.6', 'system')
SELECT name FROM people WHERE load_extension('/tmp/evil') IS NULL
SELECT readfile('/etc/passwd')
SELECT writefile('/tmp/sqlgrade-adversarial-written', 'x')
SELECT edit('x', 'vi')
SELECT fts3_tokenizer('simple', x'0000000000000000')
SELECT * FROM fsdir('/')
SELECT * FROM zipfile('/tmp/x.zip')
SELECT sqlite_dbpage('main')
SELECT * FROM sqlite_dbpage
SELECT * FROM generate_series(1, 1000000000000)
