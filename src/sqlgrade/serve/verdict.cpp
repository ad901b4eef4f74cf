#include "sqlgrade/serve/verdict.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/text.hpp"

#ifdef SQLGRADE_HAVE_SPIDER2
#include "sqlgrade/spider2/compare.hpp"
#endif
#ifdef SQLGRADE_HAVE_BIRD
#include "sqlgrade/bird/compare.hpp"
#endif

namespace sqlgrade::serve {

using json = nlohmann::json;
namespace fs = std::filesystem;
using BadRequest = RewardServer::BadRequest;

namespace {

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

const char* status_word(ExecStatus s) {
  switch (s) {
    case ExecStatus::Ok: return "ok";
    case ExecStatus::Error: return "error";
    case ExecStatus::Timeout: return "timeout";
    case ExecStatus::TooLarge: return "too large";
  }
  return "error";
}

ExecResult run(const std::string& path, const std::string& sql, const Limits& lim) {
  try {
    return SqlitePool::get(path).execute(sql, lim);
  } catch (const std::exception& e) {
    ExecResult r;
    r.status = ExecStatus::Error;
    r.error = e.what();
    return r;
  }
}

void pred_failure(Verdict& v, const ExecResult& r) {
  v.failure = r.status == ExecStatus::Timeout ? "timeout" : "execution_error";
  v.detail = std::string("prediction ") + status_word(r.status) + ": " + r.error;
}

}  // namespace

Judge::Judge(const ServerOptions& opt, GoldCache& cache) : opt_(opt), cache_(cache) {
  if (!opt_.spider2_gold_dir.empty()) load_official();
}

void Judge::load_official() {
  std::string path = (fs::path(opt_.spider2_gold_dir) / "spider2lite_eval.jsonl").string();
  if (!is_file(path)) throw InputError(path, "not found (--spider2-gold-dir needs spider2lite_eval.jsonl)");
  std::ifstream in(path);
  std::string line;
  long n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (trim(line).empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("instance_id") || !j["instance_id"].is_string())
      throw InputError(path, "not a JSON object with an instance_id", n);
    OfficialEntry e;
    e.condition_cols = j.value("condition_cols", json());
    auto io = j.find("ignore_order");
    e.ignore_order = io != j.end() && io->is_boolean() && io->get<bool>();
    official_[j["instance_id"].get<std::string>()] = e;
  }
}

const Judge::OfficialEntry* Judge::official_entry(const json& req) const {
  auto id = req.find("instance_id");
  if (official_.empty() || id == req.end() || !id->is_string()) return nullptr;
  auto it = official_.find(id->get<std::string>());
  return it == official_.end() ? nullptr : &it->second;
}

// Official gold CSVs of an instance: <id>.csv alone, else <id>_a.csv, <id>_b.csv, ... (sorted).
GoldPtr Judge::gold_from_dir(const std::string& id, bool* hit) {
  return cache_.get(gold_key({"golddir", opt_.spider2_gold_dir, id}), [&]() -> GoldPtr {
    auto d = std::make_shared<GoldData>();
    fs::path dir = fs::path(opt_.spider2_gold_dir) / "exec_result";
    std::vector<std::string> files;
    if (is_file(dir / (id + ".csv"))) {
      files.push_back((dir / (id + ".csv")).string());
      d->single_file = true;
    } else {
      std::error_code ec;
      for (auto& e : fs::directory_iterator(dir, ec)) {
        std::string f = e.path().filename().string();
        if (f.size() == id.size() + 6 && f.compare(0, id.size(), id) == 0 && f[id.size()] == '_' &&
            f[id.size() + 1] >= 'a' && f[id.size() + 1] <= 'z' && f.compare(id.size() + 2, 4, ".csv") == 0)
          files.push_back(e.path().string());
      }
      std::sort(files.begin(), files.end());
    }
    d->ok = !files.empty();
    if (files.empty()) d->error = "No matching gold file found for " + id;
#ifdef SQLGRADE_HAVE_SPIDER2
    for (auto& f : files) {
      try {
        d->frames.push_back(spider2::frame_from_csv_file(f));
      } catch (const std::exception& e) {
        d->ok = false;
        d->error = std::string("gold CSV unreadable: ") + e.what();
        d->transient = true;  // may be a full file table or an I/O error: read it again next time
        d->frames.clear();
        break;
      }
    }
#endif
    d->bytes = gold_bytes(*d);
    return d;
  }, hit);
}

Limits Judge::pred_limits() const { return Limits{opt_.timeout_s, opt_.max_rows, opt_.max_result_bytes}; }
Limits Judge::gold_limits() const {
  return Limits{opt_.gold_timeout_s > 0 ? opt_.gold_timeout_s : opt_.timeout_s, opt_.max_rows, opt_.max_result_bytes};
}

