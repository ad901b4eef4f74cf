# SQLite built-ins whose single call is one VM step, which the progress handler cannot interrupt:
# LIKE/GLOB are O(pattern x string), instr and replace O(needle x haystack), the trims O(characters x
# set). On a 2e7-character value (0.2 s to build with printf) these ran for hours; 1.6e7 here, the
# most the 16 MiB value limit allows (issue 19). Expected: stopped
# at the deadline (LIKE, GLOB, trims: sqlgrade's replacements check it) or answered within it (instr
# and replace now search in linear time).
SELECT printf('%.*c', 16000000, 'a') LIKE '%' || printf('%.*c', 40000, 'a') || 'b'
SELECT printf('%.*c', 16000000, 'a') NOT LIKE '%' || printf('%.*c', 40000, '_') || 'b'
SELECT printf('%.*c', 16000000, 'a') LIKE '%' || printf('%.*c', 40000, 'a') || 'b' ESCAPE '!'
SELECT printf('%.*c', 16000000, 'A') LIKE '%%%' || printf('%.*c', 40000, 'a') || 'b%'
SELECT printf('%.*c', 16000000, 'a') GLOB '*' || printf('%.*c', 40000, 'a') || 'b'
SELECT printf('%.*c', 16000000, 'a') GLOB '*' || printf('%.*c', 15000, 'a') || replace(printf('%.*c', 10000, 'a'), 'a', '[a]') || 'b'
SELECT glob('*?' || printf('%.*c', 40000, '?') || 'b', printf('%.*c', 16000000, 'a'))
SELECT count(*) FROM people WHERE printf('%.*c', 2000000, 'a') || name LIKE '%' || printf('%.*c', 40000, 'a') || 'b'
SELECT instr(printf('%.*c', 16000000, 'a'), printf('%.*c', 40000, 'a') || 'b')
SELECT instr(printf('%.*c', 16000000, 'a') || 'b', printf('%.*c', 4000000, 'a') || 'b')
SELECT length(replace(printf('%.*c', 16000000, 'a'), printf('%.*c', 40000, 'a') || 'b', 'x'))
SELECT length(replace(printf('%.*c', 8000000, 'a'), 'a', 'bb'))
SELECT length(ltrim(printf('%.*c', 2000000, 'a') || 'b', replace(hex(zeroblob(50000)), '0', 'c') || 'a'))
SELECT length(ltrim(replace(hex(zeroblob(2500000)), '0', '一'), replace(hex(zeroblob(50000)), '0', '乀') || '一'))
SELECT length(rtrim(replace(hex(zeroblob(2500000)), '0', '一'), replace(hex(zeroblob(50000)), '0', '乀') || '一'))
SELECT length(trim('x' || replace(hex(zeroblob(2500000)), '0', '一'), replace(hex(zeroblob(50000)), '0', '乀') || '一'))
