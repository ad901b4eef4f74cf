// Reading and validating run records. Mirrors docs/run-record.schema.json (tests check that both
// accept and reject the same records); every error names the file and the JSON path.
#include <cmath>
#include <set>
#include <unordered_set>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/json.hpp"

namespace sqlgrade::runs {

namespace {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw InputError(file_, (path.empty() ? std::string() : path + ": ") + msg);
  }

  const Json& field(const Json& obj, const std::string& path, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(path, std::string("missing required field \"") + key + "\"");
    return *it;
  }
  const Json* optional(const Json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }
  Json* mutable_field(Json& obj, const char* key) const { return const_cast<Json*>(optional(obj, key)); }
  static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

  void only_keys(const Json& obj, const std::string& path, std::initializer_list<const char*> keys) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool known = false;
      for (const char* k : keys) known = known || it.key() == k;
      if (!known) fail(path, "unknown field \"" + it.key() + "\"");
    }
  }
  const Json& object(const Json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected an object");
    return v;
  }
  const Json& array(const Json& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "expected an array");
    return v;
  }
  std::string string(const Json& v, const std::string& path, bool non_empty = false) const {
    if (!v.is_string()) fail(path, "expected a string");
    std::string s = v.get<std::string>();
    if (non_empty && s.empty()) fail(path, "must not be empty");
    return s;
  }
  double number(const Json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, "expected a number");
    double d = v.get<double>();
    if (!std::isfinite(d)) fail(path, "expected a finite number");
    return d;
  }
  long long integer(const Json& v, const std::string& path) const {
    if (!v.is_number_integer()) fail(path, "expected an integer");
    return v.get<long long>();
  }
  std::optional<std::string> opt_string(const Json& obj, const std::string& path, const char* key) const {
    const Json* v = optional(obj, key);
    if (!v) return std::nullopt;
    return string(*v, join(path, key));
  }
  std::vector<std::string> strings(const Json& v, const std::string& path) const {
    std::vector<std::string> out;
    for (size_t i = 0; i < array(v, path).size(); ++i) out.push_back(string(v[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }
  Shard shard(const Json& v, const std::string& path) const {
    object(v, path);
    only_keys(v, path, {"index", "count", "by"});
    Shard s;
    if (const Json* by = optional(v, "by")) {
      const std::string b = string(*by, join(path, "by"));
      if (b != "id" && b != "db") fail(join(path, "by"), "must be \"id\" or \"db\"");
      s.by = b == "db" ? ShardBy::Db : ShardBy::Id;
    }
    long long n = integer(field(v, path, "count"), join(path, "count"));
    long long i = integer(field(v, path, "index"), join(path, "index"));
    if (n < 1 || n > 1000000) fail(join(path, "count"), "must be between 1 and 1000000");
    if (i < 1 || i > n) fail(join(path, "index"), "must be between 1 and count");
    s.index = static_cast<int>(i), s.count = static_cast<int>(n);
    return s;
  }

  void rows(const Json& v, const std::string& path) const {
    object(v, path);
    only_keys(v, path, {"gold", "pred", "truncated", "gold_columns", "pred_columns", "gold_total", "pred_total"});
    for (const char* side : {"gold", "pred"}) {
      const Json* t = optional(v, side);
      if (!t) continue;
      std::string p = join(path, side);
      for (size_t r = 0; r < array(*t, p).size(); ++r) {
        std::string pr = p + "[" + std::to_string(r) + "]";
        for (const Json& cell : array((*t)[r], pr))
          if (cell.is_structured()) fail(pr, "a cell must be a string, number, boolean or null");
      }
    }
    if (const Json* t = optional(v, "truncated"); t && !t->is_boolean()) fail(join(path, "truncated"), "expected true or false");
    for (const char* k : {"gold_columns", "pred_columns"})
      if (const Json* c = optional(v, k)) strings(*c, join(path, k));
    for (const char* k : {"gold_total", "pred_total"})
      if (const Json* c = optional(v, k); c && integer(*c, join(path, k)) < 0) fail(join(path, k), "must be >= 0");
  }

  void columns(const Json& v, const std::string& path) const {
    object(v, path);
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string p = join(path, it.key());
      object(*it, p);
      only_keys(*it, p, {"precision", "recall", "f1"});
      for (const char* k : {"precision", "recall", "f1"}) number(field(*it, p, k), join(p, k));
    }
  }

  // The rows, columns and detail trees are moved out of `v` once checked (most of a record's bytes).
  Instance instance(Json& v, const std::string& path, const RunRecord& r) const {
    object(v, path);
    only_keys(v, path, {"id", "scores", "category", "pred_sql", "gold_sql", "question", "failure_reason", "time_s",
                        "rows", "columns", "detail"});
    Instance in;
    in.id = string(field(v, path, "id"), join(path, "id"), true);
    const std::string sp = join(path, "scores");
    const Json& sc = object(field(v, path, "scores"), sp);
    for (auto it = sc.begin(); it != sc.end(); ++it) {
      const MetricDef* m = r.metric(it.key());
      if (!m) fail(join(sp, it.key()), "metric not declared in \"metrics\"");
      double d = number(*it, join(sp, it.key()));
      if (m->kind == MetricKind::Binary && d != 0 && d != 1) fail(join(sp, it.key()), "binary metric must be 0 or 1");
      in.scores.emplace_back(it.key(), d);
    }
    if (const Json* c = optional(v, "category")) {
      const std::string cp = join(path, "category");
      for (auto it = object(*c, cp).begin(); it != c->end(); ++it)
        in.category.emplace_back(it.key(), string(*it, join(cp, it.key())));
    }
    in.pred_sql = opt_string(v, path, "pred_sql");
    in.gold_sql = opt_string(v, path, "gold_sql");
    in.question = opt_string(v, path, "question");
    in.failure_reason = opt_string(v, path, "failure_reason");
    if (const Json* t = optional(v, "time_s")) {
      in.time_s = number(*t, join(path, "time_s"));
      if (*in.time_s < 0) fail(join(path, "time_s"), "must be >= 0");
    }
    if (Json* t = mutable_field(v, "rows")) rows(*t, join(path, "rows")), in.rows = std::move(*t);
    if (Json* t = mutable_field(v, "columns")) columns(*t, join(path, "columns")), in.columns = std::move(*t);
    if (Json* t = mutable_field(v, "detail")) object(*t, join(path, "detail")), in.detail = std::move(*t);
    return in;
  }

  // The whole record, checked field by field in the schema's order (so the first error is reported).
  RunRecord record(Json& j) const {
    object(j, "");
    only_keys(j, "", {"schema", "schema_version", "tool", "command", "benchmark", "system", "metrics", "primary_metric",
                      "options", "inputs", "engines", "timeout_s", "machine", "started_at", "wall_s", "shard",
                      "merged_from", "category_axes", "warnings", "summary", "summary_text", "instances"});
    RunRecord r;
    header(j, r);
    r.metrics = metrics(array(field(j, "", "metrics"), "metrics"));
    r.primary_metric = string(field(j, "", "primary_metric"), "primary_metric", true);
    if (!r.metric(r.primary_metric)) fail("primary_metric", "\"" + r.primary_metric + "\" is not one of \"metrics\"");
    r.options = object(field(j, "", "options"), "options");
    const Json& ins = array(field(j, "", "inputs"), "inputs");
    for (size_t i = 0; i < ins.size(); ++i) r.inputs.push_back(input(ins[i], "inputs[" + std::to_string(i) + "]"));
    const Json& eng = object(field(j, "", "engines"), "engines");
    for (auto it = eng.begin(); it != eng.end(); ++it) r.engines.emplace_back(it.key(), string(*it, "engines." + it.key()));
    if (const Json* t = optional(j, "timeout_s")) r.timeout_s = number(*t, "timeout_s");
    r.machine = machine(field(j, "", "machine"));
    r.started_at = string(field(j, "", "started_at"), "started_at");
    r.wall_s = number(field(j, "", "wall_s"), "wall_s");
    if (r.wall_s < 0) fail("wall_s", "must be >= 0");
    if (const Json* s = optional(j, "shard")) r.shard = shard(*s, "shard");
    if (const Json* mf = optional(j, "merged_from")) {
      for (size_t i = 0; i < array(*mf, "merged_from").size(); ++i)
        r.merged_from.push_back(merged_part((*mf)[i], "merged_from[" + std::to_string(i) + "]"));
    }
    if (const Json* ax = optional(j, "category_axes")) {
      for (size_t i = 0; i < array(*ax, "category_axes").size(); ++i)
        r.category_axes.push_back(category_axis((*ax)[i], "category_axes[" + std::to_string(i) + "]"));
    }
    if (const Json* w = optional(j, "warnings")) r.warnings = strings(*w, "warnings");
    r.summary = object(field(j, "", "summary"), "summary");
    r.summary_text = opt_string(j, "", "summary_text");
    array(field(j, "", "instances"), "instances");
    instances(j["instances"], r);
    return r;
  }

 private:
  // "schema", "schema_version", "tool", "command", "benchmark", "system".
  void header(const Json& j, RunRecord& r) const {
    if (string(field(j, "", "schema"), "schema") != kSchemaName)
      fail("schema", std::string("not a sqlgrade run record (expected \"") + kSchemaName + "\")");
    long long ver = integer(field(j, "", "schema_version"), "schema_version");
    if (ver != kSchemaVersion)
      fail("schema_version", std::to_string(ver) + " is not supported (this sqlgrade reads version " +
                                 std::to_string(kSchemaVersion) + ")");
    const Json& tool = object(field(j, "", "tool"), "tool");
    only_keys(tool, "tool", {"name", "version"});
    r.tool = string(field(tool, "tool", "name"), "tool.name", true);
    r.tool_version = string(field(tool, "tool", "version"), "tool.version");
    r.command = strings(field(j, "", "command"), "command");
    r.benchmark = string(field(j, "", "benchmark"), "benchmark", true);
    r.system = string(field(j, "", "system"), "system");
  }

  std::vector<MetricDef> metrics(const Json& ms) const {
    if (ms.empty()) fail("metrics", "at least one metric is required");
    std::vector<MetricDef> out;
    std::set<std::string> names;
    for (size_t i = 0; i < ms.size(); ++i) {
      std::string p = "metrics[" + std::to_string(i) + "]";
      object(ms[i], p);
      only_keys(ms[i], p, {"name", "kind", "label"});
      MetricDef m;
      m.name = string(field(ms[i], p, "name"), p + ".name", true);
      std::string kind = string(field(ms[i], p, "kind"), p + ".kind");
      if (kind == "binary") m.kind = MetricKind::Binary;
      else if (kind == "continuous") m.kind = MetricKind::Continuous;
      else fail(p + ".kind", "expected \"binary\" or \"continuous\"");
      if (auto l = opt_string(ms[i], p, "label")) m.label = *l;
      if (!names.insert(m.name).second) fail(p + ".name", "metric \"" + m.name + "\" declared twice");
      out.push_back(std::move(m));
    }
    return out;
  }

  InputRef input(const Json& v, const std::string& p) const {
    object(v, p);
    only_keys(v, p, {"role", "side", "path", "sha256"});
    InputRef in;
    in.role = string(field(v, p, "role"), p + ".role", true);
    in.side = string(field(v, p, "side"), p + ".side");
    if (in.side != "gold" && in.side != "pred" && in.side != "other") fail(p + ".side", "expected \"gold\", \"pred\" or \"other\"");
    in.path = string(field(v, p, "path"), p + ".path");
    in.sha256 = opt_string(v, p, "sha256");
    if (in.sha256 && (in.sha256->size() != 64 || in.sha256->find_first_not_of("0123456789abcdef") != std::string::npos))
      fail(p + ".sha256", "expected 64 lowercase hex digits");
    return in;
  }

  Machine machine(const Json& v) const {
    const Json& m = object(v, "machine");
    only_keys(m, "machine", {"host", "os", "cores"});
    Machine out;
    out.host = string(field(m, "machine", "host"), "machine.host");
    out.os = string(field(m, "machine", "os"), "machine.os");
    long long cores = integer(field(m, "machine", "cores"), "machine.cores");
    if (cores < 0) fail("machine.cores", "must be >= 0");
    out.cores = static_cast<unsigned>(cores);
    return out;
  }

  MergedPart merged_part(const Json& v, const std::string& p) const {
    const Json& e = object(v, p);
    only_keys(e, p, {"path", "sha256", "shard", "host", "started_at", "wall_s", "command"});
    MergedPart part;
    part.path = string(field(e, p, "path"), p + ".path");
    part.sha256 = string(field(e, p, "sha256"), p + ".sha256");
    if (!part.sha256.empty() && (part.sha256.size() != 64 || part.sha256.find_first_not_of("0123456789abcdef") != std::string::npos))
      fail(p + ".sha256", "expected 64 lowercase hex digits or \"\"");
    part.shard = shard(field(e, p, "shard"), p + ".shard");
    part.host = string(field(e, p, "host"), p + ".host");
    part.started_at = string(field(e, p, "started_at"), p + ".started_at");
    part.wall_s = number(field(e, p, "wall_s"), p + ".wall_s");
    part.command = strings(field(e, p, "command"), p + ".command");
    return part;
  }

  CategoryAxis category_axis(const Json& v, const std::string& p) const {
    object(v, p);
    only_keys(v, p, {"name", "values"});
    CategoryAxis a;
    a.name = string(field(v, p, "name"), p + ".name", true);
    if (const Json* vals = optional(v, "values")) a.values = strings(*vals, p + ".values");
    return a;
  }

  // Every instance, ids unique.
  void instances(Json& insts, RunRecord& r) const {
    std::unordered_set<std::string> seen;
    r.instances.reserve(insts.size());
    for (size_t i = 0; i < insts.size(); ++i) {
      Instance in = instance(insts[i], "instances[" + std::to_string(i) + "]", r);
      if (!seen.insert(in.id).second) fail("instances[" + std::to_string(i) + "].id", "duplicate id \"" + in.id + "\"");
      r.instances.push_back(std::move(in));
    }
  }

  std::string file_;
};

}  // namespace

RunRecord parse_run_record(const std::string& text, const std::string& file) {
  Json j;
  check_json_depth(text, file);
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for numbers beyond double (1e999)
    std::string msg = e.what();
    if (size_t p = msg.find("] "); p != std::string::npos && msg.rfind("[json.exception", 0) == 0) msg = msg.substr(p + 2);
    throw InputError(file, "not valid JSON: " + msg);
  }
  return Reader(file).record(j);
}

RunRecord read_run_record(const std::string& path) {
  std::string text = read_file(path);
  strip_bom(text);
  return parse_run_record(text, path);
}

}  // namespace sqlgrade::runs
