// Who is wrong, and honest outputs (issue 30 items 4 and 5; docs/verify.md "Statuses", "Gold-suspect
// refutations", "Audit"): a refutation whose witness shows the gold's own bug is gold_suspect (the key
// rule; the peer rule when several systems are verified together) and costs no verified EX; the
// others siding with the gold keep it refuted; every output counts every class by name; the audit
// compares reals to a stated tolerance; search time is CPU and wall, labelled; the witness's mutation
// list describes the rows left after shrinking; no exact-match warning where exact match is not scored.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "sqlgrade/runs/verify_record.hpp"
#include "sqlgrade/verify/shrink.hpp"
#include "sqlgrade/verify/ties.hpp"
#include "sqlgrade/verify/verify.hpp"
#include "test_support.hpp"
#include "verify_fixtures.hpp"

using namespace sqlgrade;
using namespace sqlgrade::verify;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

// Spider's singer (dev 1024) in small: singer names nearly unique in the data (one name twice, the
// second namesake without songs, so a gold that groups by name and a prediction that groups by id
// agree on it); songs point at singers by a declared foreign key.
constexpr const char* kSinger =
    "CREATE TABLE singer(Singer_ID INTEGER PRIMARY KEY, Name TEXT NOT NULL, Country TEXT);"
    "CREATE TABLE song(Song_ID INTEGER PRIMARY KEY, Title TEXT, Singer_ID INTEGER REFERENCES singer(Singer_ID), Sales REAL);"
    "INSERT INTO singer VALUES (1,'Liliane','France'),(2,'Jimmy','US'),(3,'Rose','UK'),(4,'Tom','US'),"
    "  (5,'Ann','UK'),(6,'Jimmy','France');"
    "INSERT INTO song VALUES (1,'A',1,100),(2,'B',2,200),(3,'C',3,300),(4,'D',4,50),(5,'E',5,75),(6,'F',1,20);";
constexpr const char* kGoldByName =
    "SELECT T1.Name, sum(T2.Sales) FROM singer AS T1 JOIN song AS T2 ON T1.Singer_ID = T2.Singer_ID GROUP BY T1.Name";
constexpr const char* kPredById =
    "SELECT T1.Name, sum(T2.Sales) FROM singer AS T1 JOIN song AS T2 ON T1.Singer_ID = T2.Singer_ID GROUP BY T1.Singer_ID";

Item singer_item(const std::string& db, const std::string& gold, const std::string& pred) {
  return search_item(db, gold, pred, false, "1024");
}

// A Spider layout with one database "t" (id, x > 0 everywhere, a department) where the gold (by
// default) keeps x >= 0, and the given predictions, one file per system.
struct Systems {
  TempDir dir;
  std::string db = (dir / "db").string(), gold = (dir / "gold.sql").string();
  std::vector<std::string> preds;
  explicit Systems(const std::vector<std::string>& sqls, const std::string& gold_sql = "SELECT id FROM t WHERE x >= 0") {
    make_sqlite(dir / "db/t/t.sqlite", "CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER NOT NULL, dept TEXT);"
                                       "INSERT INTO t VALUES (1,3,'art'),(2,5,'law'),(3,8,'art'),(4,2,'math'),(5,9,'law'),"
                                       "  (6,4,'engineer'),(7,6,'engineering');");
    spit(dir / "gold.sql", gold_sql + "\tt\n");
    for (size_t k = 0; k < sqls.size(); ++k) {
      preds.push_back((dir / ("sys" + std::to_string(k) + ".sql")).string());
      spit(preds.back(), sqls[k] + "\n");
    }
  }
  json verify(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{"verify", "spider", "--gold", gold, "--db", db, "--no-progress", "--verify-candidates", "120",
                                  "--json", (dir / "v.json").string()};
    for (const auto& p : preds) args.insert(args.end(), {"--pred", p});
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.rc, 0) << r.err;
    last_out = r.out;
    return json::parse(slurp(dir / "v.json"));
  }
  mutable std::string last_out;
};

}  // namespace

