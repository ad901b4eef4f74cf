// Spider 2.0-Lite adapter. See spider2.hpp and spec §4.1–4.3, §4.6.
#include "sqlgrade/spider2/run.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/str.hpp"

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
                 const RunOptions& opt, InstanceResult& out) {
  std::string err;
  out.score = score_against_golds(pred, golds, entry, single, &err);
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
          if (!compare_frames(pred, golds[i], *per[i], entry.ignore_order)) continue;
          for (auto& x : strict_findings(pred, golds[i], *per[i], entry.ignore_order))
            if (x.find("scrambled") != std::string::npos) out.strict.push_back(tag + x), out.strict_scrambled = true;
          break;  // the alternative the official rule accepted
        }
        if (compare_frames_value_sort(pred, golds[i], *per[i], entry.ignore_order)) {
          out.strict_sort_miss = true;
          for (auto& x : strict_findings(pred, golds[i], *per[i], entry.ignore_order))
            if (x.find("string-representation sort") != std::string::npos) out.strict.push_back(tag + x);
          break;
        }
      } catch (const std::exception&) {
        break;
      }
    }
  }
  if (opt.v2) {
    try {
      out.v2 = v2::compare_multi(pred, golds, entry.condition_cols, single);
    } catch (const std::exception& e) {
      out.v2 = v2::Result{};
      out.v2_error = std::string("Post-exec processing error: ") + e.what();
    }
  }
}

namespace {

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

std::string parent_of(const std::string& dir) {
  fs::path p(dir);
  if (!p.has_filename()) p = p.parent_path();  // trailing slash
  return (p.parent_path().empty() ? fs::path(".") : p.parent_path()).string();
}

}  // namespace

RunResult run(const RunOptions& opt) {
  const std::string eval_path = (fs::path(opt.gold_dir) / "spider2lite_eval.jsonl").string();
  auto entries = load_eval_jsonl(eval_path);
  const std::string exec_dir = (fs::path(opt.gold_dir) / "exec_result").string();
  auto gold_listing = sorted_listing(exec_dir, "gold exec_result");
  auto pred_listing = sorted_listing(opt.result_dir, "result");

  const std::string ext = opt.mode == Mode::Sql ? ".sql" : ".csv";
  std::vector<std::string> ids;
  RunResult rr;
  rr.n_gold_ids = entries.size();
  for (auto& f : pred_listing) {
    if (f.size() <= ext.size() || f.compare(f.size() - ext.size(), ext.size(), ext) != 0) continue;
    ++rr.n_pred_ids;
    std::string id = f.substr(0, f.size() - ext.size());
    if (entries.count(id)) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());

  std::map<std::string, std::string> dbs;
  std::string db_dir = opt.db_dir;
  if (opt.mode == Mode::Sql) {
    std::string meta = opt.meta_path.empty() ? (fs::path(parent_of(opt.gold_dir)) / "spider2-lite.jsonl").string()
                                             : opt.meta_path;
    bool need_meta = std::any_of(ids.begin(), ids.end(), [](const std::string& id) { return starts_with(id, "local"); });
    if (need_meta) dbs = load_db_map(meta);
    if (db_dir.empty()) db_dir = (fs::path(parent_of(opt.gold_dir)) / "databases").string();
  }

  rr.items.resize(ids.size());
  Progress progress(opt.mode == Mode::Sql ? "Evaluating SQL" : "Evaluating Exec Results", ids.size(), opt.progress);
  Limits limits;
  limits.timeout_s = opt.timeout_s;
  SqliteOptions sopt;
  sopt.text_decode = SqliteOptions::TextDecode::Error;  // Python's sqlite3 raises on invalid UTF-8
  sopt.empty_is_ok = false;                             // pandas read_sql_query fails without a result set

  parallel_for(
      ids.size(), resolve_jobs(opt.max_workers),
      [&](size_t k) {
        InstanceResult& out = rr.items[k];
        const std::string& id = ids[k];
        out.instance_id = id;
        const EvalEntry& entry = entries.at(id);
        const std::string pred_path = (fs::path(opt.result_dir) / (id + ext)).string();
        std::optional<Frame> pred;
        try {
          if (opt.mode == Mode::ExecResult) {
            pred = frame_from_csv_file(pred_path);
          } else {
            std::string sql = extract_sql_block(universal_newlines(read_file(pred_path)));
            out.pred_sql = sql;
            if (starts_with(id, "local")) {
              auto it = dbs.find(id);
              if (it == dbs.end()) throw std::runtime_error("no db for " + id + " in spider2-lite.jsonl");
              if (!is_plain_name(it->second))
                throw std::runtime_error("the db '" + it->second + "' of " + id + " in spider2-lite.jsonl is not a file name inside --db_dir");
              std::string db_path = (fs::path(db_dir) / (it->second + ".sqlite")).string();
              SqliteDb& db = SqlitePool::get(db_path, sopt);
              ExecResult er = db.execute(sql, limits);
              out.seconds = er.seconds;
              if (!er.ok()) throw std::runtime_error(er.error.empty() ? to_string(er.status) : er.error);
              out.result_csv = to_csv_text(er.table);
              pred = frame_from_csv_text(*out.result_csv, id + ".csv");
            } else if (starts_with(id, "bq") || starts_with(id, "ga")) {
              throw std::runtime_error("BigQuery instances cannot be run by sqlgrade (no BigQuery client)");
            } else {
              throw std::runtime_error("Unsupported instance id prefix: " + id);
            }
          }
        } catch (const std::exception& e) {
          out.score = 0;
          out.error_info = e.what();
          if (opt.mode == Mode::Sql) out.messages.push_back("[" + id + "] An error occurred: " + e.what());
          else out.error_info = std::string("Evaluation Error: ") + e.what();
          if (opt.v2) out.v2_error = std::string("Post-exec processing error: ") + e.what();
          progress.tick();
          return;
        }
        GoldFiles gf = resolve_gold_files(exec_dir, id, gold_listing);
        if (gf.paths.empty()) {
          out.score = 0;
          out.error_info = "No matching gold file found";
          if (opt.v2) out.v2_error = "No matching gold file found";
          progress.tick();
          return;
        }
        std::vector<Frame> golds;
        try {
          for (auto& p : gf.paths) golds.push_back(frame_from_csv_file(p));
        } catch (const std::exception& e) {
          out.score = 0;
          out.error_info = std::string("Evaluation Error: ") + e.what();
          if (opt.v2) out.v2_error = std::string("Post-exec processing error: ") + e.what();
          progress.tick();
          return;
        }
        grade_frame(*pred, golds, gf.single, entry, opt, out);
        progress.tick();
      },
      nullptr);
  progress.finish();
  rr.opt = opt;
  return rr;
}

}  // namespace sqlgrade::spider2
