#pragma once
// sqlgrade::Grader — the verdict of ONE rollout (an RL reward), the entry point that `sqlgrade
// serve`, the Python module sqlgrade._native and any C++ trainer share.
//
//   sqlgrade::Grader v(sqlgrade::GraderConfig{});       // holds the bounded gold cache
//   sqlgrade::VerdictRequest r;
//   r.benchmark = "spider2"; r.db = "/data/shop.sqlite";
//   r.model_output = "```sql\nSELECT ...\n```"; r.gold_sql = "SELECT ...";
//   sqlgrade::Verdict out = v.verdict(r);                  // out.reward, out.failure_reason, ...
//
// Verdicts are each benchmark's official ones, computed by the benchmark modules:
//   spider2 (default)  spider2::score_against_golds on pandas-typed frames (= `sqlgrade spider2`);
//   spider             spider::ExecEvaluator (test-suite execution: every *.sqlite of the folder);
//   bird               bird::ex_match (set equality of rows).
// Gold results are cached (single flight, LRU bounded by entries and bytes) and shared by every
// thread. All methods are thread-safe. Nothing prints. A bad prediction is a verdict (reward 0 with a
// failure_reason), never an exception; a bad *request* throws sqlgrade::InputError (one line).
// Standard library only (with extract.hpp): the JSON form of a request and a reply (docs/serve.md)
// is the library's too, in src/sqlgrade/verdict/request.hpp, for the server and the Python module.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/extract.hpp"
#include "sqlgrade/outcome.hpp"

