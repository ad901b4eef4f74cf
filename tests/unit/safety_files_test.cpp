// Issue 12, "Engines and files": what sqlgrade writes beside databases and outputs, and which files an
// input may make it open. Each test names the behaviour that was wrong before.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <set>

#include "safety_corpus.hpp"
#include "safety_spider2_fixture.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/py/repr.hpp"
#include "test_support.hpp"
#include "record_views.hpp"

namespace {

using namespace sqlgrade;
using namespace sqlgrade::test;

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> out;
  for (auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

void exec_sql(sqlite3* h, const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(h, sql, nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  ASSERT_EQ(rc, SQLITE_OK) << sql << ": " << msg;
}

// A WAL-mode database, closed cleanly: everything is in the main file, the header says WAL.
void make_wal_db(const fs::path& db) {
  fs::create_directories(db.parent_path());
  sqlite3* h = nullptr;
  ASSERT_EQ(open_fixture_db(db.string(), &h), SQLITE_OK);
  exec_sql(h, "PRAGMA journal_mode=WAL");
  exec_sql(h, adversarial_db_script());
  sqlite3_close(h);
  ASSERT_FALSE(fs::exists(db.string() + "-wal"));
}

// ---- item 10: WAL-mode databases ----

// Before: opening a WAL-mode database read-only created <db>-wal and <db>-shm in its folder (and on
// read-only media the database could not be opened at all). Now nothing appears beside it.
TEST(SafetyFiles, WalModeDatabaseLeavesNoSideFiles) {
  TempDir t;
  fs::path db = t / "dbs" / "adv" / "adv.sqlite";
  make_wal_db(db);
  auto before = names_in(db.parent_path());
  std::string hash = file_hash(db);
  {
    SqliteDb conn(db.string());
    auto r = conn.execute(adversarial_gold_sql(), Limits{});
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(r.table.rows.size(), 1u);
    EXPECT_EQ(py::text(r.table.rows[0][0]), "p7");
    EXPECT_EQ(names_in(db.parent_path()), before) << "side files while the connection is open";
    // Writes are still refused.
    EXPECT_FALSE(conn.execute("DELETE FROM people", Limits{}).ok());
  }
  EXPECT_EQ(names_in(db.parent_path()), before);
  EXPECT_EQ(file_hash(db), hash);
  // Through a whole grading run (Spider exec, 2 threads).
  spit(t / "gold.txt", std::string(adversarial_gold_sql()) + "\tadv\n" + adversarial_gold_sql() + "\tadv\n");
  spit(t / "pred.txt", std::string(adversarial_gold_sql()) + "\nSELECT 1\n");
  auto r = run_cli({"spider", "--gold", (t / "gold.txt").string(), "--pred", (t / "pred.txt").string(), "--db",
                    (t / "dbs").string(), "--etype", "exec", "--jobs", "2", "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(names_in(db.parent_path()), before);
  EXPECT_EQ(file_hash(db), hash);
  if (::geteuid() != 0) {  // root ignores file modes: a read-only folder can only be tested as a user
    fs::permissions(db.parent_path(), fs::perms::owner_read | fs::perms::owner_exec);
    SqliteDb ro(db.string());
    EXPECT_TRUE(ro.execute(adversarial_gold_sql(), Limits{}).ok());
    fs::permissions(db.parent_path(), fs::perms::owner_all);
  }
}

// A WAL file with frames holds committed data that is not in the main file yet. Reading it needs a
// shared-memory index (the -shm file SQLite would create), so sqlgrade refuses such a database with
// one line naming it; before, it read it and left <db>-shm behind.
TEST(SafetyFiles, DatabaseWithPendingWalIsRefusedWithoutSideFiles) {
  TempDir t;
  fs::path src = t / "src" / "adv.sqlite";
  fs::create_directories(src.parent_path());
  sqlite3* h = nullptr;
  ASSERT_EQ(open_fixture_db(src.string(), &h), SQLITE_OK);
  exec_sql(h, "PRAGMA journal_mode=WAL");
  exec_sql(h, "PRAGMA wal_autocheckpoint=0");
  exec_sql(h, adversarial_db_script());
  // Copy the database and its log while the writer still has them open (nothing checkpointed).
  fs::path db = t / "dbs" / "adv" / "adv.sqlite";
  fs::create_directories(db.parent_path());
  fs::copy_file(src, db);
  fs::copy_file(src.string() + "-wal", db.string() + "-wal");
  sqlite3_close(h);
  auto before = names_in(db.parent_path());
  try {
    SqliteDb conn(db.string());
    ADD_FAILURE() << "opened a database whose -wal file has frames";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find(db.string()), std::string::npos) << m;
    EXPECT_NE(m.find("-wal"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_EQ(names_in(db.parent_path()), before);
  // An empty -wal file (left by a reader) is no obstacle: the data is all in the main file.
  fs::path clean = t / "clean" / "adv.sqlite";
  make_wal_db(clean);
  spit(clean.string() + "-wal", "");
  auto before2 = names_in(clean.parent_path());
  SqliteDb ok(clean.string());
  EXPECT_TRUE(ok.execute(adversarial_gold_sql(), Limits{}).ok());
  EXPECT_EQ(names_in(clean.parent_path()), before2);
}

// ---- item 11: outputs never go through a symlink ----

using S2Fx = Spider2Fixture;

// Before: `spider2 --mode sql` cleared <result_dir>_csv through a symlink, deleting another folder's
// CSVs. Now a symlinked output folder is refused (one line, exit 2) before anything runs, as the
// official script's shutil.rmtree refuses it.
TEST(SafetyFiles, Spider2RefusesASymlinkedCsvFolder) {
  S2Fx f;
  fs::path victim = f.t / "victim";
  spit(victim / "keep.csv", "a\n1\n");
  spit(victim / "local001.csv", "a\n2\n");
  fs::create_directory_symlink(victim, f.preds.string() + "_csv");
  auto r = run_cli(f.args());
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sql_mode_csv"), std::string::npos) << r.err;
  EXPECT_EQ(names_in(victim), (std::set<std::string>{"keep.csv", "local001.csv"}));
  EXPECT_EQ(slurp(victim / "keep.csv"), "a\n1\n");
  EXPECT_EQ(slurp(victim / "local001.csv"), "a\n2\n");
}

// Symlinks inside the output folder (or at the ids file) are replaced or removed themselves; what they
// point to is never written or deleted.
TEST(SafetyFiles, Spider2NeverWritesThroughSymlinksInsideOutputs) {
  S2Fx f;
  fs::path victim = f.t / "victim";
  spit(victim / "a.csv", "a\n1\n");
  spit(victim / "b.csv", "b\n2\n");
  spit(victim / "ids.csv", "x\n");
  fs::path out = f.preds.string() + "_csv";
  fs::create_directories(out);
  fs::create_symlink(victim / "a.csv", out / "local001.csv");  // would be written
  fs::create_symlink(victim / "b.csv", out / "stale.csv");     // would be cleared
  fs::create_symlink(victim / "ids.csv", f.preds.string() + "-ids.csv");
  auto r = run_cli(f.args());
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(slurp(victim / "a.csv"), "a\n1\n");
  EXPECT_EQ(slurp(victim / "b.csv"), "b\n2\n");
  EXPECT_EQ(slurp(victim / "ids.csv"), "x\n");
  EXPECT_FALSE(fs::is_symlink(out / "local001.csv"));
  EXPECT_EQ(slurp(out / "local001.csv"), "name\np7\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(out / "stale.csv")));
  EXPECT_FALSE(fs::is_symlink(f.preds.string() + "-ids.csv"));
  EXPECT_NE(slurp(f.preds.string() + "-ids.csv").find("local001"), std::string::npos);
}

// ---- item 14: a database named by an input never lies outside the folder the user gave ----

// The folder layout of these tests: the user's databases under t/dbs (adv), and look-alike databases
// outside it that the names "../evil", "<abs>/evil" and "." would reach: t/evil.sqlite,
// t/evil/evil.sqlite. The outside ones answer the gold query "correctly", so reaching them shows.
struct EscapeFx {
  TempDir t;
  fs::path dbs = t / "dbs";
  std::string abs_evil = (t / "evil").string();
  EscapeFx() {
    make_sqlite(dbs / "adv" / "adv.sqlite", adversarial_db_script());
    make_sqlite(t / "evil" / "evil.sqlite", adversarial_db_script());
    make_sqlite(t / "evil.sqlite", adversarial_db_script());
    make_sqlite(dbs / "adv.sqlite", adversarial_db_script());  // flat layout (Spider 2.0-Lite, server)
  }
};

// Before: in BIRD's original layout the prediction's db_id picked the database and an absolute one
// replaced --db_root_path, so prediction and gold ran on any <x>/<x>.sqlite on the disk (here they
// matched, scoring 1). Now such a prediction scores 0 with a reason.
TEST(SafetyFiles, BirdPredictionDbIdStaysInsideTheRoot) {
  EscapeFx f;
  fs::create_directories(f.t / "pred");
  fs::create_directories(f.t / "gold");
  spit(f.t / "gold" / "dev_gold.sql", std::string(adversarial_gold_sql()) + "\tadv\n" + adversarial_gold_sql() +
                                           "\tadv\n" + adversarial_gold_sql() + "\tadv\n");
  nlohmann::json pred = {{"0", std::string(adversarial_gold_sql()) + "\t----- bird -----\t" + f.abs_evil},
                         {"1", std::string(adversarial_gold_sql()) + "\t----- bird -----\t../evil"},
                         {"2", std::string(adversarial_gold_sql()) + "\t----- bird -----\tadv"}};
  spit(f.t / "pred" / "predict_dev.json", pred.dump());
  std::string js = (f.t / "out.json").string();
  auto r = run_cli({"bird", "--predicted_sql_path", (f.t / "pred").string(), "--ground_truth_path",
                    (f.t / "gold").string(), "--db_root_path", f.dbs.string() + "/", "--data_mode", "dev", "--json", js,
                    "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto items = sqlgrade::test::bird_results(nlohmann::json::parse(slurp(js)));
  ASSERT_EQ(items.size(), 3u);
  for (int i : {0, 1}) {
    EXPECT_EQ(items[i]["score"].get<double>(), 0) << items[i].dump();
    EXPECT_EQ(items[i].value("status", ""), "pred_error") << items[i].dump();
    EXPECT_NE(items[i].value("reason", "").find("inside --db_root_path"), std::string::npos) << items[i].dump();
  }
  EXPECT_EQ(items[2]["score"].get<double>(), 1) << items[2].dump();
  // A gold line naming a database outside the root is a bad input file: one line, exit 2.
  spit(f.t / "gold" / "dev_gold.sql", std::string(adversarial_gold_sql()) + "\t" + f.abs_evil + "\n");
  spit(f.t / "pred" / "predict_dev.json", "{}");
  auto g = run_cli({"bird", "--predicted_sql_path", (f.t / "pred").string(), "--ground_truth_path",
                    (f.t / "gold").string(), "--db_root_path", f.dbs.string() + "/", "--data_mode", "dev", "--no-progress"});
  EXPECT_EQ(g.rc, 2) << g.out << g.err;
  EXPECT_NE(g.err.find("dev_gold.sql:1:"), std::string::npos) << g.err;
  EXPECT_NE(g.err.find("inside --db_root_path"), std::string::npos) << g.err;
}

TEST(SafetyFiles, SpiderAndSpider2DbNamesStayInsideTheirFolders) {
  EscapeFx f;
  for (const std::string& bad : {std::string("../evil"), f.abs_evil, std::string(".")}) {
    spit(f.t / "gold.txt", std::string(adversarial_gold_sql()) + "\t" + bad + "\n");
    spit(f.t / "pred.txt", std::string(adversarial_gold_sql()) + "\n");
    auto r = run_cli({"spider", "--gold", (f.t / "gold.txt").string(), "--pred", (f.t / "pred.txt").string(), "--db",
                      f.dbs.string(), "--etype", "exec", "--no-progress"});
    EXPECT_EQ(r.rc, 2) << bad << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("gold.txt:1:"), std::string::npos) << bad << ": " << r.err;
  }
  // Spider 2.0-Lite: the db of an instance comes from spider2-lite.jsonl.
  fs::path gold = f.t / "s2gold", preds = f.t / "s2preds";
  fs::create_directories(gold / "exec_result");
  fs::create_directories(preds);
  spit(gold / "spider2lite_eval.jsonl", "{\"instance_id\": \"local001\", \"condition_cols\": [], \"ignore_order\": true}\n"
                                        "{\"instance_id\": \"local002\", \"condition_cols\": [], \"ignore_order\": true}\n");
  spit(f.t / "meta.jsonl", "{\"instance_id\": \"local001\", \"db\": \"../evil\"}\n{\"instance_id\": \"local002\", \"db\": \"" +
                               f.abs_evil + "\"}\n");
  for (const char* id : {"local001", "local002"}) {
    spit(gold / "exec_result" / (std::string(id) + ".csv"), "name\np7\n");
    spit(preds / (std::string(id) + ".sql"), adversarial_gold_sql());
  }
  auto r = run_cli({"spider2", "--mode", "sql", "--result_dir", preds.string(), "--gold_dir", gold.string(), "--db_dir",
                    f.dbs.string(), "--meta", (f.t / "meta.jsonl").string(), "--no-progress"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("Correct examples: 0, Total examples: 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not a file name inside --db_dir"), std::string::npos) << r.out;
}

// The reward server resolves a request's db_id with safe_db_id (one plain name, no leading '.'), for
// every benchmark: these requests are refused with 400 and never reach a database.
TEST(SafetyFiles, RewardServerDbIdsStayInsideTheirFolders) {
  EscapeFx f;
  serve::ServerOptions so;
  so.db_dir = f.dbs.string();
  so.spider_db_dir = f.dbs.string();
  so.bird_db_dir = f.dbs.string();
  so.grader.timeout_s = 5;
  serve::RewardServer server(so);
  size_t checked = 0;
  for (const char* bench : {"spider2", "spider", "bird"}) {
    for (const std::string& bad : {std::string("../evil"), f.abs_evil, f.abs_evil + "/evil", std::string("."),
                                   std::string(".."), std::string("adv/../../evil"), std::string("evil\0x", 6)}) {
      nlohmann::json req = {{"db_id", bad}, {"benchmark", bench}, {"gold_sql", adversarial_gold_sql()},
                            {"response", std::string("```sql\n") + adversarial_gold_sql() + "\n```"}};
      auto reply = server.verify(req.dump());
      EXPECT_EQ(reply.status, 400) << bench << " " << bad << ": " << reply.body.substr(0, 300);
      ++checked;
    }
    nlohmann::json ok = {{"db_id", "adv"}, {"benchmark", bench}, {"gold_sql", adversarial_gold_sql()},
                         {"response", std::string("```sql\n") + adversarial_gold_sql() + "\n```"}};
    auto reply = server.verify(ok.dump());
    EXPECT_EQ(reply.status, 200) << bench << ": " << reply.body.substr(0, 300);
    EXPECT_NE(reply.body.find("\"reward\":1"), std::string::npos) << bench << ": " << reply.body.substr(0, 300);
  }
  EXPECT_GE(checked, 7u);
}

}  // namespace
