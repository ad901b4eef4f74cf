// Spider 2.0-Lite: the run of several systems in one pass — every system's predicted ids paired with
// the gold (jobs), sql mode's statements executed once each, the gold alternatives read once, every job
// checked (check.hpp) on all cores. See spider2.hpp and spec §4.1–4.3, §4.6.
#include "sqlgrade/spider2/run.hpp"
#include "sqlgrade/spider2/bench.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/py/io.hpp"
#include "sqlgrade/runs/ids.hpp"

namespace sqlgrade::spider2 {

namespace {

using DbMap = std::map<std::string, std::string>;  // instance id → database name

// The gold side of a run, read once for every system.
struct GoldSide {
  std::string ext;       // of the predictions: ".sql" (sql mode) or ".csv"
  std::string exec_dir;  // <gold_dir>/exec_result
  std::map<std::string, EvalEntry> entries;
  std::vector<std::string> listing;  // of exec_dir
};

GoldSide read_gold_side(const Options& opt) {
  GoldSide g{opt.mode == Mode::Sql ? ".sql" : ".csv", (fs::path(opt.gold_dir) / "exec_result").string(),
             load_eval_jsonl((fs::path(opt.gold_dir) / "spider2lite_eval.jsonl").string()), {}};
  g.listing = sorted_listing(g.exec_dir, "gold exec_result");
  return g;
}

// Every system's run (its ids, counts) and the jobs — one per (system, instance).
struct Listing {
  std::vector<Run> runs;
  std::vector<Job> jobs;
  std::set<std::string> all_ids;  // every id some system predicted
};

// inputs → items: every system's predicted ids that the gold knows (and the shard keeps; `dbs`: each
// id's database, for --shard-by db).
Listing list_jobs(const Options& opt, const std::vector<std::string>& result_dirs, const GoldSide& gs,
                  const std::optional<runs::Shard>& shard, const DbMap& dbs) {
  auto keep = [&](const std::string& id) {
    if (!shard) return true;
    auto d = dbs.find(id);
    return runs::in_shard(*shard, id, d == dbs.end() ? std::string_view() : std::string_view(d->second));
  };
  const std::string& ext = gs.ext;
  Listing l;
  l.runs.resize(result_dirs.size());
  for (size_t s = 0; s < result_dirs.size(); ++s) {
    auto pred_listing = sorted_listing(result_dirs[s], "result");
    Run& rr = l.runs[s];
    rr.opt = opt;
    rr.opt.result_dir = result_dirs[s];
    rr.n_gold_ids = gs.entries.size();
    std::vector<std::string> ids;
    for (auto& f : pred_listing) {
      if (f.size() <= ext.size() || f.compare(f.size() - ext.size(), ext.size(), ext) != 0) continue;
      ++rr.n_pred_ids;
      std::string id = f.substr(0, f.size() - ext.size());
      if (!gs.entries.count(id)) ++rr.n_unpaired;
      else if (keep(id)) ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (const auto& e : gs.entries)
      if (keep(e.first)) ++rr.n_missing;
    rr.n_missing -= ids.size();
    rr.items.resize(ids.size());
    for (size_t k = 0; k < ids.size(); ++k) {
      rr.items[k].instance_id = ids[k];
      l.all_ids.insert(ids[k]);
      Job j;
      j.sys = s;
      j.k = k;
      j.id = ids[k];
      j.pred_path = (fs::path(result_dirs[s]) / (ids[k] + ext)).string();
      l.jobs.push_back(std::move(j));
    }
  }
  return l;
}

// The database of each instance: needed to run local ids in sql mode; otherwise, when the metadata
// file is there, only the run record's "db" category (a bad file is then not an error). `dbs`: what
// --shard-by db read, kept when the metadata is neither needed nor a file.
DbMap load_dbs(const Options& opt, const std::set<std::string>& all_ids, DbMap dbs) {
  const std::string meta = default_meta_path(opt);
  const bool need_meta = opt.mode == Mode::Sql && std::any_of(all_ids.begin(), all_ids.end(), [](const std::string& id) {
                           return is_local(id);
                         });
  if (need_meta) return load_db_map(meta);
  std::error_code ec;
  if (fs::is_regular_file(meta, ec)) try {
      return load_db_map(meta);
    } catch (const std::exception&) {
      return {};
    }
  return dbs;
}

// Step 1, sql mode: read the prediction, extract the statement and find its database (exec_result
// mode reads each CSV when it is graded, so that only the workers' frames are in memory at once).
// Sets j.db_path (or j.error) and it.pred_sql.
void resolve_sql(const DbMap& dbs, const std::string& db_dir, Job& j, Instance& it) {
  try {
    it.pred_sql = answer::spider2_sql_block(py::universal_newlines(read_file(j.pred_path)));
    if (is_local(j.id)) {
      auto d = dbs.find(j.id);
      if (d == dbs.end()) throw std::runtime_error("no db for " + j.id + " in spider2-lite.jsonl");
      if (!is_plain_name(d->second))
        throw std::runtime_error("the db '" + d->second + "' of " + j.id +
                                 " in spider2-lite.jsonl is not a file name inside --db_dir");
      j.db_path = benchmark().database(db_dir, d->second);
    } else if (j.id.starts_with("bq") || j.id.starts_with("ga")) {
      throw std::runtime_error("BigQuery instances cannot be run by sqlgrade (no BigQuery client)");
    } else {
      throw std::runtime_error("Unsupported instance id prefix: " + j.id);
    }
  } catch (const std::exception& e) {
    j.error = e.what();
  }
}

// Steps 1-2, sql mode: each job's statement resolved (into the job and its instance), then each
// distinct (database, SQL) run once, whichever systems predicted it (exec::GoldMemo, single flight),
// its outcome shared by the jobs. Returns how many statements ran.
size_t execute_sql(const Options& opt, const DbMap& dbs, unsigned workers, std::vector<Job>& jobs,
                   std::vector<Run>& runs) {
  const std::string db_dir = default_db_dir(opt);
  auto instance = [&](const Job& j) -> Instance& { return runs[j.sys].items[j.k]; };
  exec::for_each(jobs.size(), workers, nullptr, [&](size_t k) { resolve_sql(dbs, db_dir, jobs[k], instance(jobs[k])); });
  Limits limits;
  limits.timeout_s = opt.timeout_s;
  limits.max_bytes = opt.max_result_bytes;
  limits.max_rows = opt.max_rows;
  SqliteOptions sopt;
  sopt.text_decode = SqliteOptions::TextDecode::Error;  // Python's sqlite3 raises on invalid UTF-8
  sopt.empty_is_ok = false;                             // pandas read_sql_query fails without a result set
  exec::GoldMemo<ExecOut> execs;
  std::vector<size_t> todo;
  for (size_t k = 0; k < jobs.size(); ++k)
    if (!jobs[k].error && !jobs[k].db_path.empty()) todo.push_back(k);
  if (todo.empty()) return 0;
  Progress progress("Evaluating SQL", todo.size(), opt.progress);
  exec::for_each(todo.size(), workers, &progress, [&](size_t t) {
    Job& j = jobs[todo[t]];
    const std::string& sql = *instance(j).pred_sql;
    j.exec = execs.get(j.db_path, sql, [&] { return execute_one(j.db_path, sql, opt, limits, sopt); });
  });
  progress.finish();
  return execs.executions();
}

// Steps 3-4: the gold alternatives of every id any system predicted, read once; every job graded into
// its instance; then the CSV each executed instance would write.
void grade_all(const Options& opt, const GoldSide& gs, const std::set<std::string>& all_ids, const DbMap& dbs,
               unsigned workers, const std::vector<Job>& jobs, std::vector<Run>& runs) {
  const std::vector<std::string> gold_ids(all_ids.begin(), all_ids.end());
  const std::vector<Gold> golds = exec::run_each<Gold>(
      gold_ids.size(), workers, nullptr, [&](size_t k) { return read_gold(gs.exec_dir, gold_ids[k], gs.listing); });
  Progress progress(opt.mode == Mode::Sql ? "Grading" : "Evaluating Exec Results", jobs.size(), opt.progress);
  exec::for_each(jobs.size(), workers, &progress, [&](size_t k) {
    const Job& j = jobs[k];
    Instance& it = runs[j.sys].items[j.k];
    auto dbit = dbs.find(j.id);
    if (dbit != dbs.end()) it.db = dbit->second;
    const size_t g = static_cast<size_t>(std::lower_bound(gold_ids.begin(), gold_ids.end(), j.id) - gold_ids.begin());
    grade_job(j, golds[g], gs.entries.at(j.id), runs[j.sys].opt, it);
  });
  progress.finish();
  for (auto& j : jobs)
    if (j.exec && j.exec->ok) runs[j.sys].items[j.k].result_csv = j.exec->csv;
}

}  // namespace

// inputs (gold folder, every result folder) → jobs (system, instance) → sql mode: each distinct
// statement executed once → gold alternatives read once → every job graded (exec::for_each).
std::vector<Run> run_many(const Options& opt, const std::vector<std::string>& result_dirs) {
  const GoldSide gs = read_gold_side(opt);
  const std::optional<runs::Shard> shard = runs::shard_spec(opt.shard, opt.shard_by);
  // --shard-by db: each id's database (spider2-lite.jsonl beside the gold) before the ids are kept.
  DbMap shard_dbs;
  if (shard && shard->by == runs::ShardBy::Db) shard_dbs = load_db_map(default_meta_path(opt));
  Listing l = list_jobs(opt, result_dirs, gs, shard, shard_dbs);
  const DbMap dbs = load_dbs(opt, l.all_ids, std::move(shard_dbs));
  const unsigned workers = resolve_jobs(opt.jobs);
  const size_t executed = opt.mode == Mode::Sql ? execute_sql(opt, dbs, workers, l.jobs, l.runs) : 0;
  grade_all(opt, gs, l.all_ids, dbs, workers, l.jobs, l.runs);
  for (auto& r : l.runs) r.n_executed = executed;
  return std::move(l.runs);
}

}  // namespace sqlgrade::spider2
