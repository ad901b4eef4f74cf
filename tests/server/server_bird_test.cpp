// BIRD Mini-Dev in PostgreSQL and MySQL against the official scripts' outputs
// (expected/bird_minidev_dialects/: evaluation_ex.py, evaluation_f1.py, evaluation_ves.py of
// bird-bench/mini_dev @4d970a9 on the same dumps): the 3 shared models × EX and Soft-F1 in both dialects.
//
// What is compared, and why (docs/bird.md, "PostgreSQL and MySQL"):
//  - EX (both dialects) and PostgreSQL Soft-F1: stdout and the output log byte for byte; every
//    question's score equal to the official per_instance.json; every official failure's message ours.
//  - MySQL Soft-F1: MariaDB breaks ties under ORDER BY ... LIMIT differently on each new connection, so
//    the official script itself printed several totals over reruns (repeat_runs.json). What is fixed is
//    the rule: every question scores as in per_instance.json except the ones whose gold or prediction
//    returns different rows on different connections (checked here, over fresh connections); the table
//    differs from the recorded one in its score line only, which is one the official script printed in
//    its reruns or, when our connections broke a tie another way, the recorded line's neighbour by the
//    changed questions alone (the per-question check holds the rest).
//  - R-VES: timing-based (the official reruns differ); the rule: a question scores 0 exactly when it is
//    not EX-correct in the official EX run, else 100·√reward of its measured ratio, and the table's
//    shape is the official one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "sqlgrade/bird.hpp"
#include "sqlgrade/bird/compare.hpp"
#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/engine/server_sql.hpp"
#include "sqlgrade/py/equality.hpp"
#include "server_test_util.hpp"