std::string Judge::db_path(Bench b, const std::string& db_id) const {
  if (!safe_db_id(db_id)) return "";
  fs::path dir = b == Bench::Spider2 ? opt_.db_dir : b == Bench::Spider ? opt_.spider_db_dir : opt_.bird_db_dir;
  fs::path flat = dir / (db_id + ".sqlite"), nested = dir / db_id / (db_id + ".sqlite");
  if (b == Bench::Spider2) {
    if (is_file(flat)) return flat.string();
    if (is_file(nested)) return nested.string();
  } else {
    if (is_file(nested)) return nested.string();
    if (is_file(flat)) return flat.string();
  }
  return "";
}

// Executes a gold query once per (benchmark, db, SQL) and keeps the result.
GoldPtr Judge::gold_from_sql(Bench b, const std::string& path, const std::string& gold_sql, bool* hit) {
  return cache_.get(gold_key({bench_name(b), path, gold_sql}), [&]() -> GoldPtr {
    auto d = std::make_shared<GoldData>();
    ExecResult r = run(path, gold_sql, gold_limits());
    if (!r.ok()) {
      d->transient = load_dependent(r);
      d->error = std::string("gold ") + status_word(r.status) + ": " + r.error;
    } else {
#ifdef SQLGRADE_HAVE_SPIDER2
      if (b == Bench::Spider2) {
        try {
          d->frames.push_back(spider2::frame_from_table(r.table));
          d->ok = true;
        } catch (const std::exception& e) {
          d->error = std::string("gold result cannot be read as the official CSV: ") + e.what();
        }
      }
#endif
      if (b != Bench::Spider2) {
        d->tables.push_back(std::move(r.table));
        d->ok = true;
      }
    }
    d->bytes = gold_bytes(*d);
    return d;
  }, hit);
}

// A Spider test-suite gold on one database file, through the same cache (spider::GoldSource).
std::shared_ptr<const ExecResult> Judge::spider_gold(const std::string& db_file, const std::string& query,
                                                     const std::function<ExecResult()>& execute, int* hits, int* misses) {
  bool hit = false;
  GoldPtr g = cache_.get(gold_key({"spider-testsuite", db_file, query}), [&]() -> GoldPtr {
    auto d = std::make_shared<GoldData>();
    d->exec = execute();
    d->ok = d->exec.ok();
    d->transient = load_dependent(d->exec);
    d->bytes = gold_bytes(*d);
    return d;
  }, &hit);
  ++*(hit ? hits : misses);
  return std::shared_ptr<const ExecResult>(g, &g->exec);
}

// gold_result rows converted once per distinct payload.
GoldPtr Judge::gold_from_rows(Bench b, const json& gold_result, bool* hit) {
  return cache_.get(gold_key({"rows", bench_name(b), dump(gold_result)}), [&]() -> GoldPtr {
    auto d = std::make_shared<GoldData>();
    std::vector<Table> tables = gold_tables(gold_result, b);
#ifdef SQLGRADE_HAVE_SPIDER2
    if (b == Bench::Spider2) {
      for (auto& t : tables) {
        try {
          d->frames.push_back(spider2::frame_from_table(t));
        } catch (const std::exception& e) {
          d->error = std::string("gold_result cannot be read as the official CSV: ") + e.what();
          d->frames.clear();
          d->bytes = gold_bytes(*d);
          return d;
        }
      }
      d->ok = true;
      d->bytes = gold_bytes(*d);
      return d;
    }
#endif
    d->tables = std::move(tables);
    d->ok = true;
    d->bytes = gold_bytes(*d);
    return d;
  }, hit);
}

