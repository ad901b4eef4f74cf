// UDA driver, whole datasets: `uda run` (every result.csv of a results tree, in parallel) and
// `uda prepare` / `uda gold` (every statement of the query files).
#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda/judge/llm_trace.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/duckdb_pool.hpp"
#include "sqlgrade/uda/driver.hpp"
#include "sqlgrade/core/json.hpp"

namespace sqlgrade::uda {

using json = nlohmann::json;

std::vector<fs::path> dataset_dirs(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string(), "dataset folder not found");
  auto has_attrs = [](const fs::path& d) {
    for (auto& e : fs::directory_iterator(d))
      if (e.is_regular_file() && e.path().filename().string().ends_with("_attributes.json")) return true;
    return false;
  };
  if (has_attrs(dir)) return {dir};
  std::vector<fs::path> out;
  for (auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && has_attrs(e.path())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  if (out.empty()) throw InputError(dir.string(), "no dataset here (no *_attributes.json in it or its subfolders)");
  return out;
}

namespace {

// No output replaces an input (issue 19, finding 11): every file `prepare`/`gold`/`run` writes under
// `out_root` (per dataset: `names`; per statement with `per_query`: those names in its folder) is
// checked against what every dataset reads, before anything is written.
void check_outputs(const fs::path& dataset_dir, const fs::path& out_root, const std::string& role, const RunOptions& opt,
                   const std::vector<std::string>& names, const std::vector<std::string>& per_query) {
  std::vector<IoPath> in, out;
  for (auto& dir : dataset_dirs(dataset_dir)) {
    for (auto& i : dataset_inputs(dir, opt.dataset)) in.push_back(std::move(i));
    const fs::path root = out_root / dataset_name(dir);
    for (const auto& n : names) out.push_back({root / n, role});
    if (!per_query.empty())
      for (const auto& item : discover_queries(dir))
        for (const auto& n : per_query) out.push_back({root / item.rel_dir() / n, role});
  }
  check_outputs_spare_inputs(out, in);
}

RunEntry entry_for(const std::string& dataset, const QueryItem& item) {
  RunEntry e;
  e.dataset = dataset;
  e.task = item.task;
  e.file_stem = item.file_stem;
  e.index = item.stmt.index;
  e.label = item.stmt.label;
  e.category = item.stmt.category;
  e.path = (fs::path(dataset) / item.rel_dir()).generic_string();
  return e;
}

void fill_entry(RunEntry& e, const QueryEval& ev) {
  e.status = ev.status;
  e.error_kind = ev.error_kind;
  e.reason = ev.reason;
  e.query_type = ev.gold->error.empty() || !ev.gold->plan.shape.select.empty() ? to_string(ev.gold->plan.shape.type) : "";
  e.macro_precision = ev.match.macro_precision;
  e.macro_recall = ev.match.macro_recall;
  e.macro_f1 = ev.match.macro_f1;
  e.len_gold = ev.match.len_gold;
  e.len_pred = ev.match.len_pred;
  e.matched_rows = ev.match.pairs.size();
  e.judge_questions = ev.match.judge_questions;
}

// One statement of a `uda run`: a statement of the query files and/or a folder of the results tree.
struct RunJob {
  fs::path folder;
  std::string path;  // <Dataset>/<folder relative to the results root>: RunEntry::path, the record's id
  QueryItem item;
  std::string sql, error;        // error: no SQL for this folder (a gold error)
  std::vector<std::string> notes;  // warnings for acc.json
};

QueryItem item_from_folder(const std::string& rel) {
  QueryItem item;
  auto parts = split(rel, "/");
  item.task = parts.size() > 0 ? parts[0] : "";
  item.file_stem = parts.size() > 1 ? parts[1] : "";
  item.stmt.index = parts.size() > 2 ? static_cast<int>(parse_int(parts[2]).value_or(0)) : 0;
  return item;
}

// Every statement of the dataset's query files (whether or not the results tree has a folder for
// it) and every other folder of the results tree that holds a result.csv or a sql.json. The SQL
// comes from the folder's sql.json, else from the query file.
// The regular files under `dir` (symlinked folders not followed, at most 64 levels and 200,000
// files). Entries that vanish while they are listed are skipped: another process (a shard of the same
// run, `sqlgrade.ray`) may be writing its outputs into the same results folder, through temporary
// names renamed into place — a recursive_directory_iterator then failed the whole run with "cannot
// increment recursive directory iterator: No such file or directory".
void list_files(const fs::path& dir, int depth, std::vector<fs::path>& out) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end && out.size() < 200000; it.increment(ec)) {
    std::error_code e;
    if (it->is_symlink(e)) {
      if (it->is_regular_file(e)) out.push_back(it->path());
    } else if (it->is_directory(e)) {
      if (depth < 64) list_files(it->path(), depth + 1, out);
    } else if (it->is_regular_file(e)) {
      out.push_back(it->path());
    }
  }
}

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  list_files(dir, 0, out);
  std::sort(out.begin(), out.end());  // the order the jobs are listed in does not depend on the file system
  return out;
}