TEST(VerifySuspect, GoldGroupingByANonUniqueNameIsGoldSuspectNotRefuted) {
  TempDir d;
  const std::string db = (d / "singer.sqlite").string();
  make_sqlite(db, kSinger);
  verify::SearchOutcome o = verify::verify(singer_item(db, kGoldByName, kPredById), search_budget());
  ASSERT_EQ(o.status, Status::GoldSuspect) << o.reason;
  ASSERT_TRUE(o.cex);
  EXPECT_NE(o.cex->gold_suspect.find("singer.Name"), std::string::npos) << o.cex->gold_suspect;
  EXPECT_NE(o.cex->gold_suspect.find("declared key singer.Singer_ID"), std::string::npos) << o.cex->gold_suspect;
  // The witness shows two singers of one name, both with songs.
  std::map<std::string, int> names;
  for (const auto& r : o.cex->rows)
    if (r.table == "singer") ++names[r.values[1].s];
  int most = 0;
  for (const auto& [n, c] : names) most = std::max(most, c);
  EXPECT_GE(most, 2);
  // Reversed (the gold by id, the prediction by name): the prediction is the one that merges people.
  verify::SearchOutcome rev = verify::verify(singer_item(db, kPredById, kGoldByName), search_budget());
  EXPECT_EQ(rev.status, Status::Refuted) << rev.reason;
}

TEST(VerifySuspect, GroupingByAnAttributeThatIsNotANameStaysRefuted) {
  // GROUP BY Country (many singers per country, by design) vs GROUP BY Singer_ID: the prediction is
  // wrong; the gold's key is not a name, so the key rule does not apply.
  TempDir d;
  const std::string db = (d / "singer.sqlite").string();
  make_sqlite(db, std::string(kSinger) + "UPDATE singer SET Country = 'US';");
  verify::SearchOutcome o = verify::verify(singer_item(db, "SELECT Country, count(*) FROM singer GROUP BY Country",
                                 "SELECT Country, count(*) FROM singer GROUP BY Singer_ID"),
                     search_budget());
  EXPECT_NE(o.status, Status::GoldSuspect) << o.reason;
}

TEST(VerifySuspect, OtherSystemsSidingWithThePredictionMakeItGoldSuspect) {
  Systems sys({"SELECT id FROM t WHERE x > 0", "SELECT id FROM t WHERE 0 < x", "SELECT id FROM t WHERE x > 0 ORDER BY id"});
  json v = sys.verify();
  ASSERT_EQ(v.size(), 3u);
  const json& first = v[0]["instances"][0];
  ASSERT_EQ(first["status"], "gold_suspect") << first.dump(1);
  EXPECT_EQ(first["counterexample"]["peers"]["with_prediction"], 2);
  EXPECT_EQ(first["counterexample"]["peers"]["with_gold"], 0);
  EXPECT_NE(first["reason"].get<std::string>().find("other systems"), std::string::npos);
  // The headline counts clean refutations only: verified EX = EX.
  EXPECT_EQ(v[0]["refuted"], 0);
  EXPECT_EQ(v[0]["gold_suspect"], 1);
  EXPECT_EQ(v[0]["verified_ex"], v[0]["ex"]);
  EXPECT_EQ(v[0]["statuses"]["gold_suspect"], 1);
  EXPECT_EQ(v[0]["ids"]["gold_suspect"], json::array({"0"}));
  EXPECT_NE(sys.last_out.find("gold suspect  1 matches (the witness shows the gold's own bug"), std::string::npos) << sys.last_out;
  EXPECT_NE(sys.last_out.find("gold suspect ids 0"), std::string::npos) << sys.last_out;
}

TEST(VerifySuspect, OtherSystemsSidingWithTheGoldKeepItRefuted) {
  Systems sys({"SELECT id FROM t WHERE x > 0", "SELECT id FROM t WHERE NOT x < 0", "SELECT id FROM t WHERE x >= 0"});
  json v = sys.verify();
  const json& first = v[0]["instances"][0];
  ASSERT_EQ(first["status"], "refuted") << first.dump(1);
  EXPECT_EQ(first["counterexample"]["peers"]["with_gold"], 2);
  EXPECT_EQ(v[0]["refuted"], 1);
  EXPECT_EQ(v[0]["verified_ex"], 0);
  EXPECT_EQ(v[1]["instances"][0]["status"], "no_counterexample");
}

