// Writing run records and stamping the environment they were made in. See record.hpp.
#include <sqlite3.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <ctime>
#include <thread>

#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/digest.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/version.hpp"

namespace sqlgrade::runs {

const char* to_string(MetricKind k) { return k == MetricKind::Binary ? "binary" : "continuous"; }

const double* Instance::score(const std::string& metric) const {
  for (const auto& [m, v] : scores)
    if (m == metric) return &v;
  return nullptr;
}

const std::string* Instance::category_of(const std::string& axis) const {
  for (const auto& [a, v] : category)
    if (a == axis) return &v;
  return nullptr;
}

const MetricDef* RunRecord::metric(const std::string& name) const {
  for (const auto& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

namespace {

Json opt(const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); }
// "by" only for db shards: records of id shards read and hash as they did before --shard-by.
Json shard_json(const Shard& s) {
  Json j{{"index", s.index}, {"count", s.count}};
  if (s.by == ShardBy::Db) j["by"] = "db";
  return j;
}

// Moves the instance's JSON members (rows, columns, detail: most of a record's bytes) into the result.
Json instance_json(Instance&& in) {
  Json j;
  j["id"] = in.id;
  Json sc = Json::object();
  for (const auto& [m, v] : in.scores) sc[m] = v;
  j["scores"] = std::move(sc);
  Json cat = Json::object();
  for (const auto& [a, v] : in.category) cat[a] = v;
  j["category"] = std::move(cat);
  if (in.question) j["question"] = *in.question;
  j["gold_sql"] = opt(in.gold_sql);
  j["pred_sql"] = opt(in.pred_sql);
  if (in.failure_reason) j["failure_reason"] = *in.failure_reason;
  if (in.time_s) j["time_s"] = *in.time_s;
  if (!in.rows.is_null()) j["rows"] = std::move(in.rows);
  if (!in.columns.is_null()) j["columns"] = std::move(in.columns);
  if (!in.detail.is_null()) j["detail"] = std::move(in.detail);
  return j;
}

}  // namespace

Json to_json(const RunRecord& r) { return to_json(RunRecord(r)); }

// The record's instances are moved into the tree, not copied: a merged 10 x Spider dev record is ~12 MB,
// and each copy of its trees costs as much as reading it (`sqlgrade merge`, bench/ray_bench.py).
Json to_json(RunRecord&& r) {
  Json j;
  j["schema"] = kSchemaName;
  j["schema_version"] = r.schema_version;
  j["tool"] = Json{{"name", r.tool}, {"version", r.tool_version}};
  j["command"] = r.command;
  j["benchmark"] = r.benchmark;
  j["system"] = r.system;
  Json ms = Json::array();
  for (const auto& m : r.metrics) {
    Json e{{"name", m.name}, {"kind", to_string(m.kind)}};
    if (!m.label.empty()) e["label"] = m.label;
    ms.push_back(std::move(e));
  }
  j["metrics"] = std::move(ms);
  j["primary_metric"] = r.primary_metric;
  j["options"] = r.options.is_object() ? r.options : Json::object();
  Json ins = Json::array();
  for (const auto& in : r.inputs) ins.push_back(Json{{"role", in.role}, {"side", in.side}, {"path", in.path}, {"sha256", opt(in.sha256)}});
  j["inputs"] = std::move(ins);
  Json eng = Json::object();
  for (const auto& [k, v] : r.engines) eng[k] = v;
  j["engines"] = std::move(eng);
  j["timeout_s"] = r.timeout_s ? Json(*r.timeout_s) : Json(nullptr);
  j["machine"] = Json{{"host", r.machine.host}, {"os", r.machine.os}, {"cores", r.machine.cores}};
  j["started_at"] = r.started_at;
  j["wall_s"] = r.wall_s;
  if (r.shard) j["shard"] = shard_json(*r.shard);
  if (!r.merged_from.empty()) {
    Json mf = Json::array();
    for (const auto& p : r.merged_from)
      mf.push_back(Json{{"path", p.path}, {"sha256", p.sha256}, {"shard", shard_json(p.shard)}, {"host", p.host},
                        {"started_at", p.started_at}, {"wall_s", p.wall_s}, {"command", p.command}});
    j["merged_from"] = std::move(mf);
  }
  if (!r.category_axes.empty()) {
    Json ax = Json::array();
    for (const auto& a : r.category_axes) ax.push_back(Json{{"name", a.name}, {"values", a.values}});
    j["category_axes"] = std::move(ax);
  }
  j["warnings"] = r.warnings;
  j["summary"] = r.summary.is_object() ? std::move(r.summary) : Json::object();
  if (r.summary_text) j["summary_text"] = *r.summary_text;
  Json insts = Json::array();
  insts.get_ref<Json::array_t&>().reserve(r.instances.size());
  for (auto& in : r.instances) insts.push_back(instance_json(std::move(in)));
  r.instances.clear();
  j["instances"] = std::move(insts);
  return j;
}

std::string render_run_record(const RunRecord& r) { return render_run_record(RunRecord(r)); }

std::string render_run_record(RunRecord&& r) {
  return to_json(std::move(r)).dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

void write_run_record(const std::string& path, const RunRecord& r) { write_file_atomic(path, render_run_record(r)); }

// SOURCE_DATE_EPOCH (reproducible-builds.org): when set to a whole number of seconds, every timestamp
// sqlgrade writes (a record's started_at, a report's generated_at) is that instant, so two runs of the
// same command give byte-identical files; a value that is not a plain non-negative integer is ignored.
static std::time_t now_or_source_date_epoch() {
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH")) {
    const std::string_view v(e);
    long long secs = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), secs);
    if (!v.empty() && ec == std::errc() && end == v.data() + v.size() && secs >= 0) return static_cast<std::time_t>(secs);
  }
  return std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
}