std::vector<RunJob> run_jobs(const fs::path& dataset_dir, const fs::path& root) {
  std::vector<RunJob> jobs;
  std::map<std::string, size_t> by_dir;
  for (auto& it : discover_queries(dataset_dir)) {
    by_dir[it.rel_dir().generic_string()] = jobs.size();
    RunJob job;
    job.folder = root / it.rel_dir();
    job.sql = it.stmt.sql;
    job.item = std::move(it);
    jobs.push_back(std::move(job));
  }
  std::error_code ec;
  if (fs::is_directory(root, ec)) {
    for (const fs::path& path : files_under(root)) {
      auto name = path.filename();
      if (name != "result.csv" && name != "sql.json") continue;
      if (path.parent_path().filename() == "acc_result") continue;
      std::string rel = fs::relative(path.parent_path(), root).generic_string();
      if (by_dir.count(rel)) continue;
      by_dir[rel] = jobs.size();
      RunJob job;
      job.folder = path.parent_path();
      job.item = item_from_folder(rel);
      job.error = "no sql.json and no statement " + rel + " in the query files";
      jobs.push_back(std::move(job));
    }
  }
  for (auto& job : jobs) {
    fs::path sj = job.folder / "sql.json";
    if (!fs::exists(sj, ec)) continue;
    std::string problem;
    try {
      const std::string text = read_file(sj);
      check_json_depth(text, sj.string());
      auto j = json::parse(text);
      if (j.is_object() && j.contains("sql") && j["sql"].is_string()) {
        job.sql = j["sql"];
        job.error.clear();
        continue;
      }
      problem = "no \"sql\" string";
    } catch (const InputError& e) {  // unreadable, too large or nested too deeply
      problem = e.message();
    } catch (const std::exception& e) {
      problem = std::string("invalid JSON: ") + e.what();
    }
    if (job.sql.empty()) job.error = sj.string() + ": " + problem;
    else job.notes.push_back(sj.string() + ": " + problem + "; the SQL of the query file was used");
  }
  std::sort(jobs.begin(), jobs.end(), [](const RunJob& a, const RunJob& b) {
    return std::tie(a.item.task, a.item.file_stem, a.item.stmt.index, a.folder) <
           std::tie(b.item.task, b.item.file_stem, b.item.stmt.index, b.folder);
  });
  return jobs;
}

}  // namespace

