#include "sqlgrade/suites/reward_server.hpp"

#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <list>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/error.hpp"
#include "sqlgrade/util/parallel.hpp"
#include "sqlgrade/util/text.hpp"

#ifdef SQLGRADE_HAVE_SPIDER2
#include "sqlgrade/compare/spider2.hpp"
#endif
#ifdef SQLGRADE_HAVE_SPIDER
#include "sqlgrade/compare/testsuite.hpp"
#endif
#ifdef SQLGRADE_HAVE_BIRD
#include "sqlgrade/compare/bird.hpp"
#endif

namespace sqlgrade::reward {

using json = nlohmann::json;
namespace fs = std::filesystem;
using BadRequest = RewardServer::BadRequest;

enum class Bench { Spider2, Spider, Bird };

bool benchmark_available(std::string_view b) {
  if (b == "spider2") {
#ifdef SQLGRADE_HAVE_SPIDER2
    return true;
#endif
  } else if (b == "spider") {
#ifdef SQLGRADE_HAVE_SPIDER
    return true;
#endif
  } else if (b == "bird") {
#ifdef SQLGRADE_HAVE_BIRD
    return true;
#endif
  }
  return false;
}

namespace {

const char* bench_name(Bench b) {
  switch (b) {
    case Bench::Spider2: return "spider2";
    case Bench::Spider: return "spider";
    case Bench::Bird: return "bird";
  }
  return "spider2";
}

Bench parse_bench(const json& req) {
  auto it = req.find("benchmark");
  if (it == req.end() || it->is_null()) return Bench::Spider2;
  if (!it->is_string()) throw BadRequest("`benchmark` must be a string: spider2, spider or bird");
  std::string b = to_lower(it->get_ref<const std::string&>());
  if (b == "spider2" || b == "spider2_lite" || b == "spider2-lite" || b == "spider2lite") return Bench::Spider2;
  if (b == "spider" || b == "testsuite" || b == "test-suite") return Bench::Spider;
  if (b == "bird") return Bench::Bird;
  throw BadRequest("unknown benchmark '" + b + "' (expected spider2, spider or bird)");
}

// A db_id names a file below the database folder and nothing else.
bool safe_db_id(const std::string& s) {
  if (s.empty() || s.size() > 255 || s[0] == '.') return false;
  for (char c : s)
    if (c == '/' || c == '\\' || c == '\0') return false;
  return true;
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

size_t table_bytes(const Table& t) {
  size_t b = sizeof(Table);
  for (auto& c : t.columns) b += c.size() + sizeof(std::string);
  for (auto& r : t.rows) {
    b += sizeof(Row) + r.size() * sizeof(Value);
    for (auto& v : r) b += v.s.size();
  }
  return b;
}

#ifdef SQLGRADE_HAVE_SPIDER2
size_t frame_bytes(const spider2::Frame& f) {
  size_t b = sizeof(spider2::Frame);
  for (auto& c : f.columns) {
    b += sizeof(spider2::Column) + c.name.size() + c.cells.size() * sizeof(spider2::Cell);
    for (auto& x : c.cells) b += x.s.size();
  }
  return b;
}
#endif

// A gold result (or the reason there is none), shared by every request that needs it.
struct GoldData {
  bool ok = false;
  bool timeout = false;
  std::string error;
  std::vector<Table> tables;  // spider / bird alternatives
#ifdef SQLGRADE_HAVE_SPIDER2
  std::vector<spider2::Frame> frames;  // spider2 alternatives
#endif
  bool single_file = false;  // official gold folder: <id>.csv (single) rather than <id>_a.csv, ...
  size_t bytes = 0;
};
using GoldPtr = std::shared_ptr<const GoldData>;

// LRU cache of gold results bounded by entries and bytes. Concurrent requests for the same missing
// key wait for one computation. Timeouts are not cached (they depend on load).
class GoldCache {
 public:
  GoldCache(size_t max_entries, size_t max_bytes) : max_entries_(max_entries), max_bytes_(max_bytes) {}

  GoldPtr get(const std::string& key, const std::function<GoldPtr()>& compute, bool* hit) {
    std::unique_lock<std::mutex> lk(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      auto fut = it->second.fut;
      lk.unlock();
      ++hits_;
      if (hit) *hit = true;
      return fut.get();
    }
    std::promise<GoldPtr> promise;
    auto fut = promise.get_future().share();
    lru_.push_front(key);
    map_.emplace(key, Entry{fut, lru_.begin(), 0, false});
    lk.unlock();
    ++misses_;
    if (hit) *hit = false;
    GoldPtr g;
    try {
      g = compute();
    } catch (const std::exception& e) {
      auto d = std::make_shared<GoldData>();
      d->error = std::string("internal error: ") + e.what();
      g = d;
    }
    promise.set_value(g);
    lk.lock();
    it = map_.find(key);
    if (it != map_.end() && it->second.fut.valid()) {
      if (g->timeout || max_entries_ == 0) {
        lru_.erase(it->second.lru);
        map_.erase(it);
      } else {
        it->second.bytes = g->bytes;
        it->second.ready = true;
        bytes_ += g->bytes;
        evict_locked();
      }
    }
    return g;
  }

  size_t entries() const {
    std::lock_guard<std::mutex> lk(mu_);
    return map_.size();
  }
  size_t bytes() const {
    std::lock_guard<std::mutex> lk(mu_);
    return bytes_;
  }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Entry {
    std::shared_future<GoldPtr> fut;
    std::list<std::string>::iterator lru;
    size_t bytes = 0;
    bool ready = false;
  };
  void evict_locked() {
    while ((map_.size() > max_entries_ || bytes_ > max_bytes_) && !lru_.empty()) {
      auto it = map_.find(lru_.back());
      if (it != map_.end()) {
        bytes_ -= it->second.bytes;
        map_.erase(it);
      }
      lru_.pop_back();
    }
  }
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> map_;
  std::list<std::string> lru_;
  size_t bytes_ = 0;
  size_t max_entries_, max_bytes_;
  std::atomic<uint64_t> hits_{0}, misses_{0};
};

// Fixed worker threads with a bounded queue: at most `workers` tasks run, at most `max_queue` wait.
class Executor {
 public:
  Executor(unsigned workers, size_t max_queue) : max_queue_(max_queue) {
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { loop(); });
    workers_ = workers;
  }
  ~Executor() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // false when the queue is full (the caller answers 503).
  bool try_submit(std::function<void()> fn) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (stop_ || pending_ >= workers_ + max_queue_) return false;
      ++pending_;
      q_.push_back(std::move(fn));
    }
    cv_.notify_one();
    return true;
  }
  size_t pending() const {
    std::lock_guard<std::mutex> lk(mu_);
    return pending_;
  }
  // Frees the slot of a finished task (so a caller that saw the result can submit again at once).
  void release() {
    std::lock_guard<std::mutex> lk(mu_);
    --pending_;
  }

