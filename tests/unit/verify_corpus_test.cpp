// The verification corpora (docs/verify.md "Corpora"):
//  * tests/verify/equivalent.jsonl / nonequivalent.jsonl (make_corpus.py, rewrite rules over the real
//    Spider dev and BIRD Mini-Dev schemas): equivalent rewrites are never refuted, nor edges; known
//    non-equivalent pairs are found (refuted or edge) at least at the measured floor;
//  * tests/verify/bird_mutations.jsonl / bird_rewrites.jsonl (make_bird_mutations.py): mutations of
//    the real BIRD Mini-Dev golds, each certified by a witness that this test replays on a copy of the
//    database, re-validates against the schema and re-executes; the verifier must find >= 95 % of them,
//    and never separate an equivalent rewrite of the same golds.
// Every pair must give the same result on the original database under its rule (else it would not be
// an EX match). SQLGRADE_VERIFY_CANDIDATES overrides the per-pair budget (bench/verify.sh runs 200).
#include <gtest/gtest.h>

#include <tuple>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sqlgrade/bird/compare.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/verify/schema.hpp"
#include "sqlgrade/verify/scratch_db.hpp"
#include "sqlgrade/verify/verify.hpp"
#include "sqlgrade/verify/witness.hpp"
#include "safety_corpus.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::verify;
namespace fs = std::filesystem;

namespace {

struct Pair {
  nlohmann::json j;
  Item item;
};

std::vector<Pair> load(const std::string& data, const std::string& name) {
  std::vector<Pair> out;
  std::istringstream in(test::slurp(fs::path(SQLGRADE_SOURCE_DIR) / "tests/verify" / name));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    Pair p{nlohmann::json::parse(line), {}};
    // SQLGRADE_VERIFY_ONLY=a,b: only the pairs whose id contains one of these (for a look at misses).
    if (const char* only = std::getenv("SQLGRADE_VERIFY_ONLY")) {
      bool keep = false;
      for (const auto& part : split(only, ",")) keep = keep || (!part.empty() && std::string(p.j["id"]).find(part) != std::string::npos);
      if (!keep) continue;
    }
    const bool spider = p.j["benchmark"] == "spider";
    const std::string db = p.j["db"];
    p.item.id = p.j["id"];
    p.item.db_path = data + (spider ? "/spider/database/" : "/bird/dev_databases/") + db + "/" + db + ".sqlite";
    p.item.gold_sql = p.j["gold"];
    p.item.pred_sql = p.j["pred"];
    std::string g = p.item.gold_sql;
    for (char& c : g) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // Spider pairs: the test-suite rule with --keep_distinct (the bag rule; DISTINCT kept as written).
    p.item.rule = {spider ? Rule::SpiderTestSuite : Rule::BirdSet, spider && g.find("order by") != std::string::npos,
                   nullptr, false};
    out.push_back(std::move(p));
  }
  return out;
}

// Under AddressSanitizer every query runs several times slower: the time caps are raised there so
// that only the candidate count bounds a search (safety_corpus.hpp kUnderAsan).
constexpr double kSlowdown = sqlgrade::test::kUnderAsan ? 20 : 1;

Budget budget(size_t candidates) {
  Budget b;
  b.candidates = candidates;
  b.seconds = 30 * kSlowdown;
  b.query_timeout_s *= kSlowdown;
  if (const char* e = std::getenv("SQLGRADE_VERIFY_CANDIDATES")) b.candidates = std::stoul(e);
  return b;
}

// Both queries agree on the original database (the pair is an EX match there).
void expect_match_on_original(const Pair& p) {
  SqliteDb db(p.item.db_path);
  Limits lim{30, 1'000'000, 512u << 20};
  ExecResult g = db.execute(p.item.gold_sql, lim), q = db.execute(p.item.pred_sql, lim);
  ASSERT_TRUE(g.ok() && q.ok()) << p.item.id << ": " << g.error << q.error;
  EXPECT_TRUE(same_result(p.item.rule, g.table, q.table)) << p.item.id << " differs on the original database";
}

// The corpus's pairs (each an EX match on its original database) and their outcomes.
std::vector<verify::SearchOutcome> run_all(const std::vector<Pair>& pairs, size_t at_least, size_t candidates = 120) {
  EXPECT_GE(pairs.size(), at_least);
  for (const auto& p : pairs) expect_match_on_original(p);
  const Budget b = budget(candidates);
  std::vector<verify::SearchOutcome> out(pairs.size());
  parallel_for(pairs.size(), resolve_jobs(0), [&](size_t i) { out[i] = verify::verify(pairs[i].item, b); });
  return out;
}

std::string seconds_summary(const std::vector<verify::SearchOutcome>& outs) {
  std::vector<double> s;
  for (const auto& o : outs) s.push_back(o.seconds);
  if (s.empty()) return "";
  std::sort(s.begin(), s.end());
  char buf[120];
  std::snprintf(buf, sizeof buf, "median %.3f s, p95 %.3f s per pair", s[s.size() / 2],
                s[std::min(s.size() - 1, s.size() * 95 / 100)]);
  return buf;
}

