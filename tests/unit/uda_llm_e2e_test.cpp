// LLM judge end to end: `sqlgrade uda run --judge llm` on the real Player dataset with imperfect
// predictions (the committed example results plus three paraphrased values the rules cannot decide),
// against the scripted server on loopback. Checks: calls = distinct undecided questions; a second
// run makes zero calls and gives the same scores; "yes" answers restore exactly the scores of the
// unparaphrased results; a failing or stalled server degrades to recorded "no answer" verdicts
// (= the rules judge's scores) without hanging; configuration errors exit 2.
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>

#include "sqlgrade/core/text.hpp"
#include "test_support.hpp"
#include "tools/fake_llm_server.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

const char* kSelect = "Select/select_queries_player/2";
const char* kJoin = "Join/join_queries/1";
const char* kAgg = "Agg/agg_queries/1";

// Copies the example results (result.csv files only) into dir/Player.
void copy_example(const fs::path& dir) {
  fs::path src = fs::path(SQLGRADE_SOURCE_DIR) / "examples/uda-player/results/Player";
  for (auto& e : fs::recursive_directory_iterator(src))
    if (e.path().filename() == "result.csv") {
      fs::path to = dir / "Player" / fs::relative(e.path(), src);
      fs::create_directories(to.parent_path());
      fs::copy_file(e.path(), to);
    }
}

// Rewrites one result.csv: every `from` becomes `to` (exact substring, counted).
size_t paraphrase(const fs::path& dir, const std::string& query, const std::string& from, const std::string& to) {
  fs::path f = dir / "Player" / query / "result.csv";
  std::string s = slurp(f);
  size_t n = 0;
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size(), ++n) s.replace(p, from.size(), to);
  spit(f, s);
  return n;
}

// The three paraphrases the rules cannot decide: 8 Lakers team cells (1 distinct cell question),
// 10 Los Angeles location cells (1 distinct), one aggregation group key (1 group-key question).
void make_imperfect(const fs::path& dir) {
  copy_example(dir);
  ASSERT_EQ(paraphrase(dir, kSelect, ",Los Angeles Lakers,", ",LA Lakers,"), 8u);
  ASSERT_EQ(paraphrase(dir, kJoin, ",Los Angeles,", ",L.A.,"), 10u);
  ASSERT_EQ(paraphrase(dir, kAgg, "frontcourt,", "front-court,"), 1u);
}

json acc(const fs::path& dir, const std::string& query) {
  return json::parse(slurp(dir / "Player" / query / "acc_result" / "acc.json"));
}

std::map<std::string, double> f1s(const fs::path& dir) {
  std::map<std::string, double> out;
  for (const char* q : {kSelect, kJoin, kAgg, "Filter/filter_queries_player/3"}) out[q] = acc(dir, q)["macro_f1"];
  return out;
}

std::vector<std::string> run_args(const std::string& data, const fs::path& results) {
  return {"uda", "run", "--dataset-dir", data + "/uda-bench/Query/Player", "--results", results.string(), "-j", "2"};
}

