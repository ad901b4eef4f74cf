// The witness keeps every constraint the schema declares (src/sqlgrade/verify/load.hpp, docs/verify.md
// "Constraints the witness keeps"; issue 30 item 11): deferred foreign keys, triggers that refuse rows
// (and those that write, by re-validation), CHECK; the built-ins that read connection state answer as on
// a clean connection; a --counterexamples folder that cannot be written is an error, not a lost
// refutation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <set>
#include <nlohmann/json.hpp>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/verify.hpp"
#include "sqlgrade/verify/load.hpp"
#include "sqlgrade/verify/verify.hpp"
#include "sqlgrade/py/repr.hpp"
#include "test_support.hpp"
#include "verify_fixtures.hpp"

using namespace sqlgrade;
using namespace sqlgrade::verify;
using namespace sqlgrade::test;

namespace {

// Employees whose department key is NOT NULL and DEFERRABLE INITIALLY DEFERRED: a join with dept on it
// drops no employee.
constexpr const char* kDeferred =
    "CREATE TABLE dept(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "CREATE TABLE emp(id INTEGER PRIMARY KEY, name TEXT NOT NULL, salary INTEGER,"
    "  dept_id INTEGER NOT NULL REFERENCES dept(id) DEFERRABLE INITIALLY DEFERRED);"
    "INSERT INTO dept VALUES (1,'Sales'),(2,'Research'),(3,'Support');"
    "INSERT INTO emp VALUES (1,'Ada',300,1),(2,'Bob',200,2),(3,'Cy',250,1),(4,'Di',100,3),(5,'Ed',150,2);";

// People whose age a guard trigger keeps non-NULL and within 0..150 (ABORT), tags a trigger keeps in
// upper case (IGNORE), items whose price a CHECK keeps positive; a trigger that writes (an audit log)
// and refuses a name 'nobody' after writing.
constexpr const char* kGuarded =
    "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, age INTEGER);"
    "CREATE TABLE tag(id INTEGER PRIMARY KEY, label TEXT);"
    "CREATE TABLE item(id INTEGER PRIMARY KEY, price REAL NOT NULL CHECK (price > 0), qty INTEGER NOT NULL CHECK (qty >= 1));"
    "CREATE TABLE audit(pid INTEGER);"
    "CREATE TRIGGER person_age BEFORE INSERT ON person"
    "  WHEN new.age IS NULL OR new.age < 0 OR new.age > 150 BEGIN SELECT RAISE(ABORT, 'age out of range'); END;"
    "CREATE TRIGGER tag_upper BEFORE INSERT ON tag BEGIN"
    "  SELECT RAISE(IGNORE) WHERE new.label IS NULL OR new.label <> upper(new.label); END;"
    "INSERT INTO person VALUES (1,'Ann',31),(2,'Ben',45),(3,'Cat',37),(4,'Dan',60);"
    "INSERT INTO tag VALUES (1,'RED'),(2,'BLUE'),(3,'GREEN');"
    "INSERT INTO item VALUES (1,2.5,1),(2,4.0,3),(3,7.0,2);"
    "CREATE TRIGGER person_log AFTER INSERT ON person BEGIN"
    "  INSERT INTO audit VALUES (new.id); SELECT RAISE(ABORT, 'no one') WHERE new.name = 'nobody'; END;";

struct Db {
  TempDir dir;
  std::string path;
  explicit Db(const char* script) : path((dir / "d.sqlite").string()) { make_sqlite(path, script); }
  Item item(const std::string& gold, const std::string& pred) const { return search_item(path, gold, pred); }
};

Budget budget() { return search_budget(); }

size_t table_index(const Schema& s, const std::string& name) {
  for (size_t t = 0; t < s.tables.size(); ++t)
    if (s.tables[t].name == name) return t;
  return SIZE_MAX;
}

// A candidate of `s` with `rows` in `table` (every other table empty).
Candidate rows_in(const Schema& s, const std::vector<std::pair<std::string, Row>>& rows) {
  Candidate c;
  c.rows.resize(s.tables.size());
  c.src.resize(s.tables.size());
  for (const auto& [table, row] : rows) {
    const size_t t = table_index(s, table);
    c.rows[t].push_back(row);
    c.src[t].push_back("test");
  }
  return c;
}

Row ints(std::initializer_list<int64_t> v) {
  Row r;
  for (int64_t x : v) r.push_back(Value::integer(x));
  return r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST(VerifyConstraints, DeferredForeignKeyRefusesAnOrphanRowAsItIsLoaded) {
  Db d(kDeferred);
  auto s = read_schema(d.path);
  ASSERT_TRUE(s->fk_enforced);
  ASSERT_TRUE(s->deferred_fks);
  ScratchDb db;
  create_schema(db, *s);
  db.exec("BEGIN");
  bool ok = false;
  // dept 1, an employee of dept 1 (kept), an orphan of dept 9 (refused), another of dept 1 (kept)
  Row dept{Value::integer(1), Value::text("Sales")};
  Row e1{Value::integer(1), Value::text("Ada"), Value::integer(3), Value::integer(1)};
  Row orphan{Value::integer(2), Value::text("Bob"), Value::integer(2), Value::integer(9)};
  Row e3{Value::integer(3), Value::text("Cy"), Value::integer(1), Value::integer(1)};
  Candidate kept = load_rows(db, *s, rows_in(*s, {{"dept", dept}, {"emp", e1}, {"emp", orphan}, {"emp", e3}}), &ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(kept.row_count(), 3u);
  EXPECT_EQ(db.exec("COMMIT"), "");  // the deferred key is resolved: the commit succeeds
  ExecResult n = db.run("SELECT count(*) FROM emp WHERE dept_id = 9", Limits{});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.table.rows[0][0].i, 0);
}

TEST(VerifyConstraints, EquivalentJoinsUnderADeferredForeignKeyAreNotRefuted) {
  Db d(kDeferred);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"SELECT e.name FROM emp AS e JOIN dept AS d ON e.dept_id = d.id", "SELECT name FROM emp"},
      {"SELECT count(*) FROM emp JOIN dept ON emp.dept_id = dept.id", "SELECT count(*) FROM emp"},
      {"SELECT sum(e.salary) FROM emp e, dept d WHERE e.dept_id = d.id", "SELECT sum(salary) FROM emp"}};
  for (const auto& [g, p] : pairs) {
    verify::SearchOutcome o = verify::verify(d.item(g, p), budget());
    EXPECT_EQ(o.status, Status::NoCounterexample) << g << " vs " << p << ": " << o.reason;
  }
}

TEST(VerifyConstraints, ANonEquivalentPairUnderTheDeferredKeyIsStillRefutedOnAValidWitness) {
  Db d(kDeferred);
  TempDir out;
  Item it = d.item("SELECT e.name FROM emp AS e JOIN dept AS d ON e.dept_id = d.id WHERE d.name = 'Sales'",
                   "SELECT name FROM emp");
  verify::SearchOutcome o = verify::verify(it, budget());
  ASSERT_EQ(o.status, Status::Refuted) << o.reason;
  ASSERT_TRUE(o.cex);
  // every employee of the witness has its department in the witness
  std::set<int64_t> depts;
  for (const auto& r : o.cex->rows)
    if (r.table == "dept") depts.insert(r.values[0].i);
  for (const auto& r : o.cex->rows) {
    if (r.table == "emp") {
      EXPECT_TRUE(depts.count(r.values[3].i)) << py::repr(r.values[3]);
    }
  }
  EXPECT_EQ(write_counterexample(it, o, out.str(), "x"), "");  // the file (COMMIT included) proves it
  EXPECT_TRUE(fs::exists(out / "x.sqlite"));
}

TEST(VerifyConstraints, TriggersThatOnlyRaiseAreKeptAndTheOthersSeparated) {
  EXPECT_TRUE(trigger_only_selects("CREATE TRIGGER t BEFORE INSERT ON p WHEN new.a < 0 BEGIN SELECT RAISE(ABORT, 'x'); END"));
  EXPECT_TRUE(trigger_only_selects(
      "create trigger t before insert on p begin select case when new.a < 0 then raise(fail, 'end; insert') end; "
      "-- update\n select raise(rollback, 'no') where new.b is null; end"));
  EXPECT_FALSE(trigger_only_selects("CREATE TRIGGER t AFTER INSERT ON p BEGIN INSERT INTO log VALUES (new.id); END"));
  EXPECT_FALSE(trigger_only_selects(
      "CREATE TRIGGER t AFTER INSERT ON p BEGIN SELECT RAISE(ABORT, 'x') WHERE new.a < 0; UPDATE p SET a = 1; END"));
  EXPECT_FALSE(trigger_only_selects("CREATE TRIGGER t AFTER DELETE ON p BEGIN DELETE FROM q WHERE q.p = old.id; END"));
  Db d(kGuarded);
  auto s = read_schema(d.path);
  EXPECT_EQ(s->guard_triggers.size(), 2u);
  ASSERT_EQ(s->writing_triggers.size(), 1u);
  EXPECT_NE(s->writing_triggers[0].find("person_log"), std::string::npos);
}

TEST(VerifyConstraints, RowsAGuardTriggerRefusesOrIgnoresAreNotLoaded) {
  Db d(kGuarded);
  auto s = read_schema(d.path);
  ScratchDb db;
  create_schema(db, *s);
  db.exec("BEGIN");
  bool ok = false;
  Row young{Value::integer(1), Value::text("A"), Value::integer(20)};
  Row old{Value::integer(2), Value::text("B"), Value::integer(200)};   // ABORT
  Row unknown{Value::integer(3), Value::text("C"), Value::null()};    // ABORT
  Row upper{Value::integer(1), Value::text("RED")};
  Row lower{Value::integer(2), Value::text("red")};                   // IGNORE: accepted, not written
  Row cheap{Value::integer(1), Value::real(-1.0), Value::integer(1)};  // CHECK
  Row fine{Value::integer(2), Value::real(1.0), Value::integer(2)};
  Candidate kept = load_rows(db, *s, rows_in(*s, {{"person", young}, {"person", old}, {"person", unknown}, {"tag", upper},
                                                  {"tag", lower}, {"item", cheap}, {"item", fine}}), &ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(kept.rows[table_index(*s, "person")].size(), 1u);
  EXPECT_EQ(kept.rows[table_index(*s, "tag")].size(), 1u);
  EXPECT_EQ(kept.rows[table_index(*s, "item")].size(), 1u);
  ExecResult n = db.run("SELECT (SELECT count(*) FROM person), (SELECT count(*) FROM tag), (SELECT count(*) FROM audit)", Limits{});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n.table.rows[0][0].i, 1);
  EXPECT_EQ(n.table.rows[0][1].i, 1);
  EXPECT_EQ(n.table.rows[0][2].i, 0);  // the trigger that writes is not in the search's database
  db.exec("ROLLBACK");
  // ...and a witness is re-validated with it: 'nobody' is refused there, not in the search.
  EXPECT_TRUE(revalidate(*s, rows_in(*s, {{"person", young}})));
  Row nobody{Value::integer(5), Value::text("nobody"), Value::integer(30)};
  EXPECT_FALSE(revalidate(*s, rows_in(*s, {{"person", young}, {"person", nobody}})));
}

TEST(VerifyConstraints, ARowATriggerRollsBackIsDroppedAndTheOthersLoadedAgain) {
  Db d("CREATE TABLE r(id INTEGER PRIMARY KEY, v INTEGER);"
       "CREATE TRIGGER r_guard BEFORE INSERT ON r WHEN new.v < 0 BEGIN SELECT RAISE(ROLLBACK, 'negative'); END;"
       "INSERT INTO r VALUES (1,5),(2,8),(3,13);");
  auto s = read_schema(d.path);
  ASSERT_EQ(s->guard_triggers.size(), 1u);
  ScratchDb db;
  create_schema(db, *s);
  db.exec("BEGIN");
  bool ok = false;
  Candidate kept = load_rows(db, *s, rows_in(*s, {{"r", ints({1, 5})}, {"r", ints({2, -1})}, {"r", ints({3, 7})}}), &ok);
  ASSERT_TRUE(ok);
  EXPECT_FALSE(db.autocommit());  // still inside a transaction the caller rolls back or commits
  EXPECT_EQ(kept.row_count(), 2u);
  ExecResult n = db.run("SELECT group_concat(id) FROM r", Limits{});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(py::text(n.table.rows[0][0]), "1,3");
  EXPECT_EQ(db.exec("ROLLBACK"), "");
  verify::SearchOutcome o = verify::verify(d.item("SELECT id FROM r WHERE v IS NULL OR v >= 0", "SELECT id FROM r"), budget());
  EXPECT_EQ(o.status, Status::NoCounterexample) << o.reason;
}

TEST(VerifyConstraints, EquivalentPairsUnderGuardTriggersAndChecksAreNotRefuted) {
  Db d(kGuarded);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"SELECT name FROM person WHERE age BETWEEN 0 AND 150", "SELECT name FROM person"},
      {"SELECT count(*) FROM person WHERE age IS NOT NULL", "SELECT count(*) FROM person"},
      {"SELECT upper(label) FROM tag", "SELECT label FROM tag"},
      {"SELECT id FROM item WHERE price > 0 AND qty > 0", "SELECT id FROM item"},
      // 'nobody' is refused by the trigger that writes: the search may find it, the re-validation not
      {"SELECT id FROM person WHERE name IS NOT 'nobody'", "SELECT id FROM person"}};
  for (const auto& [g, p] : pairs) {
    verify::SearchOutcome o = verify::verify(d.item(g, p), budget());
    EXPECT_EQ(o.status, Status::NoCounterexample) << g << " vs " << p << ": " << o.reason;
  }
  // the same schema still refutes a pair that differs on rows it accepts
  verify::SearchOutcome o = verify::verify(d.item("SELECT name FROM person WHERE age > 30", "SELECT name FROM person"), budget());
  EXPECT_NE(o.status, Status::NoCounterexample);
}

