# Statements that would change data or schema. Expected: refused (authorizer / read-only
# connection / sqlite3_stmt_readonly), verdict 0 with a reason, database byte-identical.
DROP TABLE people
DROP TABLE IF EXISTS pets
DROP VIEW IF EXISTS v_people
DROP INDEX IF EXISTS idx_pets_owner
DELETE FROM people
DELETE FROM people WHERE id > 0 RETURNING *
DELETE FROM pets WHERE owner IN (SELECT id FROM people)
UPDATE people SET name = 'pwned'
UPDATE people SET score = score * 2 WHERE id = 7 RETURNING name
UPDATE OR REPLACE people SET id = 1
INSERT INTO people VALUES (1000, 'x', 1.0)
INSERT INTO people SELECT id + 1000, name, score FROM people
INSERT INTO people(id, name) VALUES (7, 'p7') ON CONFLICT(id) DO UPDATE SET name = 'pwned'
INSERT OR REPLACE INTO people VALUES (7, 'pwned', 0)
REPLACE INTO people VALUES (7, 'pwned', 0)
INSERT INTO people DEFAULT VALUES RETURNING id
CREATE TABLE evil(x)
CREATE TABLE IF NOT EXISTS evil AS SELECT * FROM people
CREATE INDEX evil_idx ON people(name)
CREATE UNIQUE INDEX IF NOT EXISTS evil_u ON pets(kind)
CREATE VIEW evil_v AS SELECT 1
CREATE VIRTUAL TABLE evil_fts USING fts5(x)
CREATE VIRTUAL TABLE evil_rtree USING rtree(id, a, b)
ALTER TABLE people ADD COLUMN evil TEXT
ALTER TABLE people RENAME TO humans
ALTER TABLE people RENAME COLUMN name TO nom
ALTER TABLE people DROP COLUMN score
WITH x AS (SELECT id FROM people) DELETE FROM people WHERE id IN (SELECT id FROM x)
WITH x AS (SELECT 1) UPDATE people SET name = 'pwned'
WITH x(i) AS (SELECT 1) INSERT INTO people SELECT i + 5000, 'x', 0 FROM x
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) INSERT INTO people SELECT i + 9000, 'n', 0 FROM n
  delete from people;
/* comment first */ DELETE FROM people
-- a line comment hides nothing{{x0A}}DELETE FROM people
DeLeTe FrOm "people"
DELETE FROM main.people
DELETE FROM temp.sqlite_master
UPDATE sqlite_master SET sql = 'CREATE TABLE people(x)' WHERE name = 'people'
DELETE FROM sqlite_sequence
INSERT INTO sqlite_sequence VALUES ('people', 99)