std::string utc_now_iso8601() {
  std::time_t now = now_or_source_date_epoch();
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Machine this_machine() {
  Machine m;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  struct utsname u {};
  if (uname(&u) == 0) m.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  m.cores = std::thread::hardware_concurrency();
  return m;
}

void stamp_environment(RunRecord& r) {
  r.tool = "sqlgrade";
  r.tool_version = SQLGRADE_VERSION;
  r.machine = this_machine();
  r.started_at = utc_now_iso8601();
}

RunRecord begin_run_record(const std::string& benchmark, const std::string& started_at, double wall_s,
                           const std::vector<std::string>& command) {
  RunRecord r;
  stamp_environment(r);
  if (!started_at.empty()) r.started_at = started_at;
  r.wall_s = wall_s;
  r.command = command;
  r.benchmark = benchmark;
  return r;
}

InputRef input_ref(const std::string& role, const std::string& side, const std::string& path, HashInputs hash) {
  InputRef in{role, side, path, std::nullopt};
  std::error_code ec;
  if (hash != HashInputs::None && std::filesystem::is_regular_file(path, ec))
    in.sha256 = sha256_file(path);
  else if (hash == HashInputs::FilesAndFolders && std::filesystem::is_directory(path, ec))
    in.sha256 = sha256_path(path);
  return in;
}

std::string sqlite_version() { return sqlite3_libversion(); }

Json rows_json(const ResultRows& gold, const ResultRows& pred) {
  if (!gold.present && !pred.present) return Json();
  Json r = Json::object();
  bool truncated = false;
  for (const auto& [side, rr] : {std::pair<std::string, const ResultRows*>{"gold", &gold}, {"pred", &pred}}) {
    if (!rr->present) continue;
    Json rows = Json::array();
    for (const auto& row : rr->rows) {
      Json cells = Json::array();
      for (const auto& c : row) cells.push_back(c ? Json(*c) : Json(nullptr));
      rows.push_back(std::move(cells));
    }
    r[side] = std::move(rows);
    r[side + "_columns"] = rr->columns;
    r[side + "_total"] = rr->total_rows;
    truncated = truncated || rr->cut();
  }
  r["truncated"] = truncated;
  return r;
}

}  // namespace sqlgrade::runs

namespace sqlgrade::runs {

void note_clock(RunRecord& r, const std::string& now) {
  if (!now.empty()) r.options["now"] = sql_clock::canonical(now, "--now");
}

}  // namespace sqlgrade::runs