TEST(VerifyConstraints, ConnectionStateBuiltinsAnswerAsOnACleanConnection) {
  ScratchDb db;
  db.exec("CREATE TABLE t(a INTEGER)");
  for (int i = 0; i < 3; ++i) db.insert("t", {"a"}, ints({i}));
  ExecResult r = db.run("SELECT changes(), total_changes(), last_insert_rowid()", Limits{});
  ASSERT_TRUE(r.ok()) << r.error;
  for (const Value& v : r.table.rows[0]) EXPECT_EQ(v.i, 0);
  Db d(kGuarded);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"SELECT count(*) + changes() FROM person", "SELECT count(*) FROM person"},
      {"SELECT name FROM person WHERE last_insert_rowid() = 0", "SELECT name FROM person"},
      {"SELECT total_changes() FROM person", "SELECT 0 FROM person"}};
  for (const auto& [g, p] : pairs) {
    verify::SearchOutcome o = verify::verify(d.item(g, p), budget());
    EXPECT_EQ(o.status, Status::NoCounterexample) << g << " vs " << p << ": " << o.reason;
  }
}

namespace {
// A BIRD layout over kGuarded (BIRD: the gold need not parse with Spider's grammar): the three
// connection-state pairs, and one pair that is refuted.
struct StateBird {
  TempDir dir;
  std::string db = (dir / "db").string(), gold = (dir / "gold.sql").string(), pred = (dir / "pred.json").string();
  StateBird() {
    make_sqlite(dir / "db/g/g.sqlite", kGuarded);
    spit(dir / "gold.sql",
         "SELECT count(*) + changes() FROM person\tg\n"
         "SELECT name FROM person WHERE last_insert_rowid() = 0\tg\n"
         "SELECT total_changes() FROM person\tg\n"
         "SELECT name FROM person WHERE age > 30\tg\n");
    const std::string sep = "\\t----- bird -----\\tg";
    spit(pred, "{\"0\": \"SELECT count(*) FROM person" + sep + "\", \"1\": \"SELECT name FROM person" + sep +
                   "\", \"2\": \"SELECT 0 FROM person" + sep + "\", \"3\": \"SELECT name FROM person" + sep + "\"}");
  }
  std::vector<std::string> args(std::vector<std::string> more) const {
    std::vector<std::string> a{"verify", "bird", "--gold", gold, "--pred", pred, "--db", db, "--no-progress",
                               "--verify-candidates", "150"};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
};

// The folder `verify` writes a system's counterexamples into (batch.cpp system_folder).
std::string system_folder(const std::string& pred, size_t k) {
  fs::path p(pred);
  std::string name = p.parent_path().filename().string() + "_" + p.filename().string();
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.')) c = '_';
  return std::to_string(k + 1) + "_" + name;
}

size_t files_under(const fs::path& dir) {
  size_t n = 0;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return 0;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); ++it)
    n += it->is_regular_file();
  return n;
}
}  // namespace

