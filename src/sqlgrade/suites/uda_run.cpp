// UDA driver, whole datasets: `uda run` (every result.csv of a results tree, in parallel) and
// `uda prepare` / `uda gold` (every statement of the query files).
#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include "sqlgrade/error.hpp"
#include "sqlgrade/judge/llm_trace.hpp"
#include "sqlgrade/util/fs.hpp"
#include "sqlgrade/util/parallel.hpp"
#include "sqlgrade/util/text.hpp"
#include "sqlgrade/suites/uda.hpp"

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

// A small pool of DuckDB connections shared by worker threads.
class ConnPool {
 public:
  explicit ConnPool(Dataset& ds) : ds_(ds) {}
  std::unique_ptr<DuckConn> get() {
    std::lock_guard<std::mutex> lk(mu_);
    if (free_.empty()) return ds_.connect();
    auto c = std::move(free_.back());
    free_.pop_back();
    return c;
  }
  void put(std::unique_ptr<DuckConn> c) {
    std::lock_guard<std::mutex> lk(mu_);
    free_.push_back(std::move(c));
  }

 private:
  Dataset& ds_;
  std::mutex mu_;
  std::vector<std::unique_ptr<DuckConn>> free_;
};

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
  e.reason = ev.reason;
  e.query_type = ev.gold.error.empty() || !ev.gold.plan.shape.select.empty() ? to_string(ev.gold.plan.shape.type) : "";
  if (ev.status == "ok") {
    e.macro_precision = ev.match.macro_precision;
    e.macro_recall = ev.match.macro_recall;
    e.macro_f1 = ev.match.macro_f1;
    e.len_gold = ev.match.len_gold;
    e.len_pred = ev.match.len_pred;
    e.matched_rows = ev.match.pairs.size();
    e.judge_questions = ev.match.judge_questions;
  }
}

}  // namespace

std::vector<DatasetSummary> run_datasets(const fs::path& dataset_dir, const fs::path& results_root,
                                         const RunOptions& opt, judge::Judge& jd) {
  std::vector<DatasetSummary> sums;
  std::error_code ec;
  if (!fs::is_directory(results_root, ec)) throw InputError(results_root.string(), "results folder not found");
  for (auto& dir : dataset_dirs(dataset_dir)) {
    Dataset ds(dir, opt.dataset);
    DatasetSummary sum;
    sum.dataset = ds.name();
    fs::path root = results_root / ds.name();
    if (!fs::is_directory(root, ec)) continue;
    // statements by relative folder, to find the SQL when a folder has no sql.json
    std::map<std::string, QueryItem> by_dir;
    std::vector<QueryItem> items = discover_queries(dir);
    for (auto& it : items) by_dir[it.rel_dir().generic_string()] = it;
    struct Job {
      fs::path folder;
      QueryItem item;
      std::string sql, error;
    };
    std::vector<Job> jobs;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied);
         it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file() || it->path().filename() != "result.csv") continue;
      if (it->path().parent_path().filename() == "acc_result") continue;
      Job job;
      job.folder = it->path().parent_path();
      std::string rel = fs::relative(job.folder, root).generic_string();
      auto found = by_dir.find(rel);
      if (found != by_dir.end()) {
        job.item = found->second;
      } else {
        auto parts = split(rel, "/");
        job.item.task = parts.size() > 0 ? parts[0] : "";
        job.item.file_stem = parts.size() > 1 ? parts[1] : "";
        job.item.stmt.index = parts.size() > 2 ? static_cast<int>(parse_int(parts[2]).value_or(0)) : 0;
      }
      fs::path sj = job.folder / "sql.json";
      if (fs::exists(sj)) {
        try {
          auto j = json::parse(read_file(sj));
          if (!j.is_object() || !j.contains("sql") || !j["sql"].is_string()) job.error = sj.string() + ": no \"sql\" string";
          else job.sql = j["sql"];
        } catch (const std::exception& e) {
          job.error = sj.string() + ": invalid JSON: " + e.what();
        }
      } else if (found != by_dir.end()) {
        job.sql = found->second.stmt.sql;
      } else {
        job.error = "no sql.json and no statement " + rel + " in the query files";
      }
      jobs.push_back(std::move(job));
    }
    std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
      return std::tie(a.item.task, a.item.file_stem, a.item.stmt.index) < std::tie(b.item.task, b.item.file_stem, b.item.stmt.index);
    });
    sum.queries.resize(jobs.size());
    Evaluator evaluator(ds, opt.eval, jd);
    ConnPool pool(ds);
    Progress progress("uda " + ds.name(), jobs.size(), opt.progress);
    parallel_for(jobs.size(), resolve_jobs(opt.jobs), [&](size_t i) {
      Job& job = jobs[i];
      RunEntry e = entry_for(ds.name(), job.item);
      e.path = (fs::path(ds.name()) / fs::relative(job.folder, root)).generic_string();
      if (!job.error.empty()) {
        e.status = "error";
        e.reason = job.error;
      } else {
        judge::QueryTrace trace(e.path);  // per-query judge counts (acc.json) and judge-log labels
        auto conn = pool.get();
        QueryEval ev = evaluator.evaluate(*conn, job.sql, job.folder / "result.csv");
        pool.put(std::move(conn));
        fill_entry(e, ev);
        try {
          write_query_outputs(job.folder / "acc_result", ev, opt.eval);
        } catch (const InputError& err) {
          e.status = "error";
          e.reason = std::string("cannot write outputs: ") + err.what();
        }
      }
      sum.queries[i] = e;
    }, &progress);
    progress.finish();
    write_file_atomic(root / "summary.json", sum.to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    write_file_atomic(root / "summary.csv", sum.to_csv());
    sums.push_back(std::move(sum));
  }
  return sums;
}

std::vector<DatasetSummary> prepare_datasets(const fs::path& dataset_dir, const fs::path& out_root, bool with_gold,
                                             const RunOptions& opt) {
  std::vector<DatasetSummary> sums;
  for (auto& dir : dataset_dirs(dataset_dir)) {
    Dataset ds(dir, opt.dataset);
    std::vector<QueryItem> items = discover_queries(dir);
    DatasetSummary sum;
    sum.dataset = ds.name();
    sum.queries.resize(items.size());
    judge::RulesJudge rules;
    Evaluator evaluator(ds, opt.eval, rules);
    ConnPool pool(ds);
    fs::path root = out_root / ds.name();
    Progress progress(std::string(with_gold ? "gold " : "prepare ") + ds.name(), items.size(), opt.progress);
    parallel_for(items.size(), resolve_jobs(opt.jobs), [&](size_t i) {
      const QueryItem& item = items[i];
      RunEntry e = entry_for(ds.name(), item);
      auto conn = pool.get();
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
          e.reason = g.error;
        } else {
          e.len_gold = g.table.size();
          write_file_atomic(folder / "gold_result.csv", table_to_csv(g.table));
          if (opt.gold_as_result) write_file_atomic(folder / "result.csv", table_to_csv(gold_as_result(g)));
        }
      }
      pool.put(std::move(conn));
      sum.queries[i] = e;
    }, &progress);
    progress.finish();
    if (with_gold) {
      json j = sum.to_json();
      json notes = ds.load_notes();
      j["load_notes"] = notes;
      write_file_atomic(root / "gold_summary.json", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }
    sums.push_back(std::move(sum));
  }
  return sums;
}

}  // namespace sqlgrade::uda