void expect_never_separated(const std::vector<Pair>& pairs, const std::vector<verify::SearchOutcome>& outs, const char* what) {
  size_t refuted = 0, edge = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_NE(outs[i].status, Status::Refuted) << pairs[i].item.id << ": " << counterexample_json(pairs[i].item, outs[i]).dump();
    EXPECT_NE(outs[i].status, Status::Edge) << pairs[i].item.id << ": " << counterexample_json(pairs[i].item, outs[i]).dump();
    EXPECT_NE(outs[i].status, Status::GoldSuspect) << pairs[i].item.id << ": " << outs[i].reason;  // a difference too
    EXPECT_NE(outs[i].status, Status::Skipped) << pairs[i].item.id << ": " << outs[i].reason;
    refuted += outs[i].status == Status::Refuted;
    edge += outs[i].status == Status::Edge;
  }
  std::printf("%s: %zu pairs, %zu refuted, %zu edge (false findings); %s\n", what, pairs.size(), refuted, edge,
              seconds_summary(outs).c_str());
}

// Prints clean / edge / gold-suspect per class; returns {clean, suspect, clean + edge + suspect}.
// A gold-suspect finding is found: the two queries differ on its witness, which blames the gold (the
// mutated query is the prediction; a gold's LIMIT that cuts through ties, say).
std::tuple<size_t, size_t, size_t> report_found(const std::vector<Pair>& pairs, const std::vector<verify::SearchOutcome>& outs, const char* what) {
  std::map<std::string, std::array<size_t, 4>> per_class;  // clean, edge, suspect, total
  size_t clean = 0, edge = 0, suspect = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    auto& c = per_class[pairs[i].j["class"]];
    ++c[3];
    if (outs[i].status == Status::Refuted) ++c[0], ++clean;
    else if (outs[i].status == Status::Edge) ++c[1], ++edge;
    else if (outs[i].status == Status::GoldSuspect) ++c[2], ++suspect;
    else std::printf("  not found: %s (%s)\n", pairs[i].item.id.c_str(), outs[i].reason.c_str());
  }
  std::printf("  %-26s %5s %5s %7s %5s\n", "class", "clean", "edge", "suspect", "pairs");
  for (auto& [cls, c] : per_class) std::printf("  %-26s %5zu %5zu %7zu %5zu\n", cls.c_str(), c[0], c[1], c[2], c[3]);
  std::printf("%s: %zu / %zu found (%zu clean refutations + %zu edge + %zu gold-suspect); %s\n", what, clean + edge + suspect,
              pairs.size(), clean, edge, suspect, seconds_summary(outs).c_str());
  return {clean, suspect, clean + edge + suspect};
}

}  // namespace

TEST(VerifyCorpus, EquivalentRewritesAreNeverRefuted) {
  SQLGRADE_REQUIRE_DATA("spider/database");
  auto pairs = load(DATA, "equivalent.jsonl");
  expect_never_separated(pairs, run_all(pairs, 200), "equivalent corpus");
}

TEST(VerifyCorpus, NonEquivalentPairsAreRefutedAboveTheFloor) {
  SQLGRADE_REQUIRE_DATA("spider/database");
  auto pairs = load(DATA, "nonequivalent.jsonl");
  const size_t found = std::get<2>(report_found(pairs, run_all(pairs, 200), "non-equivalent corpus"));
  // Measured 249/249 at 120 candidates per pair (docs/verify.md); the floor leaves room for seeds.
  EXPECT_GE(found * 100, pairs.size() * 95) << "the rate of pairs found fell below the floor of 95%";
}

