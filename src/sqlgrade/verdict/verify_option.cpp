// The `verify` option of a verdict: see verify_option.hpp. The search itself is verify::verify (the
// same as `sqlgrade verify`), on the request's database, with the queries exactly as the benchmark's
// rule executes them and the benchmark's own comparison.
#include "sqlgrade/verdict/verify_option.hpp"

#include <cstdio>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/verify/verify.hpp"

namespace sqlgrade::verdicts {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The database the search starts from: the file, or for a Spider test-suite folder its first
// database (the benchmark's own database of the folder's name, else the first *.sqlite by name), as
// `sqlgrade verify` does.
std::string search_db(const Benchmark& b, const std::string& db) {
  std::error_code ec;
  if (!fs::is_directory(db, ec)) return db;
  const fs::path own = b.database(fs::path(db).parent_path().string(), fs::path(db).filename().string());
  if (fs::is_regular_file(own, ec)) return own.string();
  std::string first;
  for (const auto& e : fs::directory_iterator(db, ec))
    if (e.path().extension() == ".sqlite" && (first.empty() || e.path().string() < first)) first = e.path().string();
  return first;
}

// The verification item of a matched request, or why it cannot be searched.
std::string make_item(const Benchmark& b, const VerdictRequest& req, const std::string& pred_sql, verify::Item& item) {
  if (!req.gold_sql || req.gold_sql->empty()) return "needs gold_sql (a gold result or gold folder has no query to run elsewhere)";
  if (req.plug_value) return "plug_value matches are not searched (the matching candidate is not kept)";
  item.id = req.instance_id;
  item.db_path = search_db(b, req.db);
  if (item.db_path.empty()) return "no .sqlite database in the folder";
  const json cc = req.condition_cols_json.empty() ? json() : json::parse(req.condition_cols_json);
  return b.search_item({*req.gold_sql, pred_sql, req.keep_distinct, req.ignore_order.value_or(true), &cc}, item);
}

// A search that stopped before its candidates ran out found nothing it can vouch for: its time cap
// ended it, or the request was cancelled (its budget, a hang-up, shutdown: the queries on the
// candidates were interrupted and count as no difference). Such a search is "unverified", never
// "no_counterexample".
void mark_cut(Verdict::VerifyOutcome& out, double budget_s) {
  if (out.status != "no_counterexample" && out.status != "unverified") return;
  const bool cancelled = cancel_requested();
  if (!out.time_capped && !cancelled) return;
  out.status = "unverified";
  out.time_capped = true;
  char b[32];
  std::snprintf(b, sizeof b, "%g", budget_s);
  out.reason = cancelled ? "the search was cut by the request's cancellation (budget, hang-up or shutdown) "
                           "before it found a counterexample"
                         : std::string("the search reached its time cap (") + b + " s) before it found a counterexample";
}

}  // namespace

void verify_verdict(const Benchmark& b, const VerdictRequest& req, const std::string& pred_sql, Verdict& v) {
  if (!req.verify) return;
  Verdict::VerifyOutcome out;
  out.status = "skipped";
  verify::Item item;
  if (!v.execution_match) {
    out.reason = "not a match: nothing to verify";
  } else if (std::string why = make_item(b, req, pred_sql, item); !why.empty()) {
    out.reason = why;
  } else {
    verify::Budget budget;
    budget.seed = req.verify->seed;
    budget.candidates = req.verify->candidates;
    budget.seconds = req.verify->budget_s;
    budget.shrink_tests = 60;  // a reward needs the refutation, not the smallest database
    budget.query_timeout_s = std::min(budget.query_timeout_s, std::max(req.verify->budget_s, 0.05));
    const verify::SearchOutcome o = verify::verify(item, budget);
    out.status = verify::to_string(o.status);
    out.reason = o.reason;
    out.candidates = o.candidates;
    out.seconds = o.seconds;
    out.time_capped = o.time_capped;
    if (o.cex) out.counterexample_json = verify::counterexample_json(item, o)["counterexample"].dump();
    mark_cut(out, req.verify->budget_s);
  }
  v.verify = std::move(out);
}

VerdictStage stage_after_verify(const VerdictRequest& req, const Verdict& v) {
  if (!v.execution_match || !v.verify || !req.verify) return v.stage;
  if (v.verify->status == "refuted") return VerdictStage::Refuted;
  if (v.verify->status == "unverified" &&
      req.verify->on_unverified == VerdictRequest::VerifyOption::OnUnverified::Zero)
    return VerdictStage::Unverified;
  return v.stage;
}

}  // namespace sqlgrade::verdicts
