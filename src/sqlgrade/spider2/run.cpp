// Spider 2.0-Lite adapter. See spider2.hpp and spec §4.1–4.3, §4.6.
#include "sqlgrade/spider2/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <set>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/core/json.hpp"

namespace sqlgrade::spider2 {

namespace {

template <class F>
void for_each_json_line(const std::string& path, F&& f) {
  std::string text = read_file(path);
  strip_bom(text);
  long line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    ++line_no;
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    if (trim_view(line).empty()) continue;
    nlohmann::json j;
    check_json_depth(line, path, line_no);
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      throw InputError(path, std::string("invalid JSON: ") + e.what(), line_no);
    }
    if (!j.is_object() || !j.contains("instance_id") || !j["instance_id"].is_string())
      throw InputError(path, "expected an object with a string \"instance_id\"", line_no);
    f(j, line_no);
  }
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Python's text-mode open(): "\r\n" and "\r" read as "\n".
std::string universal_newlines(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r') {
      out += '\n';
      if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::map<std::string, EvalEntry> load_eval_jsonl(const std::string& path) {
  std::map<std::string, EvalEntry> out;
  for_each_json_line(path, [&](const nlohmann::json& j, long line) {
    EvalEntry e;
    e.instance_id = j["instance_id"].get<std::string>();
    e.condition_cols = j.contains("condition_cols") ? j["condition_cols"] : nlohmann::json();
    if (j.contains("ignore_order")) {
      const auto& io = j["ignore_order"];
      if (io.is_boolean()) e.ignore_order = io.get<bool>();
      else if (io.is_number()) e.ignore_order = io.get<double>() != 0;
      else if (!io.is_null()) throw InputError(path, "ignore_order must be a boolean", line);
    }
    out[e.instance_id] = std::move(e);  // a later line wins, as with a Python dict
  });
  return out;
}

std::map<std::string, std::string> load_db_map(const std::string& path) {
  std::map<std::string, std::string> out;
  for_each_json_line(path, [&](const nlohmann::json& j, long) {
    if (j.contains("db") && j["db"].is_string()) out[j["instance_id"].get<std::string>()] = j["db"].get<std::string>();
  });
  return out;
}

GoldFiles resolve_gold_files(const std::string& dir, const std::string& id, const std::vector<std::string>& listing) {
  GoldFiles g;
  const std::string single = id + ".csv";
  if (std::binary_search(listing.begin(), listing.end(), single)) {
    g.single = true;
    g.paths.push_back((fs::path(dir) / single).string());
    return g;
  }
  // ^<id>(_[a-z])?\.csv$ , sorted by name (listing is sorted).
  for (auto& f : listing) {
    if (f.size() != id.size() + 6 || !starts_with(f, id)) continue;
    if (f[id.size()] == '_' && f[id.size() + 1] >= 'a' && f[id.size() + 1] <= 'z' && f.substr(id.size() + 2) == ".csv")
      g.paths.push_back((fs::path(dir) / f).string());
  }
  return g;
}

std::string extract_sql_block(const std::string& text) {
  // Python: re.search(r"```sql\n(.*?)\n```", text, re.DOTALL) -> group(1).strip(); else the text.
  size_t open = text.find("```sql\n");
  while (open != std::string::npos) {
    size_t body = open + 7;
    // The lazy group may be empty ("```sql\n\n```"); the closing "\n```" cannot reuse the opening newline.
    size_t close = text.find("\n```", body);
    if (close != std::string::npos) return py::strip(std::string_view(text).substr(body, close - body));
    open = text.find("```sql\n", open + 1);
  }
  return text;
}

void grade_frame(const Frame& pred, const std::vector<Frame>& golds, bool single, const EvalEntry& entry,
                 const Options& opt, Instance& out, const Deadline& deadline) {
  std::string err;
  out.score = score_against_golds(pred, golds, entry, single, &err, deadline);
  if (out.score == 1) out.error_info.reset();
  else out.error_info = err.empty() ? "Result Error" : err;
  if (opt.strict && err.empty()) {
    // Findings against the alternatives with the condition_cols the official rule used.
    std::vector<std::optional<nlohmann::json>> per;
    if (single) per.assign(1, entry.condition_cols);
    else per = resolve_condition_cols(entry.condition_cols, golds.size());
    for (size_t i = 0; i < golds.size() && per[i]; ++i) {
      std::string tag = golds.size() > 1 ? "gold alternative " + std::string(1, static_cast<char>('a' + i)) + ": " : "";
      try {
        if (out.score == 1) {
          if (!compare_frames(pred, golds[i], *per[i], entry.ignore_order, deadline)) continue;
          for (auto& x : strict_findings(pred, golds[i], *per[i], entry.ignore_order, deadline))
            if (x.find("scrambled") != std::string::npos) out.strict.push_back(tag + x), out.strict_scrambled = true;
          break;  // the alternative the official rule accepted
        }
        if (compare_frames_value_sort(pred, golds[i], *per[i], entry.ignore_order, deadline)) {
          out.strict_sort_miss = true;
          for (auto& x : strict_findings(pred, golds[i], *per[i], entry.ignore_order, deadline))
            if (x.find("string-representation sort") != std::string::npos) out.strict.push_back(tag + x);
          break;
        }
      } catch (const DeadlineExceeded&) {
        throw;
      } catch (const std::exception&) {
        break;
      }
    }
  }
  if (opt.v2) {
    try {
      out.v2 = v2::compare_multi(pred, golds, entry.condition_cols, single, deadline);
    } catch (const DeadlineExceeded&) {
      throw;
    } catch (const std::exception& e) {
      out.v2 = v2::Result{};
      out.v2_error = std::string("Post-exec processing error: ") + e.what();
    }
  }
}

namespace {

std::string parent_of(const std::string& dir) {
  fs::path p(dir);
  if (!p.has_filename()) p = p.parent_path();  // trailing slash
  return (p.parent_path().empty() ? fs::path(".") : p.parent_path()).string();
}

}  // namespace

std::vector<std::string> sorted_listing(const std::string& dir, const std::string& what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, what + " directory not found");
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) || e.is_symlink(ec)) names.push_back(e.path().filename().string());
  if (ec) throw InputError(dir, "cannot list directory: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

std::string default_meta_path(const Options& opt) {
  if (!opt.meta_path.empty()) return opt.meta_path;
  return (fs::path(parent_of(opt.gold_dir)) / "spider2-lite.jsonl").string();
}

std::string default_db_dir(const Options& opt) {
  if (!opt.db_dir.empty()) return opt.db_dir;
  return (fs::path(parent_of(opt.gold_dir)) / "databases").string();
}

namespace {

// The outcome of one distinct (database, SQL) execution, shared by every system that predicted it.
struct ExecOut {
  bool ok = false;
  std::string error, csv;
  double seconds = 0;
  double budget_s = INFINITY;  // what the query's deadline leaves for reading and comparing its result
};

// One (system, instance) pair to grade.
struct Job {
  size_t sys = 0, k = 0;  // system, index of the instance in its run
  std::string id;
  std::optional<std::string> error;  // failed before execution (unreadable file, no db, BigQuery)
  std::string db_path;               // sql mode, local: the database the statement (pred_sql) runs on
  std::shared_ptr<const ExecOut> exec;  // its execution, shared with the jobs that run the same
};

// The gold alternatives of one id, read once for every system.
struct Gold {
  GoldFiles files;
  std::vector<Frame> frames;
  std::optional<std::string> error;
};

// The message of a prediction stopped by its deadline after the engine returned (the engine's own
// message for a query timeout reads "timeout after <s> s").
std::string timeout_message(const Options& opt, const char* during) {
  return "timeout after " + std::to_string(opt.timeout_s) + " s (" + during + ")";
}

std::string too_large_message(const std::string& what, size_t max_bytes) {
  return "result too large: " + what + " (--max-result-mb " + std::to_string(max_bytes >> 20) + ")";
}

// An exec_result prediction, read whole unless it is larger than the result bound.
Frame read_prediction_csv(const std::string& path, const Options& opt) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size > opt.max_result_bytes)
    throw ResultTooLarge(path + " is " + std::to_string(size) + " bytes, more than the result limit of " +
                         std::to_string(opt.max_result_bytes) + " bytes");
  return frame_from_csv_text(read_file(path, std::min(opt.max_result_bytes, max_input_bytes())), path);
}