 private:
  void loop() {
    while (true) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || !q_.empty(); });
        if (q_.empty()) return;
        fn = std::move(q_.front());
        q_.pop_front();
      }
      fn();  // the task calls release() itself, before it publishes its result
    }
  }
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> q_;
  std::vector<std::thread> threads_;
  size_t workers_ = 0, max_queue_ = 0, pending_ = 0;
  bool stop_ = false;
};

// A JSON cell of gold_result as the value Python's sqlite3/csv path would hold.
Value json_to_value(const json& v, Bench b) {
  switch (v.type()) {
    case json::value_t::null: return Value::null();
    case json::value_t::boolean:
      // Python bool: prints "True"/"False" into the official CSV (spider2), equals 1/0 elsewhere.
      if (b == Bench::Spider2) return Value::text(v.get<bool>() ? "True" : "False");
      return Value::integer(v.get<bool>() ? 1 : 0);
    case json::value_t::number_integer: return Value::integer(v.get<int64_t>());
    case json::value_t::number_unsigned: {
      uint64_t u = v.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return Value::integer(static_cast<int64_t>(u));
      return Value::real(static_cast<double>(u));
    }
    case json::value_t::number_float: return Value::real(v.get<double>());
    case json::value_t::string: return Value::text(v.get<std::string>());
    default: return Value::text(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

// gold_result: [alternative][row][cell] -> one Table per alternative (columns c0..; short rows padded).
std::vector<Table> gold_tables(const json& gr, Bench b) {
  if (!gr.is_array() || gr.empty()) throw BadRequest("`gold_result` must be a non-empty list of result sets");
  std::vector<Table> out;
  for (size_t a = 0; a < gr.size(); ++a) {
    const json& alt = gr[a];
    if (!alt.is_array()) throw BadRequest("`gold_result[" + std::to_string(a) + "]` must be a list of rows");
    size_t width = 0;
    for (auto& row : alt) {
      if (!row.is_array()) throw BadRequest("`gold_result[" + std::to_string(a) + "]` holds a row that is not a list");
      width = std::max(width, row.size());
    }
    Table t;
    for (size_t c = 0; c < std::max<size_t>(width, 1); ++c) t.columns.push_back("c" + std::to_string(c));
    for (auto& row : alt) {
      Row r;
      for (auto& cell : row) r.push_back(json_to_value(cell, b));
      while (r.size() < width) r.push_back(Value::null());
      if (width) t.rows.push_back(std::move(r));
    }
    out.push_back(std::move(t));
  }
  return out;
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

struct Verdict {
  bool match = false;
  std::string failure = "execution_error";  // none / no_sql_extracted / execution_error / gold_execution_error / timeout
  std::string detail;
  bool gold_cached = false;
};

// Deepest nesting of arrays/objects in a JSON text (strings skipped). nlohmann's parser is iterative,
// but copying and dumping a value recurse: a hostile body of 10^6 '[' would overflow the stack.
size_t json_depth(std::string_view s) {
  size_t depth = 0, max_depth = 0;
  bool in_str = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return max_depth;
}
constexpr size_t kMaxJsonDepth = 256;

void set_bool_opt(const json& o, const char* key, bool& dst) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return;
  if (!it->is_boolean()) throw BadRequest(std::string("`extract.") + key + "` must be a boolean");
  dst = it->get<bool>();
}

}  // namespace

std::string model_text(const json& req) {
  auto it = req.find("response");
  if (it == req.end() || it->is_null()) {
    auto mo = req.find("model_output");
    if (mo != req.end() && mo->is_string()) return mo->get<std::string>();
    throw BadRequest("request has no `response` (OpenAI Responses object) and no `model_output` string");
  }
  const json& r = *it;
  if (r.is_string()) return r.get<std::string>();
  if (!r.is_object()) throw BadRequest("`response` must be an object");
  std::string text;
  auto out = r.find("output");
  if (out != r.end() && out->is_array()) {
    for (auto& item : *out) {
      if (!item.is_object() || item.value("type", "") != "message") continue;
      auto content = item.find("content");
      if (content == item.end() || !content->is_array()) continue;
      for (auto& c : *content) {
        if (!c.is_object() || c.value("type", "") != "output_text") continue;
        auto t = c.find("text");
        if (t != c.end() && t->is_string()) text += t->get_ref<const std::string&>();
      }
    }
  } else {
    auto ot = r.find("output_text");
    if (ot != r.end() && ot->is_string()) text = ot->get<std::string>();
  }
  return text;
}

double pass_at_k(size_t n, size_t c, size_t k) {
  if (k == 0 || n == 0 || k > n) return std::nan("");
  if (n - c < k) return 1.0;
  double prod = 1.0;
  for (size_t i = n - c + 1; i <= n; ++i) prod *= 1.0 - static_cast<double>(k) / static_cast<double>(i);
  return 1.0 - prod;
}

json aggregate(const json& responses) {
  if (!responses.is_array()) throw BadRequest("`verify_responses` must be a list");
  struct Group {
    json key;
    json instance_id;
    size_t n = 0, correct = 0;
    double reward_sum = 0;
  };
  std::map<std::string, Group> groups;  // ordered: numeric task indices sort as zero-padded strings
  std::map<std::string, size_t> failures;
  double reward_sum = 0;
  size_t pos = 0;
  for (auto& r : responses) {
    if (!r.is_object()) throw BadRequest("verify_responses[" + std::to_string(pos) + "] is not an object");
    auto rw = r.find("reward");
    if (rw == r.end() || !rw->is_number())
      throw BadRequest("verify_responses[" + std::to_string(pos) + "] has no numeric `reward`");
    double reward = rw->get<double>();
    json key;
    std::string sort_key;
    if (auto t = r.find("_ng_task_index"); t != r.end() && t->is_number_integer()) {
      key = *t;
      char buf[32];
      std::snprintf(buf, sizeof buf, "0:%020lld", static_cast<long long>(t->get<int64_t>()) + (1LL << 62));
      sort_key = buf;
    } else if (auto id = r.find("instance_id"); id != r.end() && id->is_string()) {
      key = *id;
      sort_key = "1:" + id->get<std::string>();
    } else {
      key = pos;
      char buf[32];
      std::snprintf(buf, sizeof buf, "2:%020zu", pos);
      sort_key = buf;
    }
    Group& g = groups[sort_key];
    g.key = key;
    if (auto id = r.find("instance_id"); id != r.end()) g.instance_id = *id;
    g.n++;
    if (reward > 0) g.correct++;
    g.reward_sum += reward;
    reward_sum += reward;
    if (auto fr = r.find("failure_reason"); fr != r.end() && fr->is_string()) failures[fr->get<std::string>()]++;
    ++pos;
  }
  size_t kmax = 0;
  for (auto& [_, g] : groups) kmax = std::max(kmax, g.n);
  std::vector<size_t> ks;
  for (size_t k = 1; k <= kmax; k *= 2) ks.push_back(k);
  if (kmax && ks.back() != kmax) ks.push_back(kmax);

  json out;
  out["group_level_metrics"] = json::array();
  double avg_of_k = 0;
  for (auto& [_, g] : groups) {
    json m;
    m["task"] = g.key;
    if (!g.instance_id.is_null()) m["instance_id"] = g.instance_id;
    m["num_rollouts"] = g.n;
    m["num_correct"] = g.correct;
    m["mean/reward"] = g.reward_sum / static_cast<double>(g.n);
    m["pass@" + std::to_string(g.n)] = g.correct > 0 ? 1.0 : 0.0;
    out["group_level_metrics"].push_back(m);
    avg_of_k += static_cast<double>(g.correct) / static_cast<double>(g.n);
  }
  json agent;
  agent["num_tasks"] = groups.size();
  agent["num_rollouts"] = pos;
  agent["mean/reward"] = pos ? reward_sum / static_cast<double>(pos) : 0.0;
  agent["pass@1[avg-of-k]"] = groups.empty() ? 0.0 : avg_of_k / static_cast<double>(groups.size());
  for (size_t k : ks) {
    double sum = 0;
    size_t tasks = 0;
    for (auto& [_, g] : groups) {
      if (g.n < k) continue;
      sum += pass_at_k(g.n, g.correct, k);
      ++tasks;
    }
    agent["pass@" + std::to_string(k)] = tasks ? sum / static_cast<double>(tasks) : 0.0;
  }
  for (auto& [reason, n] : failures) agent["failure_reason/" + reason] = n;
  out["agent_metrics"] = agent;
  json key;
  key["mean/reward"] = agent["mean/reward"];
  key["pass@1[avg-of-k]"] = agent["pass@1[avg-of-k]"];
  if (kmax) key["pass@" + std::to_string(kmax)] = agent["pass@" + std::to_string(kmax)];
  out["key_metrics"] = key;
  return out;
}

// ------------------------------------------------------------------------------------------------

struct RewardServer::Impl {
  ServerOptions opt;
  GoldCache cache;
  Executor exec;
  std::atomic<uint64_t> verifies{0}, rejected{0}, bad{0};
  std::atomic<size_t> inflight{0};
#ifdef SQLGRADE_HAVE_SPIDER
  std::once_flag spider_once;
  std::unique_ptr<spider::ExecEvaluator> spider_eval;
  std::string spider_init_error;
#endif

  struct OfficialEntry {
    json condition_cols;
    bool ignore_order = false;
  };
  std::unordered_map<std::string, OfficialEntry> official;  // spider2lite_eval.jsonl of spider2_gold_dir

  explicit Impl(const ServerOptions& o)
      : opt(o), cache(o.gold_cache_entries, o.gold_cache_bytes), exec(o.max_concurrency, o.max_queue) {
    if (!opt.spider2_gold_dir.empty()) load_official();
  }

  void load_official() {
    std::string path = (fs::path(opt.spider2_gold_dir) / "spider2lite_eval.jsonl").string();
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
      official[j["instance_id"].get<std::string>()] = e;
    }
  }

  const OfficialEntry* official_entry(const json& req) const {
    auto id = req.find("instance_id");
    if (official.empty() || id == req.end() || !id->is_string()) return nullptr;
    auto it = official.find(id->get<std::string>());
    return it == official.end() ? nullptr : &it->second;
  }

  // Official gold CSVs of an instance: <id>.csv alone, else <id>_a.csv, <id>_b.csv, ... (sorted).
  GoldPtr gold_from_dir(const std::string& id, bool* hit) {
    return cache.get("golddir\x1f" + id, [&]() -> GoldPtr {
      auto d = std::make_shared<GoldData>();
      fs::path dir = fs::path(opt.spider2_gold_dir) / "exec_result";
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
      if (files.empty()) {
        d->error = "No matching gold file found for " + id;
        return d;
      }
#ifdef SQLGRADE_HAVE_SPIDER2
      for (auto& f : files) {
        try {
          d->frames.push_back(spider2::frame_from_csv_file(f));
        } catch (const std::exception& e) {
          d->error = std::string("gold CSV unreadable: ") + e.what();
          return d;
        }
        d->bytes += frame_bytes(d->frames.back());
      }
#endif
      d->ok = true;
      return d;
    }, hit);
  }

  Limits pred_limits() const { return Limits{opt.timeout_s, opt.max_rows, opt.max_result_bytes}; }
  Limits gold_limits() const {
    return Limits{opt.gold_timeout_s > 0 ? opt.gold_timeout_s : opt.timeout_s, opt.max_rows, opt.max_result_bytes};
  }

  // Database file of db_id for a benchmark, or "" when there is none.
  std::string db_path(Bench b, const std::string& db_id) const {
    if (!safe_db_id(db_id)) return "";
    fs::path dir = b == Bench::Spider2 ? opt.db_dir : b == Bench::Spider ? opt.spider_db_dir : opt.bird_db_dir;
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

  static ExecResult run(const std::string& path, const std::string& sql, const Limits& lim) {
    try {
      return SqlitePool::get(path).execute(sql, lim);
    } catch (const std::exception& e) {
      ExecResult r;
      r.status = ExecStatus::Error;
      r.error = e.what();
      return r;
    }
  }

  // Executes a gold query once per (benchmark, db, SQL) and keeps the result.
  GoldPtr gold_from_sql(Bench b, const std::string& path, const std::string& gold_sql, bool* hit) {
    std::string key = std::string(bench_name(b)) + '\x1f' + path + '\x1f' + gold_sql;
    return cache.get(key, [&]() -> GoldPtr {
      auto d = std::make_shared<GoldData>();
      ExecResult r = run(path, gold_sql, gold_limits());
      if (!r.ok()) {
        d->timeout = r.status == ExecStatus::Timeout;
        d->error = std::string("gold ") + status_word(r.status) + ": " + r.error;
        d->bytes = d->error.size();
        return d;
      }
#ifdef SQLGRADE_HAVE_SPIDER2
      if (b == Bench::Spider2) {
        try {
          d->frames.push_back(spider2::frame_from_table(r.table));
          d->bytes = frame_bytes(d->frames.back());
        } catch (const std::exception& e) {
          d->error = std::string("gold result cannot be read as the official CSV: ") + e.what();
          return d;
        }
        d->ok = true;
        return d;
      }
#endif
      d->bytes = table_bytes(r.table);
      d->tables.push_back(std::move(r.table));
      d->ok = true;
      return d;
    }, hit);
  }

  // gold_result rows converted once per distinct payload.
  GoldPtr gold_from_rows(Bench b, const json& gold_result, bool* hit) {
    std::string key = std::string("rows:") + bench_name(b) + '\x1f' + gold_result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return cache.get(key, [&]() -> GoldPtr {
      auto d = std::make_shared<GoldData>();
      std::vector<Table> tables = gold_tables(gold_result, b);
#ifdef SQLGRADE_HAVE_SPIDER2
      if (b == Bench::Spider2) {
        for (auto& t : tables) {
          try {
            d->frames.push_back(spider2::frame_from_table(t));
          } catch (const std::exception& e) {
            d->error = std::string("gold_result cannot be read as the official CSV: ") + e.what();
            return d;
          }
          d->bytes += frame_bytes(d->frames.back());
        }
        d->ok = true;
        return d;
      }
#endif
      for (auto& t : tables) d->bytes += table_bytes(t);
      d->tables = std::move(tables);
      d->ok = true;
      return d;
    }, hit);
  }

  static void pred_failure(Verdict& v, const ExecResult& r) {
    v.failure = r.status == ExecStatus::Timeout ? "timeout" : "execution_error";
    v.detail = std::string("prediction ") + status_word(r.status) + ": " + r.error;
  }

  Verdict judge(Bench b, const json& req, const std::string& db_id, const std::string& pred_sql) {
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
      std::call_once(spider_once, [&] {
        try {
          spider::ExecOptions eo;
          eo.timeout_s = opt.timeout_s;
          spider_eval = std::make_unique<spider::ExecEvaluator>(opt.spider_db_dir, eo);
        } catch (const std::exception& e) {
          spider_init_error = e.what();
        }
      });
      if (!spider_eval) throw std::runtime_error("spider evaluator unavailable: " + spider_init_error);
      spider::ExecVerdict ev = spider_eval->evaluate({db_id, gold_sql->get<std::string>(), pred_sql});
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
};

RewardServer::RewardServer(ServerOptions opt) : opt_(std::move(opt)) {
  if (opt_.max_concurrency == 0) opt_.max_concurrency = resolve_jobs(0);
  if (opt_.spider_db_dir.empty()) opt_.spider_db_dir = opt_.db_dir;
  if (opt_.bird_db_dir.empty()) opt_.bird_db_dir = opt_.db_dir;
  impl_ = std::make_unique<Impl>(opt_);
}

RewardServer::~RewardServer() = default;

json RewardServer::verify_json(const json& req) {
  if (!req.is_object()) throw BadRequest("the request body must be a JSON object");
  Bench b = parse_bench(req);
  if (!benchmark_available(bench_name(b)))
    throw BadRequest(std::string("benchmark not available in this build: ") + bench_name(b));

  auto db = req.find("db_id");
  if (db == req.end() || !db->is_string()) throw BadRequest("`db_id` (string) is required");
  const std::string& db_id = db->get_ref<const std::string&>();

  bool has_gold_sql = false, has_gold_result = false;
  if (auto it = req.find("gold_sql"); it != req.end() && !it->is_null()) {
    if (!it->is_string()) throw BadRequest("`gold_sql` must be a string");
    has_gold_sql = !it->get_ref<const std::string&>().empty();
  }
  if (auto it = req.find("gold_result"); it != req.end() && !it->is_null()) {
    if (!it->is_array()) throw BadRequest("`gold_result` must be a list of result sets");
    has_gold_result = !it->empty();
  }
  if (!has_gold_sql && !has_gold_result && !(b == Bench::Spider2 && impl_->official_entry(req)))
    throw BadRequest(impl_->official.empty()
                         ? "the request needs `gold_sql` or `gold_result`"
                         : "the request needs `gold_sql`, `gold_result` or an instance_id of --spider2-gold-dir");
  if (auto it = req.find("ignore_order"); it != req.end() && !it->is_null() && !it->is_boolean())
    throw BadRequest("`ignore_order` must be a boolean");
  if (auto it = req.find("condition_cols"); it != req.end() && !it->is_null() && !it->is_array() &&
                                               !it->is_number_integer())
    throw BadRequest("`condition_cols` must be null, a list of column indices or a list of such lists");
  if (!has_gold_sql && has_gold_result) {  // shape check only; rows are converted once, on a cache miss
    const json& gr = req["gold_result"];
    for (size_t a = 0; a < gr.size(); ++a) {
      if (!gr[a].is_array()) throw BadRequest("`gold_result[" + std::to_string(a) + "]` must be a list of rows");
      for (auto& row : gr[a])
        if (!row.is_array())
          throw BadRequest("`gold_result[" + std::to_string(a) + "]` holds a row that is not a list");
    }
  }

  if (impl_->db_path(b, db_id).empty()) {
#ifdef SQLGRADE_HAVE_SPIDER
    bool spider_dir_ok = b == Bench::Spider && safe_db_id(db_id) && fs::is_directory(fs::path(opt_.spider_db_dir) / db_id);
#else
    bool spider_dir_ok = false;
#endif
    if (!spider_dir_ok) throw BadRequest("unknown db_id '" + db_id + "' (no database file for it under the database folder)");
  }

  sql::ExtractOptions xo = opt_.extract;
  if (auto it = req.find("extract"); it != req.end() && !it->is_null()) {
    if (!it->is_object()) throw BadRequest("`extract` must be an object");
    set_bool_opt(*it, "word_boundary", xo.word_boundary);
    set_bool_opt(*it, "tags_and_json", xo.tags_and_json);
    set_bool_opt(*it, "raw_fallback", xo.raw_fallback);
  }

  std::string text = model_text(req);

  json resp = req;
  for (const char* f : {"db_id", "question", "gold_sql", "gold_result", "ignore_order", "condition_cols"}) resp.erase(f);

  Verdict v;
  sql::Extracted ex = sql::extract_sql(text, xo);
  if (!ex.sql) {
    v.failure = "no_sql_extracted";
    v.detail = text.empty() ? "empty model output" : "no SQL found in the model output";
  } else {
    v = impl_->judge(b, req, db_id, *ex.sql);
  }
  impl_->verifies++;

  resp["reward"] = v.match ? 1.0 : 0.0;
  resp["db_id"] = db_id;
  resp["question"] = req.contains("question") ? req["question"] : json("");
  resp["model_output"] = text;
  resp["execution_match"] = v.match;
  resp["gold_sql"] = has_gold_sql ? req["gold_sql"] : json();
  resp["extracted_sql"] = ex.sql ? json(*ex.sql) : json();
  resp["failure_reason"] = v.failure;
  resp["failure_detail"] = v.detail;
  resp["extraction_source"] = sql::to_string(ex.source);
  resp["benchmark"] = bench_name(b);
  resp["gold_cached"] = v.gold_cached;
  return resp;
}

Reply RewardServer::verify(std::string_view body) {
  auto handle = [this, body]() -> Reply {
    impl_->inflight++;
    struct Dec {
      std::atomic<size_t>& n;
      ~Dec() { n--; }
    } dec{impl_->inflight};
    try {
      if (json_depth(body) > kMaxJsonDepth) throw BadRequest("JSON nested deeper than 256 levels");
      json req = json::parse(body);
      return Reply{200, verify_json(req).dump(-1, ' ', false, json::error_handler_t::replace)};
    } catch (const json::parse_error& e) {
      impl_->bad++;
      return Reply{400, json{{"error", std::string("invalid JSON: ") + e.what()}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
    } catch (const BadRequest& e) {
      impl_->bad++;
      return Reply{400, json{{"error", e.what()}}.dump(-1, ' ', false, json::error_handler_t::replace)};
    } catch (const json::exception& e) {
      impl_->bad++;
      return Reply{400, json{{"error", std::string("bad request field: ") + e.what()}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
    } catch (const std::exception& e) {
      return Reply{500, json{{"error", std::string("internal error: ") + e.what()}}.dump(
                            -1, ' ', false, json::error_handler_t::replace)};
    }
  };
  auto promise = std::make_shared<std::promise<Reply>>();
  auto fut = promise->get_future();
  if (!impl_->exec.try_submit([this, handle, promise] {
        Reply r;
        try {
          r = handle();
        } catch (...) {
          r = Reply{500, R"({"error":"internal error"})"};
        }
        impl_->exec.release();
        promise->set_value(std::move(r));
      })) {
    impl_->rejected++;
    return Reply{503, R"({"error":"server busy: the verify queue is full, retry later"})"};
  }
  return fut.get();
}

Reply RewardServer::aggregate_metrics(std::string_view body) {
  try {
    if (json_depth(body) > kMaxJsonDepth) throw BadRequest("JSON nested deeper than 256 levels");
    json req = json::parse(body);
    const json& list = req.is_array() ? req : req.is_object() && req.contains("verify_responses") ? req["verify_responses"]
                                                                                                  : json();
    if (list.is_null()) throw BadRequest("expected {\"verify_responses\": [...]}");
    return Reply{200, aggregate(list).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
  } catch (const json::parse_error& e) {
    return Reply{400, json{{"error", std::string("invalid JSON: ") + e.what()}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
  } catch (const std::exception& e) {
    return Reply{400, json{{"error", e.what()}}.dump(-1, ' ', false, json::error_handler_t::replace)};
  }
}

ServerStats RewardServer::stats() const {
  ServerStats s;
  s.verifies = impl_->verifies;
  s.rejected_busy = impl_->rejected;
  s.bad_requests = impl_->bad;
  s.gold_cache_hits = impl_->cache.hits();
  s.gold_cache_misses = impl_->cache.misses();
  s.gold_cache_entries = impl_->cache.entries();
  s.gold_cache_bytes = impl_->cache.bytes();
  s.inflight = impl_->inflight;
  return s;
}

Reply RewardServer::health() const {
  ServerStats s = stats();
  json j;
  j["status"] = "ok";
  j["version"] = SQLGRADE_VERSION;
  j["benchmarks"] = {{"spider2", benchmark_available("spider2")},
                     {"spider", benchmark_available("spider")},
                     {"bird", benchmark_available("bird")}};
  j["max_concurrency"] = opt_.max_concurrency;
  j["max_queue"] = opt_.max_queue;
  j["timeout_s"] = opt_.timeout_s;
  j["spider2_gold_instances"] = impl_->official.size();
  j["pending"] = impl_->exec.pending();
  j["verifies"] = s.verifies;
  j["rejected_busy"] = s.rejected_busy;
  j["bad_requests"] = s.bad_requests;
  j["gold_cache"] = {{"entries", s.gold_cache_entries},
                     {"bytes", s.gold_cache_bytes},
                     {"hits", s.gold_cache_hits},
                     {"misses", s.gold_cache_misses}};
  return Reply{200, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

// ------------------------------------------------------------------------------------------------
// HTTP front end (cpp-httplib).

namespace {

// Connection queue for httplib with a bound: when `max_pending` accepted connections wait for a
// thread, the accept loop blocks, so further clients wait in the kernel's listen backlog instead of
// in our memory.
class BoundedTaskQueue : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(size_t threads, size_t max_pending) : max_pending_(max_pending) {
    for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
  }
  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lk(mu_);
    space_.wait(lk, [&] { return jobs_.size() < max_pending_ || shutdown_; });
    jobs_.push_back(std::move(fn));
    lk.unlock();
    work_.notify_one();
  }
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      shutdown_ = true;
    }
    work_.notify_all();
    space_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void loop() {
    while (true) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lk(mu_);
        work_.wait(lk, [&] { return shutdown_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      space_.notify_one();
      fn();
    }
  }
  std::mutex mu_;
  std::condition_variable work_, space_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t max_pending_;
  bool shutdown_ = false;
};

volatile std::sig_atomic_t g_signal_stop = 0;
extern "C" void on_stop_signal(int) { g_signal_stop = 1; }

}  // namespace

int serve_http(RewardServer& server, const HttpOptions& http, const std::function<void(int)>& on_listening,
               std::atomic<bool>* stop_flag) {
  const ServerOptions& so = server.options();
  size_t threads = http.http_threads ? http.http_threads : so.max_concurrency + so.max_queue + 4;
  threads = std::clamp<size_t>(threads, 2, 1024);

  // SIGINT/SIGTERM only raise a flag (async-signal-safe); a watcher thread turns it into stop().
  struct sigaction old_int {}, old_term {};
  if (http.handle_signals) {
    g_signal_stop = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }

  httplib::Server svr;
  svr.new_task_queue = [threads] { return new BoundedTaskQueue(threads, threads); };
  svr.set_payload_max_length(http.max_body_bytes);
  svr.set_tcp_nodelay(true);  // header and body go out in separate writes: avoid Nagle + delayed-ACK stalls (40 ms)
  svr.set_keep_alive_max_count(1000);
  svr.set_keep_alive_timeout(2);
  svr.set_read_timeout(30, 0);
  svr.set_write_timeout(30, 0);

  auto send = [](httplib::Response& res, const Reply& r) {
    res.status = r.status;
    if (r.status == 503) res.set_header("Retry-After", "1");
    res.set_content(r.body, "application/json");
  };
  svr.Post("/verify", [&](const httplib::Request& req, httplib::Response& res) { send(res, server.verify(req.body)); });
  svr.Post("/aggregate_metrics",
           [&](const httplib::Request& req, httplib::Response& res) { send(res, server.aggregate_metrics(req.body)); });
  svr.Get("/health", [&](const httplib::Request&, httplib::Response& res) { send(res, server.health()); });
  svr.Post("/seed_session", [&](const httplib::Request&, httplib::Response& res) { send(res, Reply{200, "{}"}); });
  svr.Get("/reverify_mode", [&](const httplib::Request&, httplib::Response& res) {
    send(res, Reply{200, R"({"reverify_mode":"stateless"})"});
  });
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string msg = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      msg += std::string(": ") + e.what();
    } catch (...) {
    }
    res.status = 500;
    res.set_content(json{{"error", msg}}.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
  });
  if (http.log_requests)
    svr.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      std::fprintf(stderr, "%s %s %d\n", req.method.c_str(), req.path.c_str(), res.status);
    });

  int port = http.port;
  if (port == 0) {
    port = svr.bind_to_any_port(http.host.c_str());
    if (port < 0) throw std::runtime_error("cannot bind " + http.host + " to a free port");
  } else if (!svr.bind_to_port(http.host.c_str(), port)) {
    throw std::runtime_error("cannot bind " + http.host + ":" + std::to_string(port) + " (in use?)");
  }

  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done) {
      if (stop_flag && *stop_flag) break;
      if (http.handle_signals && g_signal_stop) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // stop() is a no-op until listen_after_bind() runs: repeat until the listen loop has returned.
    while (!done) {
      svr.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  if (on_listening) on_listening(port);
  svr.listen_after_bind();
  done = true;
  watcher.join();
  if (http.handle_signals) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
  return 0;
}

}  // namespace sqlgrade::reward