namespace sqlgrade {
namespace {

using testing::TestServer;
using json = nlohmann::json;

std::string read_all(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string data_root() {
  const char* env = std::getenv("SQLGRADE_DATA");
  return env && *env ? env : SQLGRADE_DEFAULT_DATA;
}

struct Case {
  std::string model;  // file stem part: gpt-35-turbo_mysql, ...
};

const char* kModels[] = {"gpt-35-turbo", "gpt-4", "meta-llama-3-70b-instruct-2"};

std::string pred_file(const std::string& model, bool pg) {
  const std::string suffix = pg ? "postgresql" : model == "meta-llama-3-70b-instruct-2" ? "mysqljson" : "mysql";
  return "predict_mini_dev_" + model + "_" + suffix;
}

bird::Options options(const std::string& dsn, bool pg, const std::string& model, bird::Metric m) {
  const std::string d = data_root();
  bird::Options o;
  o.pred = d + "/preds/bird_minidev/official_baselines_sql_output_kg/" + pred_file(model, pg) + ".json";
  o.gold = d + (pg ? "/bird/minidev/mini_dev_postgresql_gold.sql" : "/bird/minidev/mini_dev_mysql_gold.sql");
  o.diff_json = d + "/expected/bird_minidev_dialects/inputs/minidev.mini_dev_" + (pg ? "postgresql" : "mysql") + ".jsonl";
  o.sql_dialect = pg ? "PostgreSQL" : "MySQL";
  o.dsn = dsn;
  o.metric = m;
  o.jobs = 2;
  o.progress = 0;
  return o;
}

std::string expected_path(const std::string& metric, const std::string& model, bool pg, const std::string& ext) {
  return data_root() + "/expected/bird_minidev_dialects/" + metric + "/official_baselines_sql_output_kg__" +
         pred_file(model, pg) + ext;
}

// The official message of a failure: "UndefinedColumn: column ..." → "column ...". A function the
// database lacks: root is told it does not exist (1305), the read-only login that it may not execute it
// (1370, the privilege is checked first) — the same failure (docs/bird.md).
std::string official_message(const std::string& status) {
  const size_t colon = status.find(": ");
  std::string m = colon == std::string::npos ? status : status.substr(colon + 2);
  const std::string missing = "(1305, 'FUNCTION ";
  if (m.rfind(missing, 0) == 0 && m.size() > missing.size() + 17) {
    const std::string routine = m.substr(missing.size(), m.size() - missing.size() - 17);  // " does not exist')"
    m = "(1370, \"execute command denied to user 'sqlgrade_reader'@'localhost' for routine '" + routine + "'\")";
  }
  return m;
}

// The score line of a printed table, trailing spaces cut.
std::string score_line(const std::string& table) {
  const size_t b = table.find("\nSoft-F1 ") + 1;
  std::string l = table.substr(b, table.find('\n', b) - b);
  while (!l.empty() && l.back() == ' ') l.pop_back();
  return l;
}

// Every score line the official script printed for a file: the recorded one and its reruns'.
std::set<std::string> official_lines(const std::string& model, bool pg) {
  std::set<std::string> out{score_line(read_all(expected_path("f1", model, pg, ".txt")))};
  const json reruns = json::parse(read_all(data_root() + "/expected/bird_minidev_dialects/repeat_runs.json"));
  for (auto& [l, n] : reruns["f1/official_baselines_sql_output_kg__" + pred_file(model, pg)]["distinct_metric_lines"].items())
    out.insert(score_line("\n" + l + "\n"));
  return out;
}

bool several_statements(const std::string& sql) {
  return server_sql::split_postgres(sql).size() > 1;
}

// Questions whose gold or prediction gives different rows on different fresh connections.
std::set<size_t> unstable_questions(const bird::Run& run, const std::string& dsn) {
  std::set<size_t> out;
  const ServerDsn d = parse_server_dsn(dsn);
  Limits lim;
  lim.timeout_s = 30;
  for (const bird::Instance& it : run.items) {
    for (const std::string* sql : {&it.gold_sql, &it.pred_sql}) {
      if (sql->empty()) continue;
      std::vector<Row> first;
      for (int k = 0; k < 6 && !out.count(it.index); ++k) {
        auto db = open_server(d);  // a new connection each time, as the official script
        ExecResult r = db->execute(*sql, lim);
        if (!r.ok()) break;
        if (k == 0) first = r.table.rows;
        else if (r.table.rows.size() != first.size() ||
                 !std::equal(first.begin(), first.end(), r.table.rows.begin(), py::rows_equal))
          out.insert(it.index);
      }
    }
  }
  return out;
}

// MySQL's tie-dependent questions: what this server shows now over fresh connections, the golds the
// data's README lists (1, 88, 244), and gpt-4's prediction for 340, which orders groups by MAX() of an
// outer column (`ORDER BY MAX(u.Reputation) DESC LIMIT 1` in a correlated subquery): every group ties,
// and MariaDB picks the owner by plan and connection (CI saw it EX-correct once, in an R-VES run).
std::set<size_t> mysql_tie_dependent(const bird::Run& run, const std::string& dsn) {
  std::set<size_t> out = unstable_questions(run, dsn);
  out.insert({1, 88, 244, 340});
  return out;
}

void check_per_question(const bird::Run& run, const std::string& per_instance_file, const std::set<size_t>& allowed,
                        size_t& differing) {
  const json pi = json::parse(read_all(per_instance_file));
  ASSERT_EQ(pi["results"].size(), run.items.size());
  differing = 0;
  for (size_t i = 0; i < run.items.size(); ++i) {
    const json& r = pi["results"][i];
    ASSERT_EQ(r["sql_idx"].get<size_t>(), i);
    const bird::Instance& it = run.items[i];
    const double want = r["res"].get<double>();
    if (std::fabs(it.outcome.score - want) > 1e-12) {  // NOLINT
      ++differing;
      EXPECT_TRUE(allowed.count(i)) << "question " << i << ": ours " << it.outcome.score << ", official " << want
                                    << " (status " << it.outcome.status << ": " << it.outcome.detail << ")";
    }
    const std::string status = r["status"].get<std::string>();
    // The official message of a failure is ours, except where the gold failed too (the official script
    // runs the prediction first, and reports its error when both fail; we report the gold's) and for a
    // prediction of several statements (PostgreSQL's simple protocol parses them all before running the
    // first, so a syntax error in a later one is reported first; we run them one by one).
    if (status != "ok" && it.outcome.status.rfind("gold_", 0) != 0 && !several_statements(it.pred_sql)) {
      EXPECT_EQ(it.outcome.detail, official_message(status)) << "question " << i;
    }
  }
}

// The three lines of stdout around the score line, and the log's, byte for byte; the score line itself.
void check_table(const bird::Run& run, const std::string& metric, const std::string& model, bool pg, bool exact) {
  const std::string want = read_all(expected_path(metric, model, pg, ".txt"));
  const std::string want_log = read_all(expected_path(metric, model, pg, ".output_log.txt"));
  ASSERT_FALSE(want.empty());
  if (exact) {
    EXPECT_EQ(bird::render_text(run), want);
    EXPECT_EQ(bird::render_log_block(run), want_log);
    return;
  }
  auto lines = [](const std::string& s) {
    std::vector<std::string> v;
    std::stringstream ss(s);
    for (std::string l; std::getline(ss, l);) v.push_back(l);
    return v;
  };
  auto ours = lines(bird::render_text(run)), theirs = lines(want);
  ASSERT_EQ(ours.size(), theirs.size());
  for (size_t i = 0; i < ours.size(); ++i)
    if (i != 4) {
      EXPECT_EQ(ours[i], theirs[i]) << "line " << i;  // line 4: the scores
    }
}

std::string case_name(bool pg, int model) {
  static const char* const kShort[] = {"gpt35", "gpt4", "llama3"};
  return std::string(pg ? "Postgres_" : "MySql_") + kShort[model];
}

class BirdDialects : public ::testing::TestWithParam<std::tuple<bool, int>> {};

TEST_P(BirdDialects, ExAndSoftF1MatchTheOfficialScripts) {
  const bool pg = std::get<0>(GetParam());
  const std::string model = kModels[std::get<1>(GetParam())];
  SQLGRADE_REQUIRE_SERVER_DB(pg ? TestServer::Kind::PostgreSQL : TestServer::Kind::MariaDB);
  // EX: byte for byte in both dialects. In MySQL the official reruns never differed, but a question
  // whose gold or prediction breaks a tie by plan and connection may on ours (R-VES below, question
  // 340): such a question may differ, and with the official score in its place the table is the
  // official one byte for byte.
  bird::Run ex = bird::evaluate(options(DSN, pg, model, bird::Metric::Ex));
  size_t differing = 0;
  std::set<size_t> ex_allowed;
  const json pi = json::parse(read_all(expected_path("ex", model, pg, ".per_instance.json")));
  ASSERT_EQ(pi["results"].size(), ex.items.size());
  for (size_t i = 0; !pg && i < ex.items.size() && ex_allowed.empty(); ++i)
    if (ex.items[i].outcome.score != pi["results"][i]["res"].get<double>()) ex_allowed = mysql_tie_dependent(ex, DSN);
  check_per_question(ex, expected_path("ex", model, pg, ".per_instance.json"), ex_allowed, differing);
  if (differing == 0) {
    check_table(ex, "ex", model, pg, true);
  } else {
    bird::Run substituted = ex;
    for (size_t i : ex_allowed) substituted.items[i].outcome.score = pi["results"][i]["res"].get<double>();
    check_table(substituted, "ex", model, pg, true);
    RecordProperty("mysql_ex_questions_with_tie_dependent_scores", static_cast<int>(differing));
  }
  // Soft-F1: byte for byte in PostgreSQL; MySQL's ties (above).
  bird::Run f1 = bird::evaluate(options(DSN, pg, model, bird::Metric::SoftF1));
  if (pg) {
    check_table(f1, "f1", model, pg, true);
    check_per_question(f1, expected_path("f1", model, pg, ".per_instance.json"), {}, differing);
    EXPECT_EQ(differing, 0u);
  } else {
    // The golds the data's README lists as returning other rows on other connections, and what this
    // server shows now.
    std::set<size_t> unstable = mysql_tie_dependent(f1, DSN);
    check_table(f1, "f1", model, pg, false);
    check_per_question(f1, expected_path("f1", model, pg, ".per_instance.json"), unstable, differing);
    RecordProperty("mysql_f1_questions_with_tie_dependent_scores", static_cast<int>(differing));
    // The score line: one the official script printed for this file (recorded or in its reruns), or —
    // when our connections broke a tie another way — one that differs from the official per-question
    // scores only through those tie-dependent questions: with the official scores put in their place,
    // our table is the official per-question table to the last printed digit.
    const std::string line = score_line(bird::render_text(f1));
    std::set<std::string> printed = official_lines(model, pg);
    if (!printed.count(line)) {
      const json pf = json::parse(read_all(expected_path("f1", model, pg, ".per_instance.json")));
      bird::Run theirs = f1, substituted = f1;
      for (size_t i = 0; i < f1.items.size(); ++i) {
        theirs.items[i].outcome.score = pf["results"][i]["res"].get<double>();
        if (unstable.count(i)) substituted.items[i].outcome.score = theirs.items[i].outcome.score;
      }
      EXPECT_EQ(score_line(bird::render_text(substituted)), score_line(bird::render_text(theirs)))
          << "our line '" << line << "' differs from the official ones beyond the tie-dependent questions";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Official, BirdDialects,
                         ::testing::Combine(::testing::Bool(), ::testing::Range(0, 3)),
                         [](const auto& info) { return case_name(std::get<0>(info.param), std::get<1>(info.param)); });

// R-VES: the rule, not the timing (the file's header). gpt-4, --repeat 3.
class BirdRves : public ::testing::TestWithParam<bool> {};

TEST_P(BirdRves, ScoresFollowTheOfficialRule) {
  const bool pg = GetParam();
  SQLGRADE_REQUIRE_SERVER_DB(pg ? TestServer::Kind::PostgreSQL : TestServer::Kind::MariaDB);
  bird::Options o = options(DSN, pg, "gpt-4", bird::Metric::RVes);
  o.repeat = 3;
  const bird::Run run = bird::evaluate(o);
  const std::string want = read_all(expected_path("ves", "gpt-4", pg, ".txt"));
  std::string ours = bird::render_text(run);
  auto cut = [](const std::string& t) {  // the table without its score line
    const size_t b = t.find("\nR-VES ") + 1;
    return t.substr(0, b) + t.substr(t.find('\n', b) + 1);
  };
  EXPECT_EQ(cut(ours), cut(want));
  const json ex = json::parse(read_all(expected_path("ex", "gpt-4", pg, ".per_instance.json")));
  // MySQL: a tie-dependent question (mysql_tie_dependent) may be EX-correct on our connections.
  std::set<size_t> tie_dependent;
  if (!pg) tie_dependent = mysql_tie_dependent(run, DSN);
  size_t timed = 0;
  for (size_t i = 0; i < run.items.size(); ++i) {
    const bird::Instance& it = run.items[i];
    if (ex["results"][i]["res"].get<int>() == 0 && tie_dependent.count(i) && it.outcome.match()) {
      EXPECT_DOUBLE_EQ(it.outcome.score, bird::rves_score(bird::rves_reward(it.time_ratio))) << "question " << i;
      continue;
    }
    if (ex["results"][i]["res"].get<int>() == 0) {
      EXPECT_EQ(it.outcome.score, 0) << "question " << i << " is not EX-correct officially";
      continue;
    }
    EXPECT_TRUE(it.outcome.match()) << "question " << i;
    EXPECT_DOUBLE_EQ(it.outcome.score, bird::rves_score(bird::rves_reward(it.time_ratio))) << "question " << i;
    EXPECT_TRUE(it.time_ratio > 0 || it.outcome.score == 0) << "question " << i;
    timed += it.time_ratio > 0;
  }
  EXPECT_GT(timed, 200u);  // gpt-4: 226 EX-correct questions in PostgreSQL, 268 in MySQL
}

INSTANTIATE_TEST_SUITE_P(Official, BirdRves, ::testing::Bool(),
                         [](const auto& info) { return std::string(info.param ? "Postgres" : "MySql"); });

}  // namespace
}  // namespace sqlgrade