TEST(VerifyConstraints, ConnectionStatePairsAreNotRefutedWithOrWithoutCounterexampleFiles) {
  StateBird f;
  TempDir out;
  for (bool files : {false, true}) {
    auto r = run_cli(f.args(files ? std::vector<std::string>{"--counterexamples", (out / "cex").string()}
                                  : std::vector<std::string>{}));
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("EX            1.000 (4/4)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("verified EX   0.750 (3/4)"), std::string::npos) << r.out;  // only the age filter
    EXPECT_NE(r.out.find("refuted       1 of 4 matches"), std::string::npos) << r.out;
  }
  EXPECT_EQ(files_under(out / "cex"), 2u);  // one .sqlite and its .json
}

TEST(VerifyConstraints, AnUnwritableCounterexamplesFolderIsRefusedBeforeAnyWork) {
  StateBird f;
  TempDir out;
  spit(out / "file.txt", "not a folder\n");
  std::vector<std::string> bad = {(out / "file.txt/sub").string()};
  const bool root = ::geteuid() == 0;
  if (!root) {  // a read-only folder stops everyone but root
    fs::create_directories(out / "ro");
    fs::permissions(out / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    bad.push_back((out / "ro/cex").string());
  }
  for (const std::string& dir : bad) {
    auto r = run_cli(f.args({"--counterexamples", dir}));
    EXPECT_EQ(r.rc, 2) << dir;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(dir), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");  // nothing graded or printed
    auto bird = run_cli({"bird", "--predicted_sql_path", f.pred, "--ground_truth_path", f.gold, "--db_root_path", f.db,
                         "--verify", "--counterexamples", dir});
    EXPECT_EQ(bird.rc, 2);
    EXPECT_EQ(lines(bird.err), 1) << bird.err;
    EXPECT_EQ(bird.out, "");
    EXPECT_THROW(check_counterexamples_dir(dir), InputError);
  }
  if (!root) fs::permissions(out / "ro", fs::perms::owner_all);
  EXPECT_EQ(files_under(out.path), 1u);  // file.txt only
  EXPECT_NO_THROW(check_counterexamples_dir((out / "new/deeper").string()));
  EXPECT_FALSE(fs::exists(out / "new"));  // the check writes nothing
}

TEST(VerifyConstraints, AWriteThatFailsMidRunIsAnErrorAndRemovesWhatWasWritten) {
  StateBird f;
  TempDir out;
  const std::string pred2 = (f.dir / "pred2.json").string();
  spit(pred2, slurp(f.pred));
  // the second system's folder is taken by a file: its counterexample cannot be written, after the
  // first system's was
  spit(out / "cex" / system_folder(pred2, 1), "in the way\n");
  auto args = f.args({"--counterexamples", (out / "cex").string()});
  args.insert(args.end(), {"--pred", pred2});
  auto r = run_cli(args);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(system_folder(pred2, 1)), std::string::npos) << r.err;
  EXPECT_EQ(files_under(out / "cex"), 1u);  // the file in the way; the first system's files are removed
  EXPECT_FALSE(fs::exists(out / "cex" / system_folder(f.pred, 0)));
  // a single counterexample into a folder that cannot be created: an error, nothing written
  Db d(kGuarded);
  Item it = d.item("SELECT name FROM person WHERE age > 30", "SELECT name FROM person");
  verify::SearchOutcome o = verify::verify(it, budget());
  ASSERT_EQ(o.status, Status::Refuted) << o.reason;
  EXPECT_THROW(write_counterexample(it, o, (out / "cex" / system_folder(pred2, 1) / "x").string(), "x"), InputError);
}

// The scratch connection keeps its INSERTs prepared (SqliteConnection::insert_own): a reused statement
// binds each row afresh (a short row's missing cells are NULL, not the previous row's), follows a table
// that was dropped and created again, reports a table that is gone as a fresh prepare would, and keeps
// working past its bound on distinct statements.
TEST(VerifyConstraints, PreparedInsertsAreReusedWithoutCarryingState) {
  ScratchDb db;
  ASSERT_EQ(db.exec("CREATE TABLE t (a INTEGER, b TEXT)"), "");
  const std::vector<std::string> cols{"a", "b"};
  EXPECT_EQ(db.insert("t", cols, Row{Value::integer(1), Value::text("x")}), "");
  EXPECT_EQ(db.insert("t", cols, Row{Value::integer(2)}), "");  // b unbound: NULL
  ExecResult r = db.run("SELECT group_concat(a || ':' || coalesce(b, 'NULL'), ',') FROM t", Limits{});
  ASSERT_EQ(r.table.rows.size(), 1u);
  EXPECT_EQ(r.table.rows[0][0], Value::text("1:x,2:NULL"));
  ASSERT_EQ(db.exec("DROP TABLE t"), "");
  EXPECT_EQ(db.insert("t", cols, Row{Value::integer(3), Value::text("y")}), "no such table: t");
  ASSERT_EQ(db.exec("CREATE TABLE t (b TEXT NOT NULL, a INTEGER)"), "");  // other order, a constraint
  EXPECT_EQ(db.insert("t", cols, Row{Value::integer(4), Value::text("z")}), "");
  EXPECT_EQ(db.insert("t", cols, Row{Value::integer(5)}), "NOT NULL constraint failed: t.b");
  r = db.run("SELECT group_concat(b || ':' || a, ',') FROM t", Limits{});
  EXPECT_EQ(r.table.rows[0][0], Value::text("z:4"));
  for (int k = 0; k < 300; ++k) {  // more distinct INSERTs than the connection keeps
    const std::string name = "u" + std::to_string(k);
    ASSERT_EQ(db.exec("CREATE TABLE " + name + " (v INTEGER)"), "");
    ASSERT_EQ(db.insert(name, {"v"}, Row{Value::integer(k)}), "") << name;
  }
  EXPECT_EQ(db.insert("u7", {"v"}, Row{Value::integer(70)}), "");
  r = db.run("SELECT sum(v) FROM u7", Limits{});
  EXPECT_EQ(r.table.rows[0][0], Value::integer(77));
}