void fail(Instance& out, const Options& opt, const std::string& what) {
  out.score = 0;
  out.error_info = what;
  if (opt.mode == Mode::Sql) out.messages.push_back("[" + out.instance_id + "] An error occurred: " + what);
  else out.error_info = "Evaluation Error: " + what;
  if (opt.v2) out.v2_error = "Post-exec processing error: " + what;
}

// Step 2 of run_many for one distinct (database, SQL): the query, then its result as the CSV text the
// official script writes. The query's deadline starts here and also bounds the conversion; what it
// leaves bounds reading and comparing the result in step 4.
ExecOut execute_one(const std::string& db_path, const std::string& sql, const Options& opt, const Limits& limits,
                    const SqliteOptions& sopt) {
  ExecOut o;
  try {
    const Deadline deadline = Deadline::in(opt.timeout_s);
    ExecResult er = SqlitePool::lease(db_path, sopt)->execute(sql, limits);
    o.seconds = er.seconds;
    if (!er.ok()) {
      o.error = er.error.empty() ? to_string(er.status) : er.error;
      return o;
    }
    o.csv = to_csv_text(std::move(er.table), deadline, opt.max_result_bytes);
    o.ok = true;
    o.budget_s = deadline.remaining_s();
  } catch (const DeadlineExceeded&) {
    o.error = timeout_message(opt, "converting the result");
  } catch (const ResultTooLarge& e) {
    o.error = too_large_message(e.what(), opt.max_result_bytes);
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

// The prediction of a job as a frame (the CSV file, or the query's CSV text with the deadline it has
// left, set in `deadline`); std::nullopt once `it` has failed with the reason.
std::optional<Frame> prediction_frame(const Job& j, const std::string& pred_path, const Options& opt, Instance& it,
                                      Deadline& deadline) {
  try {
    if (opt.mode == Mode::ExecResult) return read_prediction_csv(pred_path, opt);
    const ExecOut& o = *j.exec;
    it.seconds = o.seconds;
    if (!o.ok) {
      fail(it, opt, o.error);
      return std::nullopt;
    }
    if (std::isfinite(o.budget_s)) deadline = Deadline::in(std::max(o.budget_s, 1e-6));
    return frame_from_csv_text(o.csv, j.id + ".csv", deadline);
  } catch (const DeadlineExceeded&) {
    fail(it, opt, timeout_message(opt, "reading the result"));
  } catch (const ResultTooLarge& e) {
    fail(it, opt, too_large_message(e.what(), opt.max_result_bytes));
  } catch (const std::exception& e) {
    fail(it, opt, e.what());
  }
  return std::nullopt;
}

// Step 4 for one (system, instance).
void grade_job(const Job& j, const std::string& pred_path, const Gold& g, const EvalEntry& entry, const Options& opt,
               Instance& it) {
  if (j.error) return fail(it, opt, *j.error);
  Deadline deadline;
  const std::optional<Frame> pred = prediction_frame(j, pred_path, opt, it, deadline);
  if (!pred) return;
  if (g.files.paths.empty()) {
    it.score = 0;
    it.error_info = "No matching gold file found";
    if (opt.v2) it.v2_error = "No matching gold file found";
  } else if (g.error) {
    it.score = 0;
    it.error_info = "Evaluation Error: " + *g.error;
    if (opt.v2) it.v2_error = "Post-exec processing error: " + *g.error;
  } else {
    try {
      grade_frame(*pred, g.frames, g.files.single, entry, opt, it, deadline);
    } catch (const DeadlineExceeded&) {
      // Nothing of a verdict that did not finish is kept.
      it.strict.clear();
      it.strict_scrambled = it.strict_sort_miss = false;
      it.v2 = v2::Result{};
      it.v2_error.reset();
      fail(it, opt, timeout_message(opt, "comparing the result"));
    }
  }
}

// What the steps of one run_many call share: the gold side (read once), every system's run and the
// jobs — one per (system, instance).
struct Batch {
  const Options& opt;
  const std::vector<std::string>& result_dirs;
  std::string ext, exec_dir;
  std::map<std::string, EvalEntry> entries;
  std::vector<std::string> gold_listing;
  std::vector<Run> out;
  std::vector<Job> jobs;
  std::set<std::string> all_ids;
  std::map<std::string, std::string> dbs;  // instance id → database name
  unsigned workers = 1;
  std::string pred_path(const Job& j) const { return (fs::path(result_dirs[j.sys]) / (j.id + ext)).string(); }
  Instance& instance(const Job& j) { return out[j.sys].items[j.k]; }
};

// inputs → items: every system's predicted ids that the gold knows (and the shard keeps).
void list_jobs(Batch& b) {
  const std::optional<runs::Shard> shard = runs::shard_spec(b.opt.shard, b.opt.shard_by);
  // --shard-by db: each id's database (spider2-lite.jsonl beside the gold) before the ids are kept.
  if (shard && shard->by == runs::ShardBy::Db) b.dbs = load_db_map(default_meta_path(b.opt));
  auto keep = [&](const std::string& id) {
    if (!shard) return true;
    auto d = b.dbs.find(id);
    return runs::in_shard(*shard, id, d == b.dbs.end() ? std::string_view() : std::string_view(d->second));
  };
  const std::string& ext = b.ext;
  b.out.resize(b.result_dirs.size());
  for (size_t s = 0; s < b.result_dirs.size(); ++s) {
    auto pred_listing = sorted_listing(b.result_dirs[s], "result");
    Run& rr = b.out[s];
    rr.opt = b.opt;
    rr.opt.result_dir = b.result_dirs[s];
    rr.n_gold_ids = b.entries.size();
    std::vector<std::string> ids;
    for (auto& f : pred_listing) {
      if (f.size() <= ext.size() || f.compare(f.size() - ext.size(), ext.size(), ext) != 0) continue;
      ++rr.n_pred_ids;
      std::string id = f.substr(0, f.size() - ext.size());
      if (!b.entries.count(id)) ++rr.n_unpaired;
      else if (keep(id)) ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (const auto& e : b.entries)
      if (keep(e.first)) ++rr.n_missing;
    rr.n_missing -= ids.size();
    rr.items.resize(ids.size());
    for (size_t k = 0; k < ids.size(); ++k) {
      rr.items[k].instance_id = ids[k];
      b.all_ids.insert(ids[k]);
      Job j;
      j.sys = s;
      j.k = k;
      j.id = ids[k];
      b.jobs.push_back(std::move(j));
    }
  }
}

// The database of each instance: needed to run local ids in sql mode; otherwise, when the metadata
// file is there, only the run record's "db" category (a bad file is then not an error).
void load_dbs(Batch& b) {
  const std::string meta = default_meta_path(b.opt);
  const bool need_meta = b.opt.mode == Mode::Sql && std::any_of(b.all_ids.begin(), b.all_ids.end(), [](const std::string& id) {
                           return starts_with(id, "local");
                         });
  if (need_meta) {
    b.dbs = load_db_map(meta);
    return;
  }
  std::error_code ec;
  if (fs::is_regular_file(meta, ec)) try {
      b.dbs = load_db_map(meta);
    } catch (const std::exception&) {
      b.dbs.clear();
    }
}

// Step 1, sql mode: read the prediction, extract the statement and find its database (exec_result
// mode reads each CSV when it is graded, so that only the workers' frames are in memory at once).
void resolve_sql(const Batch& b, const std::string& db_dir, Job& j, Instance& it) {
  try {
    it.pred_sql = extract_sql_block(universal_newlines(read_file(b.pred_path(j))));
    if (starts_with(j.id, "local")) {
      auto d = b.dbs.find(j.id);
      if (d == b.dbs.end()) throw std::runtime_error("no db for " + j.id + " in spider2-lite.jsonl");
      if (!is_plain_name(d->second))
        throw std::runtime_error("the db '" + d->second + "' of " + j.id +
                                 " in spider2-lite.jsonl is not a file name inside --db_dir");
      j.db_path = (fs::path(db_dir) / (d->second + ".sqlite")).string();
    } else if (starts_with(j.id, "bq") || starts_with(j.id, "ga")) {
      throw std::runtime_error("BigQuery instances cannot be run by sqlgrade (no BigQuery client)");
    } else {
      throw std::runtime_error("Unsupported instance id prefix: " + j.id);
    }
  } catch (const std::exception& e) {
    j.error = e.what();
  }
}

// Steps 1-2, sql mode: each distinct (database, SQL) runs once, whichever systems predicted it
// (exec::GoldMemo, single flight). Returns how many statements ran.
size_t execute_sql(Batch& b) {
  const std::string db_dir = default_db_dir(b.opt);
  exec::for_each(b.jobs.size(), b.workers, nullptr, [&](size_t k) { resolve_sql(b, db_dir, b.jobs[k], b.instance(b.jobs[k])); });
  Limits limits;
  limits.timeout_s = b.opt.timeout_s;
  limits.max_bytes = b.opt.max_result_bytes;
  SqliteOptions sopt;
  sopt.text_decode = SqliteOptions::TextDecode::Error;  // Python's sqlite3 raises on invalid UTF-8
  sopt.empty_is_ok = false;                             // pandas read_sql_query fails without a result set
  exec::GoldMemo<ExecOut> execs;
  std::vector<size_t> todo;
  for (size_t k = 0; k < b.jobs.size(); ++k)
    if (!b.jobs[k].error && !b.jobs[k].db_path.empty()) todo.push_back(k);
  if (todo.empty()) return 0;
  Progress progress("Evaluating SQL", todo.size(), b.opt.progress);
  exec::for_each(todo.size(), b.workers, &progress, [&](size_t t) {
    Job& j = b.jobs[todo[t]];
    const std::string& sql = *b.instance(j).pred_sql;
    j.exec = execs.get(j.db_path, sql, [&] { return execute_one(j.db_path, sql, b.opt, limits, sopt); });
  });
  progress.finish();
  return execs.executions();
}

// Step 3: the gold alternatives of every id any system predicted, read once.
std::vector<Gold> read_golds(const Batch& b, const std::vector<std::string>& gold_ids) {
  return exec::run_each<Gold>(gold_ids.size(), b.workers, nullptr, [&](size_t k) {
    Gold g;
    g.files = resolve_gold_files(b.exec_dir, gold_ids[k], b.gold_listing);
    try {
      for (auto& p : g.files.paths) g.frames.push_back(frame_from_csv_file(p));
    } catch (const std::exception& e) {
      g.error = e.what();
    }
    return g;
  });
}

// Step 4: grade every (system, instance); then the CSV each executed instance would write.
void grade_all(Batch& b) {
  std::vector<std::string> gold_ids(b.all_ids.begin(), b.all_ids.end());
  const std::vector<Gold> golds = read_golds(b, gold_ids);
  Progress progress(b.opt.mode == Mode::Sql ? "Grading" : "Evaluating Exec Results", b.jobs.size(), b.opt.progress);
  exec::for_each(b.jobs.size(), b.workers, &progress, [&](size_t k) {
    const Job& j = b.jobs[k];
    Instance& it = b.instance(j);
    auto dbit = b.dbs.find(j.id);
    if (dbit != b.dbs.end()) it.db = dbit->second;
    const size_t g = static_cast<size_t>(std::lower_bound(gold_ids.begin(), gold_ids.end(), j.id) - gold_ids.begin());
    grade_job(j, b.pred_path(j), golds[g], b.entries.at(j.id), b.out[j.sys].opt, it);
  });
  progress.finish();
  for (auto& j : b.jobs)
    if (j.exec && j.exec->ok) b.instance(j).result_csv = j.exec->csv;
}

}  // namespace

// inputs (gold folder, every result folder) → jobs (system, instance) → sql mode: each distinct
// statement executed once → gold alternatives read once → every job graded (exec::for_each).
std::vector<Run> run_many(const Options& opt, const std::vector<std::string>& result_dirs) {
  Batch b{opt, result_dirs, opt.mode == Mode::Sql ? ".sql" : ".csv", (fs::path(opt.gold_dir) / "exec_result").string(),
          load_eval_jsonl((fs::path(opt.gold_dir) / "spider2lite_eval.jsonl").string()), {}, {}, {}, {}, {}, 1};
  b.gold_listing = sorted_listing(b.exec_dir, "gold exec_result");
  list_jobs(b);
  load_dbs(b);
  b.workers = resolve_jobs(opt.max_workers);
  const size_t executed = opt.mode == Mode::Sql ? execute_sql(b) : 0;
  grade_all(b);
  for (auto& r : b.out) r.n_executed = executed;
  return std::move(b.out);
}

}  // namespace sqlgrade::spider2