std::vector<DatasetSummary> run_datasets(const fs::path& dataset_dir, const fs::path& results_root,
                                         const RunOptions& opt, judge::Judge& jd) {
  std::vector<DatasetSummary> sums;
  std::error_code ec;
  if (!fs::is_directory(results_root, ec)) throw InputError(results_root.string(), "results folder not found");
  check_outputs(dataset_dir, results_root, "--results", opt, {"summary.json", "summary.csv"}, {});
  for (auto& dir : dataset_dirs(dataset_dir)) {
    Dataset ds(dir, opt.dataset);
    DatasetSummary sum;
    sum.dataset = ds.name();
    sum.load_notes = ds.load_notes();
    fs::path root = results_root / ds.name();
    std::vector<RunJob> jobs = run_jobs(dir, root);
    for (RunJob& j : jobs) j.path = (fs::path(ds.name()) / fs::relative(j.folder, root)).generic_string();
    if (const std::optional<runs::Shard> sh = runs::shard_option(opt.shard_index, opt.shard_count, opt.shard_by))
      std::erase_if(jobs, [&](const RunJob& j) { return !runs::in_shard(*sh, j.path, ds.name()); });
    sum.queries.resize(jobs.size());
    Evaluator evaluator(ds, opt.eval, jd);
    DuckPool pool([&ds] { return ds.connect(); });
    Progress progress("uda " + ds.name(), jobs.size(), opt.progress);
    exec::for_each(jobs.size(), resolve_jobs(opt.jobs), &progress, [&](size_t i) {
      RunJob& job = jobs[i];
      RunEntry e = entry_for(ds.name(), job.item);
      e.path = job.path;
      if (!job.error.empty()) {
        e.status = "error";
        e.error_kind = kGoldError;
        e.reason = job.error;
        sum.queries[i] = e;
        return;
      }
      judge::QueryTrace trace(e.path);  // per-query judge counts (acc.json) and judge-log labels
      auto conn = pool.lease();
      fs::path result = job.folder / "result.csv";
      QueryEval ev = fs::exists(result) ? evaluator.evaluate(*conn, job.sql, result)
                                        : evaluator.missing_result(*conn, job.sql, "no result.csv in " + e.path);
      ev.warnings.insert(ev.warnings.begin(), job.notes.begin(), job.notes.end());
      fill_entry(e, ev);
      auto view = std::make_shared<AccJson>(AccJson{acc_json(ev, opt.eval), {}, {}, {}});
      record_view(ev, *view);
      std::shared_ptr<const AccJson> acc = view;
      e.acc = acc;
      std::error_code fec;
      if (fs::is_directory(job.folder, fec)) {  // statements without a folder get no acc_result/
        try {
          write_query_outputs(job.folder / "acc_result", ev, acc_file_text(acc->json));
        } catch (const InputError& err) {
          e.status = "error";
          e.error_kind = kResultError;
          e.reason = std::string("cannot write outputs: ") + err.what();
        }
      }
      sum.queries[i] = e;
    });
    progress.finish();
    write_file_atomic(root / "summary.json", summary_json(sum).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    write_file_atomic(root / "summary.csv", summary_csv(sum));
    sums.push_back(std::move(sum));
  }
  return sums;
}

std::vector<DatasetSummary> prepare_datasets(const fs::path& dataset_dir, const fs::path& out_root, bool with_gold,
                                             const RunOptions& opt) {
  std::vector<DatasetSummary> sums;
  std::vector<std::string> per_query{"sql.json"};
  if (with_gold) per_query.push_back("gold_result.csv");
  if (with_gold && opt.gold_as_result) per_query.push_back("result.csv");
  check_outputs(dataset_dir, out_root, "--out", opt, with_gold ? std::vector<std::string>{"gold_summary.json"} : std::vector<std::string>{},
                per_query);
  for (auto& dir : dataset_dirs(dataset_dir)) {
    Dataset ds(dir, opt.dataset);
    std::vector<QueryItem> items = discover_queries(dir);
    DatasetSummary sum;
    sum.dataset = ds.name();
    sum.queries.resize(items.size());
    judge::RulesJudge rules;
    Evaluator evaluator(ds, opt.eval, rules);
    DuckPool pool([&ds] { return ds.connect(); });
    fs::path root = out_root / ds.name();
    Progress progress(std::string(with_gold ? "gold " : "prepare ") + ds.name(), items.size(), opt.progress);
    exec::for_each(items.size(), resolve_jobs(opt.jobs), &progress, [&](size_t i) {
      const QueryItem& item = items[i];
      RunEntry e = entry_for(ds.name(), item);
      auto conn = pool.lease();
      fs::path folder = root / item.rel_dir();
      std::optional<QueryShape> shape;
      try {
        shape = parse_query_shape(*conn, item.stmt.sql);
      } catch (const std::exception&) {
        // sql_json and run_gold parse again and report the parser's message
      }
      json sj = evaluator.sql_json(*conn, item, shape ? &*shape : nullptr);
      write_file_atomic(folder / "sql.json", sj.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
      if (sj["meta"].contains("query_type")) e.query_type = sj["meta"]["query_type"];
      if (with_gold) {
        GoldRun g = evaluator.run_gold(*conn, item.stmt.sql, shape ? &*shape : nullptr);
        if (!g.error.empty()) {
          e.status = "error";
          e.error_kind = kGoldError;
          e.reason = g.error;
        } else {
          e.len_gold = g.table.size();
          write_file_atomic(folder / "gold_result.csv", table_to_csv(g.table));
          if (opt.gold_as_result) write_file_atomic(folder / "result.csv", table_to_csv(gold_as_result(g)));
        }
      }
      sum.queries[i] = e;
    });
    progress.finish();
    if (with_gold) {
      sum.load_notes = ds.load_notes();
      write_file_atomic(root / "gold_summary.json",
                        gold_summary_json(sum).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }
    sums.push_back(std::move(sum));
  }
  return sums;
}

}  // namespace sqlgrade::uda
