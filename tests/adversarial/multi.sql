# Several statements in one prediction. Expected: "one statement at a time" (Python sqlite3's
# rule), never the second statement executed. (Spider's test-suite evaluator runs the first statement
# only — an official quirk sqlgrade keeps — so none of the first statements here is the gold answer.)
SELECT 1; DROP TABLE people
SELECT name FROM people WHERE id = 8; DELETE FROM people
SELECT 1;DELETE FROM people;
SELECT 1; SELECT 2
SELECT 'a;b'; UPDATE people SET name = 'pwned'
SELECT name FROM people /* ; */ ; ATTACH ':memory:' AS m
SELECT 1 -- comment{{x0A}}; PRAGMA writable_schema = 1
; ; DELETE FROM people
SELECT 1; BEGIN; DELETE FROM people; COMMIT
SELECT 1; VACUUM INTO '/tmp/sqlgrade-adversarial-multi.db'