namespace sqlgrade {

class Benchmark;  // src/sqlgrade/exec/benchmark.hpp: one per benchmark, listed in verdict/registry.hpp

struct GraderConfig {
  double timeout_s = 30.0;         // per prediction query (default of a request without `timeout`)
  double max_timeout_s = 0;        // cap on a request's own `timeout`; 0 = none (the server: --timeout)
  double gold_timeout_s = 0;       // per gold query; 0 = timeout_s
  size_t max_rows = 1'000'000;     // result row cap per query
  size_t max_result_bytes = 64u << 20;
  size_t gold_cache_entries = 4096;
  size_t gold_cache_bytes = 256u << 20;
  ExtractOptions extract;          // default extraction options (a request may override them)
  // SQL's clock for requests that do not give their own `now` (core/clock.hpp: a TIMESTAMP, ISO 8601);
  // "" = the real clock. The server's --now.
  std::string now;
  // Optional official Spider 2.0-Lite gold folder (spider2lite_eval.jsonl + exec_result/*.csv), read
  // with the spider2 module's loader: a spider2 request with neither gold_sql nor gold_result is
  // graded against the official gold CSVs of its instance_id, with the official condition_cols and
  // ignore_order.
  std::string spider2_gold_dir;
  // failure_reason in NeMo Gym's words only (serve --failure-codes gym; the Gym folder's servers):
  // Gym's spider2_lite and bird_sql response models accept none of sqlgrade's own codes
  // (result_mismatch, timeout, refuted, unverified), so a reply carrying one fails Gym's validation.
  // gym_failure_reason() below; the verdict's `stage` keeps the precise answer.
  bool gym_failure_codes = false;
};

// Reward shaping: the training score of each outcome of a verdict (VerdictOutcome). The verdict's
// `reward` stays the benchmark's official 1/0; Verdict::score is this table applied to its outcome.
struct RewardShaping {
  double correct = 1.0;       // the result matches the gold
  double wrong_result = 0.0;  // the prediction ran, its result differs (or `verify` refuted the match)
  double error = 0.0;         // the prediction failed: SQL error, refused statement, timeout, too large
  double no_sql = 0.0;        // nothing extractable in the model output
  double gold_error = 0.0;    // the gold itself failed (a dataset problem)
};

// Which row order a spider2 comparison against a gold_sql keeps when the request leaves ignore_order
// null: the benchmark's (spider2: order ignored), or TopLevel — order matters exactly when that gold
// has ORDER BY at its top level (not inside a subquery, a CTE body or a window's OVER (...)).
enum class OrderRule { Benchmark, TopLevel };
// benchmark | top_level (the /verify `order`).
const char* to_string(OrderRule rule);

struct VerdictRequest {
  std::string benchmark = "spider2";  // spider2 | spider | bird (aliases: spider2_lite, testsuite, ...)
  // The benchmark `benchmark` names, as the JSON road resolved it once (verdicts::parse_request); null:
  // resolved from `benchmark` by the verdict.
  const Benchmark* bench = nullptr;
  // The database: a SQLite file. spider: the file or its folder; every *.sqlite of the folder is a
  // test-suite database (<dir>/<db_id>/<db_id>.sqlite first). bird: also a PostgreSQL or MySQL database
  // as a URI (postgresql://reader@host/bird, mysql://reader@host/BIRD?socket=...) through a login that
  // can only read (docs/bird.md, "PostgreSQL and MySQL"): values compared as psycopg2 / PyMySQL return them.
  std::string db;
  // "" (from `db`), "sqlite", "postgresql" or "mysql" (the request's `dialect`): the reward server picks
  // its --dsn database by it; a `db` of another dialect is refused.
  std::string dialect;
  std::optional<std::string> model_output;  // text to extract the SQL from ...
  std::optional<std::string> sql;           // ... or the SQL itself, used verbatim (no extraction)
  std::optional<std::string> gold_sql;
  // Gold alternatives: further gold queries, tried in order when gold_sql does not match; the first
  // that matches decides (any match counts). With `verify`, a gold decides only when its match
  // survives the search: a match refuted against one gold goes on to the next, so any gold the
  // prediction is equivalent to counts. The verdict reported is the deciding gold's; when every
  // match was refuted, the first refuted gold's; when none matched, gold_sql's (Verdict::gold_index
  // says which). gold_result's alternatives are its outer list.
  std::vector<std::string> gold_sql_alternatives;
  // gold_result as JSON text, [alternative][row][cell] as the /verify field; "" = none. Cells are
  // JSON values read as Python's sqlite3/csv would hold them (verdict/request.hpp: json_to_value).
  std::string gold_result_json;
  std::optional<bool> ignore_order;         // null: the benchmark's rule (spider2: true)
  std::string condition_cols_json;          // spider2, JSON text: "" (null), [i, ...] or [[i, ...], ...]
  std::optional<bool> gold_single_file;     // spider2 + gold_result: grade like <id>.csv
  std::string instance_id;                  // spider2: key into spider2_gold_dir
  std::optional<ExtractOptions> extract;    // null: the config's
  double timeout_s = 0;                     // per prediction query; 0 = the config's
  // SQL's clock for this verdict, gold and prediction alike: date('now'), CURRENT_TIMESTAMP, ... return
  // this instant (a TIMESTAMP, ISO 8601, UTC unless it carries an offset); null = the config's `now`
  // (the server's --now), else the real clock. Gold results are cached per clock.
  std::optional<std::string> now;
  bool plug_value = false, keep_distinct = false;  // spider: the test-suite evaluator's flags
  // RL, optional: after a match, search for a database on which the prediction and gold_sql differ
  // under the benchmark's rule (docs/verify.md, "For RL"). A clean refutation ends the verdict at
  // VerdictStage::Refuted (reward 0); a search cut by its time cap or the request's budget before it
  // found anything is `unverified`, rewarded by `on_unverified`; every other class keeps the match.
  struct VerifyOption {
    double budget_s = 0.2;   // wall-clock cap of the search
    size_t candidates = 50;  // candidate databases (the deterministic bound)
    uint64_t seed = 0;
    // The reward of a match whose search was cut: Match keeps it (1; the reply's verify.status says
    // "unverified"), Zero ends the verdict at VerdictStage::Unverified (reward 0).
    enum class OnUnverified { Match, Zero } on_unverified = OnUnverified::Match;
  };
  std::optional<VerifyOption> verify;  // the request's `verify` (true or {budget, candidates, seed})
  OrderRule order = OrderRule::Benchmark;
  // The scores of the outcomes; null: the defaults (1 for correct, else 0), and the JSON reply then
  // carries no `score` / `outcome` (a reply to a request without shaping is as it always was).
  std::optional<RewardShaping> shaping;
  // The reply carries `reward_components` (docs/serve.md): the verdict's parts as separate rewards for
  // multi-reward training (NeMo Gym's reward_components, GDPO), with the shaping terms and, with
  // `verify`, the verification outcome.
  bool reward_components = false;
};

struct VerdictTimings {
  double extract_s = 0, gold_s = 0, pred_s = 0, compare_s = 0, total_s = 0;
};

// VerdictStage, to_string(VerdictStage) and failure_reason(VerdictStage): sqlgrade/outcome.hpp.
// The failure_reason under an extraction preset (NeMo Gym bird_sql 0.4 / 0.7 words); `filler`: the
// prediction was Gym 0.4's `SELECT 1` (no ```sql block).
const char* gym_bird_failure_reason(ExtractPreset preset, VerdictStage stage, bool filler);
// failure_reason within NeMo Gym's FailureCode of the server the reply stands in for (spider2_lite, and
// bird_sql 0.4 under the sqlgrade or gym-bird-0.4 preset: none, no_sql_extracted, execution_error,
// gold_execution_error, unknown_error; bird_sql 0.7 under gym-bird-0.7: also result_mismatch,
// execution_timeout). A query that ran and differs, failed, was too large or timed out is
// execution_error (0.7: its own codes); a match `verify` refuted or could not verify is unknown_error
// (Gym has no word for it; `stage` says refuted / unverified).
const char* gym_failure_reason(ExtractPreset preset, VerdictStage stage, bool filler);

// The shaping outcome of a verdict: Equal -> Correct, Different, Refuted and Unverified ->
// WrongResult, NoSql -> NoSql, GoldFailed -> GoldError, PredFailed/Timeout/TooLarge -> Error.
enum class VerdictOutcome { Correct, WrongResult, Error, NoSql, GoldError };
// correct | wrong_result | error | no_sql | gold_error (the /verify `outcome`).
const char* to_string(VerdictOutcome outcome);

struct Verdict {
  double reward = 0;               // 1.0 when the prediction matches, else 0.0
  bool execution_match = false;
  std::optional<std::string> extracted_sql;
  std::string extraction_source = "none";  // sql_block, tag, json_answer, raw_text, verbatim, ...
  // failure_reason(stage), set once when the verdict is complete (none | no_sql_extracted |
  // execution_error | gold_execution_error | timeout | result_mismatch | refuted | unverified)
  std::string failure_reason = "execution_error";
  std::string failure_detail;     // the human reason
  VerdictStage stage = VerdictStage::PredFailed;
  VerdictOutcome outcome = VerdictOutcome::Error;
  double score = 0;                // the request's RewardShaping applied to `outcome`
  size_t gold_index = 0;           // which gold decided: 0 = gold_sql, k = gold_sql_alternatives[k - 1]
  bool gold_cached = false;
  std::optional<bool> pred_executed;  // the prediction ran to a result; null: unknown (gold failed first)
  VerdictTimings timings;
  // Set when the request asked for `verify`. status: "refuted" (a clean refutation: stage Refuted,
  // reward 0 although execution_match), "unverified" (the search was cut by its time cap or the
  // request's budget before it found anything; time_capped is true), "no_counterexample", "skipped"
  // (not a match, no gold_sql, ...; reason says why), or another class of the search's
  // (gold_suspect, edge, tie: the match keeps its reward). With gold alternatives, the search of the
  // gold that decided.
  struct VerifyOutcome {
    std::string status, reason;
    size_t candidates = 0;
    double seconds = 0;
    bool time_capped = false;
    std::string counterexample_json;  // refuted: JSON text of rows, both results, strategy, seed (docs/verify.md)
  };
  std::optional<VerifyOutcome> verify;
};

struct GraderStats {
  uint64_t verdicts = 0, gold_cache_hits = 0, gold_cache_misses = 0;
  size_t gold_cache_entries = 0, gold_cache_bytes = 0, spider2_gold_instances = 0;
};

class Grader {
 public:
  // Throws InputError when spider2_gold_dir is set and its eval jsonl is missing or bad.
  explicit Grader(GraderConfig config = {});
  ~Grader();
  Grader(const Grader&) = delete;
  Grader& operator=(const Grader&) = delete;

  Verdict verdict(const VerdictRequest& request);

  // Throws InputError (the 400's message) when the request has no gold: no gold_sql, no gold_result
  // and, for spider2, no instance_id of the official gold folder. verdict() checks it too.
  void require_gold(const VerdictRequest& request) const;
  // True when a spider2 request with this instance_id can use the official gold folder.
  bool has_official_gold(const std::string& instance_id) const;
  GraderStats stats() const;
  const GraderConfig& config() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The names before issue 32: "verify" now means the counterexample search only (include/sqlgrade/verify.hpp),
// and the class that grades one rollout is the Grader.
using Verifier [[deprecated("renamed sqlgrade::Grader")]] = Grader;
using VerifierConfig [[deprecated("renamed sqlgrade::GraderConfig")]] = GraderConfig;
using VerifierStats [[deprecated("renamed sqlgrade::GraderStats")]] = GraderStats;

// One verdict with a process-wide Grader of default configuration (created on first use).
Verdict verdict(const VerdictRequest& request);

}  // namespace sqlgrade