// The certified witness of a BIRD mutation: replayed on a copy of the database in a temporary folder
// (written through the system's VFS, as fixtures are: a scratch database is capped below the size of
// the real databases; one statement, one row changed), re-validated (SQLite's own constraints on the change; no foreign key
// left dangling, checked by hand since one database declares a key SQLite cannot enforce; every table
// the queries read non-empty), both queries re-executed: they differ under BIRD's rule, not both
// vacuously.
void expect_certified(const Pair& p) {
  test::TempDir tmp;
  const std::string copy = (tmp / "witness.sqlite").string();
  std::filesystem::copy_file(p.item.db_path, copy);
  sqlite3* wh = nullptr;
  ASSERT_EQ(test::open_fixture_db(copy, &wh), SQLITE_OK) << copy;
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> writer(wh, sqlite3_close);
  auto schema = read_schema(p.item.db_path);
  auto run = [&](const std::string& sql, const Limits& lim) {
    SqliteDb db(copy);
    return db.execute(sql, lim);
  };
  auto dangling = [&] {
    size_t n = 0;
    for (const auto& t : schema->tables)
      for (const auto& fk : t.fks) {
        if (fk.parent == SIZE_MAX) continue;
        const auto& pt = schema->tables[fk.parent];
        std::string notnull, cond;
        for (size_t k = 0; k < fk.columns.size(); ++k) {
          const std::string cc = "c.\"" + t.columns[fk.columns[k]].name + "\"";
          notnull += (k ? " AND " : "") + cc + " IS NOT NULL";
          cond += (k ? " AND " : "") + ("p.\"" + pt.columns[fk.parent_columns[k]].name + "\" = ") + cc;
        }
        ExecResult r = run("SELECT count(*) FROM \"" + t.name + "\" AS c WHERE " + notnull +
                                  " AND NOT EXISTS (SELECT 1 FROM \"" + pt.name + "\" AS p WHERE " + cond + ")",
                              Limits{30, 10, 1u << 20});
        if (r.ok()) n += static_cast<size_t>(r.table.rows[0][0].i);
      }
    return n;
  };
  const size_t before = dangling();
  const std::string w = p.j["witness"];
  char* err = nullptr;
  // Foreign keys are checked by hand (dangling() above), not with foreign_keys=ON: european_football_2
  // declares a key on a parent column that is not unique, which SQLite then refuses outright ("foreign
  // key mismatch") whatever the row.
  const int rc = sqlite3_exec(writer.get(), w.c_str(), nullptr, nullptr, &err);
  const std::string why = err ? err : "";
  sqlite3_free(err);
  ASSERT_EQ(rc, SQLITE_OK) << p.item.id << ": the witness is refused by the schema: " << w << " (" << why << ")";
  EXPECT_EQ(sqlite3_changes(writer.get()), 1) << p.item.id << ": " << w;
  writer.reset();
  EXPECT_LE(dangling(), before) << p.item.id << ": the witness leaves a foreign key dangling: " << w;
  const QueryFacts f = query_facts(*schema, p.item.gold_sql, p.item.pred_sql);
  for (size_t t : f.read_tables) {
    ExecResult r = run("SELECT count(*) FROM \"" + schema->tables[t].name + "\"", Limits{30, 10, 1u << 20});
    ASSERT_TRUE(r.ok());
    EXPECT_GT(r.table.rows[0][0].i, 0) << p.item.id << ": " << schema->tables[t].name << " is empty";
  }
  Limits lim{30, 1'000'000, 512u << 20};
  ExecResult g = run(p.item.gold_sql, lim), q = run(p.item.pred_sql, lim);
  ASSERT_TRUE(g.ok() && q.ok()) << p.item.id << ": " << g.error << q.error;
  EXPECT_FALSE(bird::ex_match(q.table, g.table)) << p.item.id << ": the witness does not separate the pair: " << w;
  EXPECT_FALSE(vacuous(g.table) && vacuous(q.table)) << p.item.id << ": both results vacuous on the witness";
}

TEST(VerifyCorpus, BirdMutationsAreCertifiedAndFound) {
  SQLGRADE_REQUIRE_DATA("bird/dev_databases");
  auto pairs = load(DATA, "bird_mutations.jsonl");
  for (const auto& p : pairs) expect_certified(p);
  // 500 candidates per pair (2.5 x the default budget): measured 229 / 238 found (96.2 %; 230 before ties
  // stopped counting as refutations, issue 30 item 1) (docs/verify.md "Corpora").
  const auto [clean, suspect, found] = report_found(pairs, run_all(pairs, 150, 500), "BIRD mutations");
  EXPECT_GE(found * 100, pairs.size() * 95) << "the verifier finds fewer than 95% of the certified mutations";
  // Most findings are clean refutations; an edge says which property of the data its witness breaks
  // (count_col_vs_star: a NULL in a column the data never leaves NULL; join_key_swap: a reference the
  // data always resolves, left dangling); a gold-suspect one blames the gold's LIMIT that cuts through
  // tied rows (dropped_limit: the mutant returns the whole tie group). Floor 74 % of clean or
  // gold-suspect findings (measured 174 + 4 = 178, 74.8 %): it was 78 % of clean ones (189) before
  // ties stopped counting as refutations (issue 30 item 1: bird-79, bird-1255, bird-212), before the
  // tie-cut rule (4 dropped_limit pairs) and before dangling references and inconsistent copies made
  // a witness an edge (docs/verify.md, "Certified mutations").
  EXPECT_GE((clean + suspect) * 100, pairs.size() * 74) << "clean or gold-suspect findings fell below the floor of 74%";
}

TEST(VerifyCorpus, BirdEquivalentRewritesAreNeverRefuted) {
  SQLGRADE_REQUIRE_DATA("bird/dev_databases");
  auto pairs = load(DATA, "bird_rewrites.jsonl");
  expect_never_separated(pairs, run_all(pairs, 100), "BIRD equivalent rewrites");
}