Verdict Judge::judge(Bench b, const json& req, const std::string& db_id, const std::string& pred_sql) {
  Verdict v;
  const json* gold_sql = nullptr;
  if (auto it = req.find("gold_sql"); it != req.end() && it->is_string() && !it->get_ref<const std::string&>().empty())
    gold_sql = &*it;
  static const json kNull;
  auto gr_it = req.find("gold_result");
  const json& gold_result = gr_it != req.end() ? *gr_it : kNull;  // no copy of a large payload
  [[maybe_unused]] bool ignore_order = true;
  if (auto it = req.find("ignore_order"); it != req.end() && !it->is_null()) ignore_order = it->get<bool>();
  json condition_cols = req.contains("condition_cols") ? req["condition_cols"] : json();

#ifdef SQLGRADE_HAVE_SPIDER
  if (b == Bench::Spider && gold_sql) {
    std::call_once(spider_once_, [&] {
      try {
        spider::ExecOptions eo;
        eo.timeout_s = opt_.timeout_s;
        eo.gold_timeout_s = gold_limits().timeout_s;
        eo.max_rows = opt_.max_rows;
        eo.max_result_bytes = opt_.max_result_bytes;
        spider_eval_ = std::make_unique<spider::ExecEvaluator>(opt_.spider_db_dir, eo);
      } catch (const std::exception& e) {
        spider_init_error_ = e.what();
      }
    });
    if (!spider_eval_) throw std::runtime_error("spider evaluator unavailable: " + spider_init_error_);
    int hits = 0, misses = 0;
    spider::ExecVerdict ev = spider_eval_->evaluate(
        {db_id, gold_sql->get<std::string>(), pred_sql},
        [&](const std::string& db_file, const std::string& query, const std::function<ExecResult()>& execute) {
          return spider_gold(db_file, query, execute, &hits, &misses);
        });
    v.gold_cached = hits > 0 && misses == 0;
    v.match = ev.score == 1;
    v.failure = v.match ? "none" : ev.gold_error ? "gold_execution_error" : ev.timeout ? "timeout" : "execution_error";
    v.detail = ev.reason;
    return v;
  }
#endif
  std::string path = db_path(b, db_id);
  const OfficialEntry* off = nullptr;
  if (b == Bench::Spider2 && !gold_sql && (gold_result.is_null() || gold_result.empty())) {
    off = official_entry(req);
    if (!off) throw BadRequest("no gold: the request has neither gold_sql nor gold_result, and its instance_id is not in --spider2-gold-dir");
    ignore_order = off->ignore_order;
    condition_cols = off->condition_cols;
  }
  GoldPtr gold = gold_sql ? gold_from_sql(b, path, gold_sql->get<std::string>(), &v.gold_cached)
                 : off    ? gold_from_dir(req["instance_id"].get<std::string>(), &v.gold_cached)
                          : gold_from_rows(b, gold_result, &v.gold_cached);
  if (!gold->ok) {
    v.failure = "gold_execution_error";
    v.detail = gold->error;
    return v;
  }
  std::string sql = pred_sql;
#ifdef SQLGRADE_HAVE_SPIDER
  if (b == Bench::Spider) sql = spider::replace_cur_year(spider::postprocess_sql(sql));
#endif
  ExecResult pr = run(path, sql, pred_limits());
  if (!pr.ok()) {
    pred_failure(v, pr);
    return v;
  }
  switch (b) {
    case Bench::Spider2: {
#ifdef SQLGRADE_HAVE_SPIDER2
      spider2::Frame pf;
      try {
        pf = spider2::frame_from_table(pr.table);
      } catch (const std::exception& e) {
        v.detail = std::string("prediction result cannot be read as the official CSV: ") + e.what();
        return v;
      }
      spider2::EvalEntry entry;
      entry.instance_id = req.value("instance_id", json()).is_string() ? req["instance_id"].get<std::string>() : "";
      entry.condition_cols = condition_cols;
      entry.ignore_order = ignore_order;
      // gold_sql: one gold, graded like an official <id>.csv (a flat condition_cols is used whole),
      // except that a list of lists (one per alternative, as 10 of the 24 public-SQL tasks carry)
      // takes the multi-gold path, whose element 0 applies (NeMo Gym does the same).
      bool nested = condition_cols.is_array() &&
                    std::any_of(condition_cols.begin(), condition_cols.end(), [](const json& e) { return e.is_array(); });
      bool single = (gold_sql != nullptr && !nested) || gold->single_file;
      if (auto it = req.find("gold_single_file"); it != req.end() && it->is_boolean()) single = it->get<bool>();
      std::string err;
      int score = spider2::score_against_golds(pf, gold->frames, entry, single, &err);
      v.match = score == 1;
      if (!v.match) v.detail = err.empty() ? "result differs from the gold" : err;
#endif
      break;
    }
    case Bench::Spider: {
#ifdef SQLGRADE_HAVE_SPIDER
      for (auto& g : gold->tables)
        if (spider::result_eq(g, pr.table, !ignore_order)) v.match = true;
      if (!v.match) v.detail = "result differs from the gold";
#endif
      break;
    }
    case Bench::Bird: {
#ifdef SQLGRADE_HAVE_BIRD
      for (auto& g : gold->tables)
        if (bird::ex_match(pr.table, g)) v.match = true;
      if (!v.match) v.detail = "result differs from the gold";
#endif
      break;
    }
  }
  v.failure = v.match ? "none" : "execution_error";
  return v;
}

}  // namespace sqlgrade::serve
