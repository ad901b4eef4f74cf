// Spider runs as run records (docs/comparing-runs.md §6): one instance per question (id = 0-based
// question index), scores exec/exact, categories hardness and db, and in `detail` everything the
// printed output is made of, so that the "spider" summarizer rebuilds the table of merged shards
// exactly as one whole run prints it.
#include "sqlgrade/spider/record.hpp"

#include <filesystem>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/summary.hpp"
#include "sqlgrade/spider/aggregate.hpp"
#include "sqlgrade/spider/bench.hpp"

namespace sqlgrade::spider {

namespace {

using Json = runs::Json;

const char* etype_name(Etype e) { return e == Etype::Match ? "match" : e == Etype::Exec ? "exec" : "all"; }

std::string failure_of(const Example& e, bool do_match, bool do_exec) {
  if (!e.gold_ok) return "gold does not parse: " + e.gold_error;
  if (!e.has_pred) return "no prediction";
  if (do_exec && e.exec && !e.exec->match()) return e.exec->detail.empty() ? "results differ" : e.exec->detail;
  if (!e.pred_parsed) return "prediction does not parse: " + e.parse_error;
  if (do_match && e.exact == 0) return "not an exact set match";
  return {};
}

runs::InputRef input(const std::string& role, const std::string& side, const std::string& path, bool hash) {
  return runs::input_ref(role, side, path, hash ? runs::HashInputs::Files : runs::HashInputs::None);
}

}  // namespace

runs::RunRecord to_run_record(const Run& run, const std::vector<std::string>& command) {
  const Options& opt = run.opt;
  const bool ts = opt.compat == Compat::TestSuite;
  const bool do_match = opt.etype != Etype::Exec, do_exec = opt.etype != Etype::Match;
  runs::RunRecord r = runs::begin_run_record("spider", run.started_at, run.wall_s, command);
  r.system = opt.name.empty() ? std::filesystem::path(opt.pred).filename().string() : opt.name;
  if (do_exec) r.metrics.push_back({"exec", runs::MetricKind::Binary, "Execution accuracy"});
  if (do_match) r.metrics.push_back({"exact", runs::MetricKind::Binary, "Exact set match"});
  r.primary_metric = do_exec ? "exec" : "exact";
  r.options = Json{{"compat", ts ? "test-suite" : "spider"}, {"etype", etype_name(opt.etype)}};
  if (ts) {
    r.options["plug_value"] = opt.plug_value;
    r.options["keep_distinct"] = opt.keep_distinct;
  }
  // The gold file's interaction count decides the "Evaluating Nth prediction" lines and joint_all.
  r.options["interactions"] = run.n_interactions;
  runs::note_clock(r, opt.now);
  r.inputs.push_back(input("gold", "gold", opt.gold, true));
  r.inputs.push_back(input("pred", "pred", opt.pred, true));
  if (!opt.table.empty()) r.inputs.push_back(input("table", "gold", opt.table, true));
  r.inputs.push_back(input("db", "gold", opt.db_dir, false));
  r.engines.push_back({"sqlite", runs::sqlite_version()});
  if (do_exec) r.timeout_s = opt.timeout_s;
  r.shard = runs::shard_option(opt.shard_index, opt.shard_count, opt.shard_by);
  r.category_axes.push_back({"hardness", {"easy", "medium", "hard", "extra"}});
  r.warnings = run.warnings;
  r.summary = Json(summary_json(run));
  r.summary_text = render_table(run);
  for (const auto& e : run.examples) {
    runs::Instance in;
    in.id = std::to_string(e.index);
    if (e.gold_ok) {
      if (do_exec) in.scores.emplace_back("exec", e.exec_score());
      if (do_match) in.scores.emplace_back("exact", e.exact);
      in.category.emplace_back("hardness", to_string(e.hardness));
    }
    in.category.emplace_back("db", e.db_id);
    in.gold_sql = e.gold_sql;
    if (!e.question.empty()) in.question = e.question;
    if (e.has_pred) in.pred_sql = e.pred_sql;
    if (e.exec) in.rows = runs::rows_json(e.exec->gold_rows, e.exec->pred_rows);
    else in.rows = runs::rows_json({}, {});
    if (std::string f = failure_of(e, do_match, do_exec); !f.empty()) in.failure_reason = f;
    in.time_s = e.parse_seconds + e.exec_seconds;
    Json d{{"interaction", e.interaction}, {"turn", e.turn}, {"gold_line", e.gold_line}, {"pred_line", e.pred_line},
           {"has_pred", e.has_pred}, {"gold_ok", e.gold_ok}};
    if (!e.gold_ok) d["gold_error"] = e.gold_error;
    d["pred_parsed"] = e.pred_parsed;
    if (!e.parse_error.empty()) d["parse_error"] = e.parse_error;
    if (do_match && e.gold_ok) {
      // [score, label_total, pred_total] per component, in the printed order.
      Json comp = Json::object();
      for (int c = 0; c < C_COUNT; ++c) {
        const auto& cs = e.partial[static_cast<size_t>(c)];
        comp[kComponentNames[c]] = Json::array({cs.score, cs.label_total, cs.pred_total});
      }
      d["components"] = std::move(comp);
    }
    if (do_exec && e.gold_ok) {
      if (e.exec && !e.exec->detail.empty()) d["exec_reason"] = e.exec->detail;
      if (e.exec && e.exec->deadline_hit) d["timeout"] = true;
      if (e.exec && e.exec->stage == VerdictStage::GoldFailed) d["gold_exec_error"] = true;
      d["exec_seconds"] = e.exec_seconds;
    }
    d["parse_seconds"] = e.parse_seconds;
    in.detail = std::move(d);
    r.instances.push_back(std::move(in));
  }
  return r;
}

Run run_from_record(const runs::RunRecord& rec) {
  Run run;
  const Json& o = rec.options;
  auto bad = [&](const std::string& what) { return InputError("spider summarizer", what); };
  const std::string compat = o.value("compat", ""), etype = o.value("etype", "");
  if (compat == "test-suite") run.opt.compat = Compat::TestSuite;
  else if (compat == "spider") run.opt.compat = Compat::Spider;
  else throw bad("options.compat must be spider or test-suite");
  if (etype == "match") run.opt.etype = Etype::Match;
  else if (etype == "exec") run.opt.etype = Etype::Exec;
  else if (etype == "all") run.opt.etype = Etype::All;
  else throw bad("options.etype must be match, exec or all");
  if (!o.contains("interactions") || !o["interactions"].is_number_unsigned()) throw bad("options.interactions missing");
  run.n_interactions = o["interactions"].get<size_t>();
  const bool ts = run.opt.compat == Compat::TestSuite;
  run.scores.include_turn = ts && run.n_interactions > 1;
  for (const auto& in : rec.instances) {
    const Json& d = in.detail;
    if (!d.is_object() || !d.contains("interaction") || !d.contains("gold_ok"))
      throw bad("instance " + in.id + ": detail without interaction/gold_ok (not written by sqlgrade spider)");
    Example e;
    e.index = std::stoul(in.id);
    e.interaction = d["interaction"].get<size_t>();
    e.turn = d["turn"].get<size_t>();
    e.gold_line = d.value("gold_line", 0L);
    e.pred_line = d.value("pred_line", 0L);
    e.has_pred = d.value("has_pred", true);
    e.gold_ok = d["gold_ok"].get<bool>();
    e.gold_error = d.value("gold_error", "");
    e.pred_parsed = d.value("pred_parsed", false);
    e.parse_error = d.value("parse_error", "");
    if (const std::string* db = in.category_of("db")) e.db_id = *db;
    if (in.gold_sql) e.gold_sql = *in.gold_sql;
    if (in.pred_sql) e.pred_sql = *in.pred_sql;
    if (const std::string* h = in.category_of("hardness")) {
      for (int k = 0; k < 4; ++k)
        if (*h == to_string(static_cast<Hardness>(k))) e.hardness = static_cast<Hardness>(k);
    }
    if (const double* x = in.score("exact")) e.exact = static_cast<int>(*x);
    // The record keeps the exec score, its reason and two flags, not the stage: a merged example's
    // stage is equal, gold_failed, timeout or different (what the summarizer's table needs: the score).
    if (const double* x = in.score("exec")) {
      ExecVerdict v;
      v.score = static_cast<int>(*x);
      v.reason = d.value("exec_reason", "");
      v.timeout = d.value("timeout", false);
      v.gold_error = d.value("gold_exec_error", false);
      e.exec = outcome_of(std::move(v));
    }
    if (d.contains("components")) {
      for (int c = 0; c < C_COUNT; ++c) {
        const Json& a = d["components"].at(kComponentNames[c]);
        auto& cs = e.partial[static_cast<size_t>(c)];
        cs.score = a.at(0).get<int>();
        cs.label_total = a.at(1).get<int>();
        cs.pred_total = a.at(2).get<int>();  // count is not in the record: it stays 0
      }
    }
    run.examples.push_back(std::move(e));
  }
  aggregate(run);
  return run;
}

std::string render_json(const Run& run, const std::vector<std::string>& command) {
  return runs::render_run_record(to_run_record(run, command));
}

void register_run_summarizer() {
  runs::register_summarizer("spider", [](const runs::RunRecord& rec) {
    Run run = run_from_record(rec);
    runs::SummaryOut out;
    out.summary = Json(summary_json(run));
    out.text = render_table(run);
    return out;
  });
}

}  // namespace sqlgrade::spider
