// BIRD runs as run records (docs/comparing-runs.md §6): one instance per gold question, id =
// question_id ("#k" for its k-th occurrence: Mini-Dev lists 137 and 138 twice; the index when the
// question file has none), the metric's score (+ "ex" beside Soft-F1/EM+F1/VES/R-VES), difficulty and
// db, and in `detail` what the "bird" summarizer needs to print the official table again after a
// merge (the gold index fixes the summation order).
#include <utility>
#include <algorithm>
#include <filesystem>

#include "sqlgrade/bird.hpp"
#include "sqlgrade/bird/check.hpp"
#include "sqlgrade/bird/run.hpp"
#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/runs/summary.hpp"

namespace sqlgrade::bird {

namespace {

using Json = runs::Json;

const char* const kLevels[4] = {"simple", "moderate", "challenging", "total"};

// The record's name of a metric's score: ex, soft_f1, em_f1, ves, r_ves.
std::string score_name(Metric m) {
  switch (m) {
    case Metric::Ex: return "ex";
    case Metric::SoftF1: return "soft_f1";
    case Metric::EmF1: return "em_f1";
    case Metric::Ves: return "ves";
    default: return "r_ves";
  }
}

Json summary_json(const Run& r) {
  Summary s = summarize(r);
  Json out = Json::object();
  for (int b = 0; b < 4; ++b)
    out[kLevels[b]] = Json{{"count", s.counts[b]}, {"score", s.empty[b] ? Json(nullptr) : Json(s.scores[b])}};
  const GoldFailures gf = gold_failures(r.items);
  out["gold_timeouts"] = gf.timeouts;
  out["gold_errors"] = gf.errors;
  return out;
}

}  // namespace

std::string render_json(const Run& r, const std::vector<std::string>& command) {
  const Options& opt = r.opt;
  const bool ves = r.metric == Metric::Ves || r.metric == Metric::RVes;
  const std::string primary = score_name(r.metric);
  runs::RunRecord rec = runs::begin_run_record("bird", r.started_at, r.wall_seconds, command);
  rec.system = opt.name.empty() ? std::filesystem::path(opt.pred).filename().string() : opt.name;
  rec.metrics.push_back({primary, r.metric == Metric::Ex ? runs::MetricKind::Binary : runs::MetricKind::Continuous,
                         metric_name(r.metric)});
  if (r.metric != Metric::Ex) rec.metrics.push_back({"ex", runs::MetricKind::Binary, "EX (result sets equal)"});
  rec.primary_metric = primary;
  rec.options = Json{{"metric", metric_name(r.metric)},
                     {"layout", r.layout == Layout::MiniDev ? "mini-dev" : "original"},
                     {"pair_by", r.pair_by_used == PairBy::Index        ? "index"
                                 : r.pair_by_used == PairBy::QuestionId ? "question_id"
                                                                        : "position"},
                     {"sql_dialect", r.sql_dialect},
                     {"gold_time_out", opt.gold_timeout_s < 0 ? opt.timeout_s : opt.gold_timeout_s},
                     {"answer_json", opt.answer_json}};
  if (!opt.data_mode.empty()) rec.options["data_mode"] = opt.data_mode;
  if (ves) rec.options["repeat"] = opt.repeat;
  runs::note_clock(rec, opt.now);
  rec.inputs.push_back(runs::input_ref("gold", "gold", opt.gold));
  rec.inputs.push_back(runs::input_ref("pred", "pred", opt.pred));
  if (!opt.diff_json.empty()) rec.inputs.push_back(runs::input_ref("difficulty", "gold", opt.diff_json));
  if (r.engine == "sqlite") rec.inputs.push_back(runs::input_ref("db", "gold", opt.db_dir, runs::HashInputs::None));
  else rec.options["dsn"] = parse_server_dsn(opt.dsn).redacted();  // the password never reaches a record
  rec.engines.push_back({r.engine, r.engine_version});
  if (opt.timeout_s > 0) rec.timeout_s = opt.timeout_s;
  rec.shard = runs::shard_option(opt.shard_index, opt.shard_count, opt.shard_by);
  rec.category_axes.push_back({"difficulty", {"simple", "moderate", "challenging"}});
  rec.warnings = r.warnings;
  rec.summary = summary_json(r);
  rec.summary_text = render_text(r);
  for (const Instance& it : r.items) {
    runs::Instance in;
    in.id = it.id.empty() ? std::to_string(it.index) : it.id;
    in.scores.emplace_back(primary, it.outcome.score);
    if (r.metric != Metric::Ex) in.scores.emplace_back("ex", it.outcome.match() ? 1.0 : 0.0);
    if (!it.difficulty.empty()) in.category.emplace_back("difficulty", it.difficulty);
    in.category.emplace_back("db", it.db_id);
    in.gold_sql = it.gold_sql;
    if (!it.question.empty()) in.question = it.question;
    in.rows = runs::rows_json(it.outcome.gold_rows, it.outcome.pred_rows);
    if (it.has_pred || !it.pred_sql.empty()) in.pred_sql = it.pred_sql;
    const Outcome& o = it.outcome;
    if (o.status != "ok") in.failure_reason = o.status + (o.detail.empty() ? "" : ": " + o.detail);
    else if (!o.match()) in.failure_reason = "results differ";
    in.time_s = it.pred_seconds;
    Json d{{"index", it.index},
           {"question_id", it.question_id >= 0 ? Json(it.question_id) : Json(nullptr)},
           {"key", it.key.empty() ? Json(nullptr) : Json(it.key)},
           {"status", o.status},
           {"correct", o.match()},
           {"pred_rows", it.pred_rows},
           {"gold_rows", it.gold_rows},
           {"gold_seconds", it.gold_seconds}};
    if (ves) d["time_ratio"] = it.time_ratio;
    in.detail = std::move(d);
    rec.instances.push_back(std::move(in));
  }
  // Natural id order, as merged records have (docs/comparing-runs.md §1).
  std::stable_sort(rec.instances.begin(), rec.instances.end(),
                   [](const runs::Instance& a, const runs::Instance& b) { return runs::id_less(a.id, b.id); });
  return runs::render_run_record(std::move(rec));
}

void register_run_summarizer() {
  runs::register_summarizer("bird", [](const runs::RunRecord& rec) {
    auto bad = [](const std::string& what) { return InputError("bird summarizer", what); };
    Run r;
    const std::string m = rec.options.value("metric", "");
    // The record names it with metric_name(); parse_metric() reads those names (and the flag's).
    std::optional<Metric> metric = parse_metric(m);
    if (!metric) throw bad("options.metric '" + m + "' is not a BIRD metric");
    r.metric = *metric;
    r.layout = rec.options.value("layout", "") == "original" ? Layout::Original : Layout::MiniDev;
    r.sql_dialect = rec.options.value("sql_dialect", "SQLite");
    const std::string primary = score_name(r.metric);
    for (const auto& in : rec.instances) {
      Instance it;
      if (!in.detail.is_object() || !in.detail.contains("index") || !in.detail.contains("status"))
        throw bad("instance " + in.id + ": detail without index/status (not written by sqlgrade bird)");
      it.index = in.detail["index"].get<size_t>();
      it.id = in.id;
      it.outcome.status = in.detail["status"].get<std::string>();
      it.outcome.stage = stage_of(it.outcome.status, in.detail.value("correct", false));
      if (const double* x = in.score(primary)) it.outcome.score = *x;
      if (const std::string* d = in.category_of("difficulty")) it.difficulty = *d;
      r.items.push_back(std::move(it));
    }
    // The official arithmetic sums in gold-file order.
    std::stable_sort(r.items.begin(), r.items.end(), [](const Instance& a, const Instance& b) { return a.index < b.index; });
    runs::SummaryOut out;
    out.summary = summary_json(r);
    out.text = render_text(r);
    return out;
  });
}

}  // namespace sqlgrade::bird