TEST(VerifySuspect, TwoOfThreeOthersWithTheGoldAgainstThemIsNotEnough) {
  // Spider dev 465 and 890: two other systems share the prediction's mistake, one sides with the gold.
  Systems sys({"SELECT id FROM t WHERE x > 0", "SELECT id FROM t WHERE 0 < x", "SELECT id FROM t WHERE x > 0 ORDER BY id",
               "SELECT id FROM t WHERE NOT x < 0"});
  const json first = sys.verify()[0]["instances"][0];
  ASSERT_EQ(first["status"], "refuted") << first.dump(1);
  EXPECT_EQ(first["counterexample"]["peers"]["with_prediction"], 2);
  EXPECT_EQ(first["counterexample"]["peers"]["with_gold"], 1);
}

TEST(VerifySuspect, ThreeOthersWithThePredictionAndOneWithTheGoldStaysRefuted) {
  // Spider dev 562 (labelled fair): three other systems share the prediction's mistake, one sides with
  // the gold — a vote that one system contradicts is not a finding against the gold.
  Systems sys({"SELECT id FROM t WHERE x > 0", "SELECT id FROM t WHERE 0 < x", "SELECT id FROM t WHERE x > 0 ORDER BY id",
               "SELECT id FROM t WHERE x >= 1", "SELECT id FROM t WHERE NOT x < 0"});
  const json first = sys.verify()[0]["instances"][0];
  ASSERT_EQ(first["status"], "refuted") << first.dump(1);
  EXPECT_EQ(first["counterexample"]["peers"]["with_prediction"], 3);
  EXPECT_EQ(first["counterexample"]["peers"]["with_gold"], 1);
}

// The tie-cut rule (Spider dev 67, 156, 763): the gold's ORDER BY ... LIMIT 1 keeps an arbitrary one of
// the rows tied at the maximum; a prediction that returns every one of them is not the one at fault.
TEST(VerifySuspect, AGoldLimitCuttingThroughTiedRowsIsGoldSuspect) {
  Systems sys({});
  const std::string db = (sys.dir / "db/t/t.sqlite").string();
  const std::string limit1 = "SELECT id FROM t ORDER BY x DESC LIMIT 1", every = "SELECT id FROM t WHERE x = (SELECT max(x) FROM t)";
  verify::SearchOutcome o = verify::verify(singer_item(db, limit1, every), search_budget());
  ASSERT_EQ(o.status, Status::GoldSuspect) << o.reason;
  ASSERT_TRUE(o.cex);
  EXPECT_NE(o.cex->gold_suspect.find("the gold's LIMIT 1 keeps 1 of the"), std::string::npos) << o.cex->gold_suspect;
  EXPECT_NE(o.cex->gold_suspect.find("rows tied on its sort keys"), std::string::npos) << o.cex->gold_suspect;
  // Reversed: the gold returns every tied row, the prediction one of them — the prediction is wrong.
  verify::SearchOutcome rev = verify::verify(singer_item(db, every, limit1), search_budget());
  EXPECT_EQ(rev.status, Status::Refuted) << rev.reason;
}