std::vector<std::string> llm_args(const FakeLlmServer& s, const fs::path& cache) {
  return {"--judge", "llm", "--llm-base-url", s.base_url(), "--llm-model", "fake-judge", "--llm-cache", cache.string()};
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST(UdaLlmE2e, PlayerRunCallsOncePerDistinctQuestionAndReRunsForFree) {
  SQLGRADE_REQUIRE_DATA("uda-bench/Query/Player");
  REQUIRE_CURL();
  TempDir t;
  // Reference scores: the example results as committed (rules judge, nothing to ask).
  fs::path base = t / "base";
  copy_example(base);
  auto b = run_cli(run_args(DATA, base));
  ASSERT_EQ(b.rc, 0) << b.err;
  auto want = f1s(base);
  // The paraphrased copy under the rules judge loses exactly on the three paraphrased queries.
  fs::path rules = t / "rules";
  make_imperfect(rules);
  auto r = run_cli(run_args(DATA, rules) + std::vector<std::string>{"--judge-log", (t / "rules.jsonl").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto rules_f1 = f1s(rules);
  for (const char* q : {kSelect, kJoin, kAgg}) EXPECT_LT(rules_f1[q], want[q]) << q;
  size_t rules_logged = split(slurp(t / "rules.jsonl"), "\n").size() - 1;
  EXPECT_EQ(rules_logged, 18u);  // 8 + 10 cells; group keys are not put to the rules judge

  // LLM judge: a server that says yes to everything.
  FakeLlmServer srv;
  fs::path llm = t / "llm";
  make_imperfect(llm);
  fs::path cache = t / "judge-cache.sqlite";
  fs::path log = t / "judge.jsonl";
  auto l = run_cli(run_args(DATA, llm) + llm_args(srv, cache) + std::vector<std::string>{"--judge-log", log.string()});
  ASSERT_EQ(l.rc, 0) << l.err << l.out;
  auto st = server_stats(srv);
  EXPECT_EQ(st["chat_requests"], 3) << st.dump();  // = distinct undecided questions
  EXPECT_EQ(st["distinct_prompts"], 3);
  EXPECT_NE(l.out.find("19 questions, 3 calls"), std::string::npos) << l.out;
  auto got = f1s(llm);
  for (auto& [q, f] : want) EXPECT_DOUBLE_EQ(got[q], f) << q;  // yes = the unparaphrased scores
  json sel = acc(llm, kSelect)["judge"];
  EXPECT_EQ(sel["name"], "llm");
  EXPECT_EQ(sel["model"], "fake-judge");
  EXPECT_EQ(sel["questions"], 8);
  EXPECT_EQ(sel["calls"], 1);
  EXPECT_EQ(sel["deduplicated"], 7);
  EXPECT_EQ(sel["failures"], 0);
  json agg = acc(llm, kAgg)["judge"];
  EXPECT_EQ(agg["questions"], 1);
  EXPECT_EQ(agg["calls"], 1);
  // The audit log has every judged question, labelled with its query.
  std::set<std::string> distinct;
  size_t lines = 0;
  for (auto& line : split(slurp(log), "\n")) {
    if (line.empty()) continue;
    auto j = json::parse(line);
    ++lines;
    EXPECT_EQ(j["verdict"], "yes");
    distinct.insert(j["kind"].get<std::string>() + "|" + j["column"].get<std::string>() + "|" + j["pred"].dump() + "|" +
                    j["gold"].dump());
    if (j["kind"] == "group_key") {
      EXPECT_EQ(j["query"], "Player/Agg/agg_queries/1");
      EXPECT_EQ(j["pred"], json::array({"front-court"}));
      EXPECT_EQ(j["gold"], json::array({"Frontcourt"}));  // gold spelling; the example lower-cased it
    }
  }
  EXPECT_EQ(lines, 19u);
  EXPECT_EQ(distinct.size(), 3u);

  // Second run over the same results: everything from the cache, zero calls, same scores.
  auto l2 = run_cli(run_args(DATA, llm) + llm_args(srv, cache));
  ASSERT_EQ(l2.rc, 0) << l2.err;
  EXPECT_EQ(server_stats(srv)["chat_requests"], 3) << "the second run called the server";
  EXPECT_NE(l2.out.find("19 questions, 0 calls"), std::string::npos) << l2.out;
  EXPECT_NE(l2.out.find("3 cache hits"), std::string::npos) << l2.out;
  EXPECT_EQ(acc(llm, kSelect)["judge"]["cache_hits"], 1);
  EXPECT_EQ(acc(llm, kSelect)["judge"]["calls"], 0);
  auto got2 = f1s(llm);
  for (auto& [q, f] : want) EXPECT_DOUBLE_EQ(got2[q], f) << q;
}

TEST(UdaLlmE2e, FailingOrStalledServerGivesNoAnswerVerdictsWithoutHanging) {
  SQLGRADE_REQUIRE_DATA("uda-bench/Query/Player");
  REQUIRE_CURL();
  TempDir t;
  fs::path rules = t / "rules";
  make_imperfect(rules);
  ASSERT_EQ(run_cli(run_args(DATA, rules)).rc, 0);
  auto rules_f1 = f1s(rules);
  {
    TempDir s;
    spit(s / "script.json", R"JS([{"contains": "", "status": 500}])JS");
    FakeLlmServer failing({"--script", (s / "script.json").string()});
    fs::path dir = t / "failing";
    make_imperfect(dir);
    auto r = run_cli(run_args(DATA, dir) + llm_args(failing, t / "c1.sqlite") +
                     std::vector<std::string>{"--llm-retries", "1", "--judge-log", (t / "f.jsonl").string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("19 without answer"), std::string::npos) << r.out;
    auto got = f1s(dir);
    for (auto& [q, f] : rules_f1) EXPECT_DOUBLE_EQ(got[q], f) << q;  // no answer = no match
    EXPECT_EQ(acc(dir, kSelect)["judge"]["failures"], 8);
    auto first = json::parse(split(slurp(t / "f.jsonl"), "\n")[0]);
    EXPECT_TRUE(first["verdict"].is_null());
    EXPECT_NE(first["raw"].get<std::string>().find("no answer"), std::string::npos);
  }
  {
    FakeLlmServer stalled({"--delay-ms", "60000"});
    fs::path dir = t / "stalled";
    make_imperfect(dir);
    auto t0 = std::chrono::steady_clock::now();
    auto r = run_cli(run_args(DATA, dir) + llm_args(stalled, t / "c2.sqlite") +
                     std::vector<std::string>{"--llm-timeout", "0.3", "--llm-retries", "0"});
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_LT(took, 20.0);
    EXPECT_NE(r.out.find("19 without answer"), std::string::npos) << r.out;
    auto got = f1s(dir);
    for (auto& [q, f] : rules_f1) EXPECT_DOUBLE_EQ(got[q], f) << q;
  }
}

TEST(UdaLlmE2e, ConfigurationErrorsExit2) {
  SQLGRADE_REQUIRE_DATA("uda-bench/Query/Player");
  TempDir t;
  copy_example(t / "r");
  ::unsetenv("SQLGRADE_LLM_BASE_URL");
  ::unsetenv("SQLGRADE_LLM_MODEL");
  auto r = run_cli(run_args(DATA, t / "r") + std::vector<std::string>{"--judge", "llm", "--llm-model", "m", "--llm-cache", "none"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--llm-base-url"), std::string::npos) << r.err;
  r = run_cli(run_args(DATA, t / "r") + std::vector<std::string>{"--llm-provider", "openai", "--llm-base-url",
                                                                  "http://127.0.0.1:9/v1", "--llm-cache", "none"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--llm-model"), std::string::npos) << r.err;
  r = run_cli(run_args(DATA, t / "r") + std::vector<std::string>{"--judge", "gpt"});
  EXPECT_NE(r.rc, 0);
  spit(t / "bad-cache", std::string(5000, 'z'));
  r = run_cli(run_args(DATA, t / "r") + std::vector<std::string>{"--judge", "llm", "--llm-model", "m", "--llm-base-url",
                                                                  "http://127.0.0.1:9/v1", "--llm-cache",
                                                                  (t / "bad-cache").string()});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("bad-cache"), std::string::npos) << r.err;
}

TEST(UdaLlmE2e, EvalOneQueryWithEndpointAndModelFromTheEnvironment) {
  SQLGRADE_REQUIRE_DATA("uda-bench/Query/Player");
  REQUIRE_CURL();
  TempDir t;
  make_imperfect(t / "r");
  TempDir s;
  spit(s / "script.json", R"JS([{"contains": "Extracted value: LA Lakers", "reply": "no"}])JS");
  FakeLlmServer srv({"--script", (s / "script.json").string(), "--require-key", "k-123"});
  ::setenv("SQLGRADE_LLM_BASE_URL", srv.base_url().c_str(), 1);
  ::setenv("SQLGRADE_LLM_MODEL", "env-model", 1);
  ::setenv("SQLGRADE_LLM_API_KEY", "k-123", 1);
  fs::path q = t / "r" / "Player" / kSelect;
  auto r = run_cli({"uda", "eval", "--dataset-dir", DATA + "/uda-bench/Query/Player", "--sql-file",
                    DATA + "/uda-bench/Query/Player/Select/select_queries_player.sql", "--query-id", "2", "--result-csv",
                    (q / "result.csv").string(), "--output-dir", (t / "out").string(), "--judge", "llm", "--llm-cache",
                    (t / "c.sqlite").string()});
  ::unsetenv("SQLGRADE_LLM_BASE_URL");
  ::unsetenv("SQLGRADE_LLM_MODEL");
  ::unsetenv("SQLGRADE_LLM_API_KEY");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = json::parse(r.out);  // stdout is exactly acc.json; the judge summary goes to stderr
  EXPECT_EQ(j["judge"]["model"], "env-model");
  EXPECT_EQ(j["judge"]["questions"], 8);
  EXPECT_EQ(j["judge"]["calls"], 1);
  EXPECT_EQ(j["judge"]["failures"], 0);
  EXPECT_NE(r.err.find("judge llm (env-model"), std::string::npos) << r.err;
  // The model said "no": the team column scores as under the rules judge (8 cells lost).
  EXPECT_EQ(j, json::parse(slurp(t / "out" / "acc.json")));
  EXPECT_LT(j["columns"]["team"]["precision"].get<double>(), 1.0);
  EXPECT_EQ(j["columns"]["team"]["judged_cells"], 8);
  EXPECT_EQ(server_stats(srv)["by_status"]["200"], 1);  // the key from the environment was accepted
}
