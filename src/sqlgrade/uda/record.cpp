// `uda run` as a run record (docs/run-record.schema.json, docs/comparing-runs.md §6) and the "uda"
// summarizer that rebuilds the printed table and per-dataset summaries from the instances' detail,
// so that `sqlgrade merge` of shards prints what grading everything at once prints.
#include <utility>
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "sqlgrade/engine/duckdb.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/runs/summary.hpp"
#include "sqlgrade/uda.hpp"
#include "sqlgrade/uda/driver.hpp"

namespace sqlgrade::uda {

namespace {

using runs::Json;

// The numbers of summary.json without the statement lists: per dataset (overall, by task, gold errors,
// load notes) and the whole run.
Json summary_of(const std::vector<DatasetSummary>& sums) {
  Json ds = Json::object();
  SummaryCounts all;
  for (auto& s : sums) {
    ds[s.dataset] = summary_counts_json(s);
    all.add(s.counts());
  }
  return {{"overall", counts_json(all)}, {"datasets", ds}};
}

runs::SummaryOut summarize_record(const runs::RunRecord& rec) {
  // Datasets in the order of the run (options.datasets), statements in the run's order.
  std::vector<DatasetSummary> sums;
  std::map<std::string, size_t> at;
  if (rec.options.contains("datasets"))
    for (auto& n : rec.options["datasets"]) {
      at.emplace(n.get<std::string>(), sums.size());
      sums.push_back({n.get<std::string>(), {}, {}});
    }
  try {
    for (auto& x : rec.instances) {
      RunEntry q = entry_from(x.id, x.detail);
      auto it = at.find(q.dataset);
      if (it == at.end()) it = at.emplace(q.dataset, sums.size()).first, sums.push_back({q.dataset, {}, {}});
      sums[it->second].queries.push_back(std::move(q));
    }
  } catch (const std::exception& e) {
    throw InputError("uda run record", std::string("instance detail cannot be read: ") + e.what());
  }
  for (auto& s : sums)
    std::sort(s.queries.begin(), s.queries.end(), [](const RunEntry& a, const RunEntry& b) {
      return std::tie(a.task, a.file_stem, a.index, a.path) < std::tie(b.task, b.file_stem, b.index, b.path);
    });
  if (rec.options.contains("load_notes"))
    for (auto& s : sums)
      if (rec.options["load_notes"].contains(s.dataset))
        s.load_notes = rec.options["load_notes"][s.dataset].get<std::vector<std::string>>();
  Run run;
  run.datasets = std::move(sums);
  runs::SummaryOut out;
  out.summary = summary_of(run.datasets);
  out.text = render_text(run, false);
  return out;
}

// The record's options: what changes the scores, the datasets and their gold tables' load notes.
void set_options(runs::RunRecord& rec, const Run& run, const Options& opt) {
  Json datasets = Json::array();
  for (auto& s : run.datasets) datasets.push_back(s.dataset);
  rec.options = {{"float_tolerance", opt.run.eval.float_tolerance},
                 {"multi_value_sep", opt.run.eval.multi_sep},
                 {"primary_key", opt.run.eval.primary_key},
                 {"judge", opt.judge.kind == JudgeOptions::Kind::Llm ? "llm" : "rules"},
                 {"datasets", datasets}};
  // The gold tables' load notes (the same for every shard): summary.json keeps them per dataset.
  Json notes = Json::object();
  for (auto& s : run.datasets)
    if (!s.load_notes.empty()) notes[s.dataset] = s.load_notes;
  if (!notes.empty()) rec.options["load_notes"] = notes;
  if (opt.judge.kind == JudgeOptions::Kind::Llm && !opt.judge.model.empty()) rec.options["judge_model"] = opt.judge.model;
  runs::note_clock(rec, opt.run.now);
}

}  // namespace

std::string render_json(const Run& run, const Options& opt, const std::vector<std::string>& command) {
  namespace fs = std::filesystem;
  runs::RunRecord rec = runs::begin_run_record("uda", run.started_at, run.wall_s, command);
  {
    fs::path p(opt.results);
    if (!p.has_filename()) p = p.parent_path();
    rec.system = opt.name.empty() ? p.filename().string() : opt.name;
  }
  rec.metrics = {{"macro_f1", runs::MetricKind::Continuous, "Macro F1 over the scored columns"},
                 {"macro_precision", runs::MetricKind::Continuous, "Macro precision"},
                 {"macro_recall", runs::MetricKind::Continuous, "Macro recall"},
                 {"row_f1", runs::MetricKind::Continuous, "Row F1 (rows matched by id)"},
                 {"row_precision", runs::MetricKind::Continuous, "Row precision"},
                 {"row_recall", runs::MetricKind::Continuous, "Row recall"}};
  rec.primary_metric = "macro_f1";
  set_options(rec, run, opt);
  rec.inputs.push_back(runs::input_ref("queries", "gold", opt.dataset_dir));
  if (opt.run.dataset.gt_dir) rec.inputs.push_back(runs::input_ref("gt", "gold", opt.run.dataset.gt_dir->string()));
  if (opt.run.dataset.attributes_file)
    rec.inputs.push_back(runs::input_ref("attributes", "gold", opt.run.dataset.attributes_file->string()));
  if (opt.run.dataset.table_map)
    rec.inputs.push_back(runs::input_ref("table_map", "gold", opt.run.dataset.table_map->string()));
  // The results folder holds our own acc_result/ outputs: not hashed.
  rec.inputs.push_back(runs::input_ref("pred", "pred", opt.results, runs::HashInputs::None));
  rec.engines.emplace_back("duckdb", DuckDb::version());
  rec.timeout_s = opt.run.eval.gold_timeout_s;
  rec.shard = runs::shard_option(opt.run.shard_index, opt.run.shard_count, opt.run.shard_by);
  rec.category_axes = {{"task", {"Select", "Filter", "Agg", "Join", "Mixed"}}};
  rec.summary = summary_of(run.datasets);
  rec.summary_text = render_text(run, false);
  for (auto& s : run.datasets)
    for (auto& e : s.queries) {
      runs::Instance x;
      x.id = e.path;
      const Json* acc = e.acc ? &e.acc->json : nullptr;  // acc_json() (outputs.cpp): every key below is there
      if (e.error_kind != kGoldError) {  // a gold error is not graded; the others score (0 when unusable)
        x.scores = {{"macro_f1", e.macro_f1}, {"macro_precision", e.macro_precision}, {"macro_recall", e.macro_recall}};
        if (acc)
          for (const char* m : {"row_f1", "row_precision", "row_recall"}) x.scores.emplace_back(m, acc->at(m).get<double>());
      }
      x.category = {{"dataset", e.dataset}, {"task", e.task}};
      if (acc) {
        x.question = acc->at("sql").get<std::string>();
        x.gold_sql = acc->at("gold_sql").get<std::string>();
      }
      if (e.status != "ok") x.failure_reason = (e.error_kind.empty() ? "" : e.error_kind + ": ") + e.reason;
      Json d = entry_json(e, EntryLead::Dataset);
      if (acc) {
        Json cols = Json::object(), kinds = Json::object();
        for (auto& [name, c] : acc->at("columns").items()) {
          cols[name] = {{"precision", c.at("precision")}, {"recall", c.at("recall")}, {"f1", c.at("f1")}};
          kinds[name] = {{"kind", c.at("kind")}, {"judged_cells", c.at("judged_cells")}};
        }
        if (!cols.empty()) x.columns = cols;
        d["columns"] = kinds;
        for (const char* k : {"rows", "used_keys", "skipped_columns", "warnings", "mode", "judge", "tolerances"})
          d[k] = acc->at(k);
        if (!e.acc->cells.is_null()) d["cells"] = e.acc->cells;  // the report's side-by-side cells
        x.rows = runs::rows_json(e.acc->gold_first, e.acc->pred_first);
      }
      x.detail = std::move(d);
      rec.instances.push_back(std::move(x));
    }
  std::sort(rec.instances.begin(), rec.instances.end(),
            [](const runs::Instance& a, const runs::Instance& b) { return runs::id_less(a.id, b.id); });
  return runs::render_run_record(std::move(rec));
}

void register_run_summarizer() { runs::register_summarizer("uda", summarize_record); }

}  // namespace sqlgrade::uda