// Spider dev 720 (labelled gold-wrong): the gold answers "the shortest life expectancy in Asia" with
// `ORDER BY LifeExpectancy LIMIT 1`, which SQLite ranks NULL first — a country with no life expectancy,
// NULLs being ordinary in the data. The prediction's `= (SELECT min(...))` ranks only the countries
// that have one: the witness shows the gold's bug. A prediction wrong elsewhere (the longest) stays
// refuted.
TEST(VerifySuspect, AGoldAscendingLimitThatRanksNullFirstIsGoldSuspect) {
  TempDir dir;
  const std::string db = (dir / "world.sqlite").string();
  make_sqlite(db, "CREATE TABLE country(Code TEXT PRIMARY KEY, Name TEXT NOT NULL, Continent TEXT NOT NULL, LifeExpectancy REAL);"
                  "INSERT INTO country VALUES ('AFG','Afghanistan','Asia',45.9),('CHN','China','Asia',71.4),"
                  "('IOT','British Indian Ocean Territory','Africa',NULL),('JPN','Japan','Asia',80.7),"
                  "('FRA','France','Europe',78.8),('ATA','Antarctica','Antarctica',NULL),('IND','India','Asia',62.5);");
  const std::string gold = "SELECT Name FROM country WHERE Continent = 'Asia' ORDER BY LifeExpectancy LIMIT 1";
  const std::string by_min = "SELECT Name FROM country WHERE LifeExpectancy = (SELECT min(LifeExpectancy) FROM country "
                             "WHERE Continent = 'Asia') AND Continent = 'Asia'";
  verify::SearchOutcome o = verify::verify(search_item(db, gold, by_min, true), search_budget());
  ASSERT_EQ(o.status, Status::GoldSuspect) << o.reason;
  EXPECT_NE(o.cex->gold_suspect.find("ranks NULL first"), std::string::npos) << o.cex->gold_suspect;
  verify::SearchOutcome longest = verify::verify(
      search_item(db, gold, "SELECT Name FROM country WHERE Continent = 'Asia' ORDER BY LifeExpectancy DESC LIMIT 1", true),
      search_budget());
  EXPECT_EQ(longest.status, Status::Refuted) << longest.reason;
  // The rewrite: NULLS LAST on the ascending keys only, and the flag of a NULL key.
  const auto nl = nulls_last("SELECT a FROM t ORDER BY b ASC, c DESC, f(d, e) LIMIT 2");
  ASSERT_TRUE(nl);
  EXPECT_EQ(nl->sql, "SELECT a FROM t ORDER BY b ASC NULLS LAST, c DESC, f(d, e) NULLS LAST LIMIT 2");
  EXPECT_EQ(nl->flagged, "SELECT a , ((b) IS NULL OR (f(d, e)) IS NULL) FROM t ORDER BY b ASC NULLS LAST, c DESC, f(d, e) NULLS LAST");
  EXPECT_EQ(nl->limit, 2u);
  EXPECT_FALSE(nulls_last("SELECT a FROM t ORDER BY b DESC LIMIT 1"));
}

TEST(VerifySuspect, APredictionsOwnTextLiteralIsJudgedByTheGoldAlone) {
  // Spider dev 521: every system writes the question's 'engineering', the gold the data's 'engineer'.
  Systems sys({"SELECT count(*) FROM t WHERE dept = 'engineering'", "SELECT count(id) FROM t WHERE dept = 'engineering'",
               "SELECT count(*) FROM t WHERE 'engineering' = dept"},
              "SELECT count(*) FROM t WHERE dept = 'engineer'");
  const json first = sys.verify()[0]["instances"][0];
  ASSERT_EQ(first["status"], "refuted") << first.dump(1);
  EXPECT_EQ(first["counterexample"]["peers"]["with_prediction"], 2);
  EXPECT_NE(first["counterexample"]["peers"]["not_applied"].get<std::string>().find("engineering"), std::string::npos);
}

TEST(VerifySuspect, RecordDiffAndReportCountEveryClassByName) {
  Systems sys({"SELECT id FROM t WHERE x > 0", "SELECT id FROM t WHERE 0 < x", "SELECT id FROM t WHERE x > 0 ORDER BY id"});
  TempDir out;
  auto args = std::vector<std::string>{"spider", "--gold", sys.gold, "--db", sys.db, "--etype", "exec", "--verify",
                                       "--verify-candidates", "120", "--no-progress", "--json-dir", out.str()};
  for (const auto& p : sys.preds) args.insert(args.end(), {"--pred", p});
  auto r = run_cli(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  std::vector<fs::path> recs;
  for (const auto& e : fs::directory_iterator(out.path))
    if (e.path().extension() == ".json") recs.push_back(e.path());
  std::sort(recs.begin(), recs.end());
  ASSERT_GE(recs.size(), 2u);
  json rec = json::parse(slurp(recs[0]));
  const json& in = rec["instances"][0];
  EXPECT_EQ(in["detail"]["verify"]["status"], "gold_suspect");
  EXPECT_EQ(in["scores"]["verified_ex"], 1);  // only a clean refutation costs the match
  const json& s = rec["summary"]["verify"];
  EXPECT_EQ(s["refuted"], 0);
  EXPECT_EQ(s["gold_suspect"], 1);
  EXPECT_EQ(s["statuses"]["gold_suspect"], 1);
  EXPECT_EQ(s["ids"]["gold_suspect"], json::array({"0"}));
  EXPECT_EQ(s["verified_ex"], 1);
  // diff: every class with its count per run.
  auto d = run_cli({"diff", recs[0].string(), recs[1].string(), "--json-out", (out / "d.json").string()});
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_NE(d.out.find("Verification (matches per status"), std::string::npos) << d.out;
  json dj = json::parse(slurp(out / "d.json"));
  EXPECT_EQ(dj["verify_classes"]["gold_suspect"]["a"], 1);
  // report: the classes in each run's details, one filter per class.
  auto h = run_cli({"report", recs[0].string(), recs[1].string(), "-o", (out / "r.html").string()});
  ASSERT_EQ(h.rc, 0) << h.err;
  EXPECT_NE(slurp(out / "r.html").find("\"verify_summary\""), std::string::npos);
}

TEST(VerifySuspect, AuditListsGoldSuspectQuestions) {
  Systems sys({"SELECT id FROM t WHERE x > 0", "SELECT id FROM t WHERE 0 < x", "SELECT id FROM t WHERE x > 0 ORDER BY id"});
  std::vector<std::string> args{"audit", "--benchmark", "spider", "--gold", sys.gold, "--db", sys.db, "--verify",
                                "--verify-candidates", "120", "--json", (sys.dir / "a.json").string()};
  for (const auto& p : sys.preds) args.insert(args.end(), {"--pred", p});
  auto r = run_cli(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("gold suspect  1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[gold_suspect] 0"), std::string::npos) << r.out;
  json a = json::parse(slurp(sys.dir / "a.json"));
  ASSERT_EQ(a["findings"].size(), 1u);
  EXPECT_EQ(a["findings"][0]["kind"], "gold_suspect");
  auto no_pred = run_cli({"audit", "--benchmark", "spider", "--gold", sys.gold, "--db", sys.db, "--verify"});
  EXPECT_EQ(no_pred.rc, 2);
  EXPECT_NE(no_pred.err.find("--verify"), std::string::npos) << no_pred.err;
}

TEST(VerifyHonest, AuditComparesFloatsWithAStatedTolerance) {
  TempDir d;
  // avg() over 0.1, 0.2, 0.3 read forwards or backwards: 0.20000000000000004 vs 0.19999999999999998.
  make_sqlite(d / "db/f/f.sqlite", "CREATE TABLE t(id INTEGER PRIMARY KEY, x REAL);"
                                   "INSERT INTO t(x) VALUES (0.1),(0.2),(0.3);");
  spit(d / "gold.sql", "SELECT avg(x) FROM t\tf\nSELECT sum(x) FROM t\tf\nSELECT x FROM t LIMIT 1\tf\n");
  auto r = run_cli({"audit", "--benchmark", "spider", "--gold", (d / "gold.sql").string(), "--db", (d / "db").string(),
                    "--json", (d / "a.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("reals compared to 12 significant digits"), std::string::npos) << r.out;
  json a = json::parse(slurp(d / "a.json"));
  EXPECT_EQ(a["float_digits"], 12);
  std::vector<std::string> flagged;
  for (const auto& f : a["findings"]) flagged.push_back(f["id"].get<std::string>() + ":" + f["kind"].get<std::string>());
  // avg and sum: last-bit noise, not flagged; the first row of an unordered LIMIT: a real difference.
  EXPECT_EQ(flagged, std::vector<std::string>({"2:nondeterministic"}));
}

TEST(VerifyHonest, SearchTimeIsCpuAndWallLabelled) {
  SpiderFiles f;
  auto r = run_cli({"verify", "spider", "--gold", f.gold, "--pred", f.pred, "--db", f.db, "--verify-candidates", "60",
                    "--no-progress", "--json", (f.dir / "v.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("  search time   "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" s CPU ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" s wall ("), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" s search ("), std::string::npos) << r.out;  // the old, unlabelled sum
  json v = json::parse(slurp(f.dir / "v.json"));
  EXPECT_GT(v[0]["cpu_seconds"].get<double>(), 0.0);
  EXPECT_GT(v[0]["wall_seconds"].get<double>(), 0.0);
  EXPECT_TRUE(v[0].contains("instance_seconds"));
  EXPECT_FALSE(v[0].contains("search_seconds"));
  EXPECT_GE(v[0]["threads"].get<int>(), 1);
}

TEST(VerifyHonest, MutationsDescribeTheWitnessAfterShrinking) {
  Schema s;
  s.tables.resize(1);
  s.tables[0].name = "item";
  Candidate c;
  c.rows = {{{}, {}, {}}};
  c.src = {{"original row 1", "original row 2; price := 7 (boundary of a comparison of gold)",
            "original row where price > 1; duplicated with fresh key values; price := 7 (boundary of a comparison of gold)"}};
  c.mutations = {"boundary 7 in item.price (every row)", "empty shop"};
  EXPECT_EQ(witness_mutations(s, c), std::vector<std::string>({"item: price := 7 (boundary of a comparison of gold) (2 rows)",
                                                                "item: a duplicated row (fresh key values)"}));
  Candidate plain = c;
  plain.src = {{"original row 1", "original row 4", "original row where price > 1"}};
  EXPECT_TRUE(witness_mutations(s, plain).empty());  // every row left is an original row
  // End to end: every change the sidecar lists is carried by a row of the witness.
  SpiderFiles f;
  TempDir out;
  auto r = run_cli({"verify", "spider", "--gold", f.gold, "--pred", f.pred, "--db", f.db, "--verify-candidates", "150",
                    "--no-progress", "--json", (out / "v.json").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  const json cex = json::parse(slurp(out / "v.json"))[0]["instances"][0]["counterexample"];
  ASSERT_TRUE(cex.contains("candidate_mutations"));
  for (const auto& m : cex["mutations"]) {
    const std::string line = m.get<std::string>();
    const std::string change = line.substr(line.find(": ") + 2, line.find(" (") - line.find(": ") - 2);
    bool carried = false;
    for (const auto& row : cex["rows"]) carried |= row["source"].get<std::string>().find(change) != std::string::npos;
    EXPECT_TRUE(carried || change.rfind("a ", 0) == 0) << line;
  }
}

TEST(VerifyHonest, NoExactMatchWarningWhenExactMatchIsNotScored) {
  SpiderFiles f;
  spit(f.pred, "SELECT name FROM item WHERE name IS NULL\nSELECT count(id) FROM item\n"
               "SELECT name FROM item ORDER BY price DESC LIMIT 1\nSELECT 1\n");
  auto exec = run_cli(f.spider_args());
  ASSERT_EQ(exec.rc, 0) << exec.err;
  EXPECT_EQ(exec.err.find("do not parse with the Spider grammar"), std::string::npos) << exec.err;
  spit(f.dir / "tables.json", kShopTablesJson);
  auto args = f.spider_args();
  args.back() = "all";  // --etype all: exact match is scored, the warning stands
  args.insert(args.end(), {"--table", (f.dir / "tables.json").string()});
  auto all = run_cli(args);
  ASSERT_EQ(all.rc, 0) << all.err;
  EXPECT_NE((all.err + all.out).find("do not parse with the Spider grammar"), std::string::npos) << all.err;
}

TEST(VerifySuspect, TheRecordSummaryCountsEveryStatusByNameTieIncluded) {
  // summary.verify is rebuilt from detail.verify by name: a class the search adds later (tie) is
  // counted and listed without more code; only "refuted" is a clean refutation.
  runs::RunRecord rec;
  const std::vector<std::pair<std::string, double>> cases = {
      {"refuted", 0}, {"gold_suspect", 1}, {"edge", 1}, {"tie", 1}, {"tie", 1}, {"no_counterexample", 1}, {"skipped", 1}};
  for (size_t i = 0; i < cases.size(); ++i) {
    runs::Instance in;
    in.id = std::to_string(i);
    in.scores = {{"exec", 1.0}, {runs::kVerifiedMetric, cases[i].second}};
    in.detail = json{{"verify", {{"status", cases[i].first}, {"candidates", 10}, {"cpu_seconds", 0.5}}}};
    rec.instances.push_back(std::move(in));
  }
  const json s = runs::verify_summary(rec);
  EXPECT_EQ(s["refuted"], 1);
  EXPECT_EQ(s["gold_suspect"], 1);
  EXPECT_EQ(s["edge"], 1);
  EXPECT_EQ(s["tie"], 2);
  EXPECT_EQ(s["no_counterexample"], 1);
  EXPECT_EQ(s["not_searched"], 1);
  EXPECT_EQ(s["statuses"]["tie"], 2);
  EXPECT_EQ(s["ids"]["tie"], json::array({"3", "4"}));
  EXPECT_EQ(s["refuted_ids"], json::array({"0"}));
  EXPECT_EQ(s["verified_ex"], 6);
  EXPECT_DOUBLE_EQ(s["cpu_seconds"].get<double>(), 3.5);
}

TEST(VerifySuspect, BirdPeersAreTheOtherSystemsPredictionsForTheSameQuestion) {
  // BIRD ids come from the difficulty file; the other systems' predictions are matched by that id.
  TempDir t;
  make_sqlite(t / "db/d1/d1.sqlite", "CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER NOT NULL);"
                                     "INSERT INTO t VALUES (1,3),(2,5),(3,8);");
  spit(t / "gold.sql", "SELECT count(*) FROM t\td1\nSELECT id FROM t WHERE x >= 0\td1\n");
  spit(t / "q.jsonl", "{\"question_id\": 41, \"db_id\": \"d1\", \"difficulty\": \"simple\"}\n"
                      "{\"question_id\": 42, \"db_id\": \"d1\", \"difficulty\": \"simple\"}\n");
  const std::string sep = "\\t----- bird -----\\t";
  std::vector<std::string> args{"verify", "bird", "--gold", (t / "gold.sql").string(), "--db", (t / "db").string(),
                                "--diff_json_path", (t / "q.jsonl").string(), "--no-progress", "--verify-candidates", "120",
                                "--json", (t / "v.json").string()};
  const std::vector<std::string> second = {"SELECT id FROM t WHERE x > 0", "SELECT id FROM t WHERE 0 < x",
                                           "SELECT id FROM t WHERE x > 0 ORDER BY id"};
  for (size_t k = 0; k < second.size(); ++k) {
    const fs::path p = t / ("p" + std::to_string(k) + ".json");
    spit(p, "{\"0\": \"SELECT count(*) FROM t" + sep + "d1\", \"1\": \"" + second[k] + sep + "d1\"}");
    args.insert(args.end(), {"--pred", p.string()});
  }
  auto r = run_cli(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json v = json::parse(slurp(t / "v.json"));
  ASSERT_EQ(v.size(), 3u);
  const json& inst = v[0]["instances"][1];
  EXPECT_EQ(inst["id"], "42");
  ASSERT_EQ(inst["status"], "gold_suspect") << inst.dump(1);
  EXPECT_EQ(inst["counterexample"]["peers"]["with_prediction"], 2);
  EXPECT_EQ(v[0]["verified_ex"], 2);
}
