#pragma once
// The run record: the one JSON envelope every benchmark's `--json` writes (docs/run-record.schema.json,
// design in docs/comparing-runs.md). `diff`, `report` and `merge` read it; nothing here prints.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sqlgrade/result_rows.hpp"

namespace sqlgrade::runs {

using Json = nlohmann::ordered_json;

inline constexpr const char* kSchemaName = "sqlgrade-run";
inline constexpr int kSchemaVersion = 1;

// A binary metric scores 0 or 1 per instance (exact match, execution accuracy); a continuous one
// any finite number (Soft-F1, UDA F1, VES ratio).
enum class MetricKind { Binary, Continuous };
const char* to_string(MetricKind k);

struct MetricDef {
  std::string name;   // key in Instance::scores
  MetricKind kind = MetricKind::Binary;
  std::string label;  // human name ("Execution accuracy"); may be empty
};

// One input file or folder. side: "gold" (defines the reference: gold SQL, databases, tables,
// difficulty labels), "pred" (the graded system's output) or "other".
struct InputRef {
  std::string role;   // e.g. "gold", "pred", "db", "table", "difficulty"
  std::string side;   // gold | pred | other
  std::string path;
  std::optional<std::string> sha256;  // lowercase hex; folders: see sha256_tree
};

struct Machine {
  std::string host, os;
  unsigned cores = 0;
};

// Category axes in their preferred order, e.g. hardness: easy, medium, hard, extra.
struct CategoryAxis {
  std::string name;
  std::vector<std::string> values;  // preferred order; values met but not listed sort after them
};

// What a shard splits by: the instance id (default), or its database (--shard-by db: every
// instance of one database in one shard, so a node reads each database once; docs/comparing-runs.md §5).
enum class ShardBy { Id, Db };

struct Shard {
  int index = 1;  // 1-based
  int count = 1;
  ShardBy by = ShardBy::Id;
  bool operator==(const Shard&) const = default;
};

struct Instance {
  std::string id;
  std::vector<std::pair<std::string, double>> scores;            // metric → score
  std::vector<std::pair<std::string, std::string>> category;     // axis → value
  std::optional<std::string> pred_sql, gold_sql, question, failure_reason;
  std::optional<double> time_s;
  Json rows;     // null or {"gold": [[…]], "pred": [[…]], "truncated": bool, …}
  Json columns;  // null or {column: {"precision", "recall", "f1"}}
  Json detail;   // null or a benchmark-specific object

  const double* score(const std::string& metric) const;
  const std::string* category_of(const std::string& axis) const;
};

// Where a merged record came from.
struct MergedPart {
  std::string path, sha256, host, started_at;
  Shard shard;
  double wall_s = 0;
  std::vector<std::string> command;
};

struct RunRecord {
  int schema_version = kSchemaVersion;
  std::string tool = "sqlgrade", tool_version;
  std::vector<std::string> command;
  std::string benchmark;
  std::string system;  // label of the graded system (defaults to the prediction file's name)
  std::vector<MetricDef> metrics;
  std::string primary_metric;
  Json options = Json::object();  // settings that change scores (compat, etype, metric, …)
  std::vector<InputRef> inputs;
  std::vector<std::pair<std::string, std::string>> engines;  // "sqlite" → "3.40.1"
  std::optional<double> timeout_s;
  Machine machine;
  std::string started_at;  // ISO 8601 UTC, e.g. 2025-01-31T12:00:00Z
  double wall_s = 0;
  std::optional<Shard> shard;
  std::vector<MergedPart> merged_from;
  std::vector<CategoryAxis> category_axes;
  std::vector<std::string> warnings;
  Json summary = Json::object();
  std::optional<std::string> summary_text;
  std::vector<Instance> instances;

  const MetricDef* metric(const std::string& name) const;
};

// ---- reading (record_read.cpp) ----
// Parses and validates a run record. Every problem is an InputError naming the file and the JSON
// path ("a.json: instances[3].scores.exec: binary metric must be 0 or 1"), so the CLI prints one
// line and exits 2.
RunRecord parse_run_record(const std::string& text, const std::string& file);
RunRecord read_run_record(const std::string& path);

// ---- writing (record_write.cpp) ----
Json to_json(const RunRecord& r);
Json to_json(RunRecord&& r);  // moves the instances' JSON into the tree (no copy)
std::string render_run_record(const RunRecord& r);  // pretty JSON + "\n"; invalid UTF-8 → U+FFFD
std::string render_run_record(RunRecord&& r);       // the same, the record consumed (no copy of its trees)
void write_run_record(const std::string& path, const RunRecord& r);  // atomic

// Fills tool, tool_version, machine and started_at (now); a benchmark command calls it at start,
// adds its engines (e.g. {"sqlite", sqlite_version()}, {"duckdb", DuckDb::version()}) and sets
// wall_s at the end.
void stamp_environment(RunRecord& r);
// A benchmark's record, begun: the environment stamped, `benchmark`, the run's start time (now when
// the run did not note one), its wall time and the command line that produced it.
RunRecord begin_run_record(const std::string& benchmark, const std::string& started_at, double wall_s,
                           const std::vector<std::string>& command);
// options.now: the pinned SQL clock the run was graded under (`--now`, core/clock.hpp), in its canonical
// text; nothing when `now` is "" (the real clock: a run on it records no `now`, so its record is what it
// always was). `merge` then requires it equal and `diff` notes a difference, as for any option.
void note_clock(RunRecord& r, const std::string& now);
// Which kinds of input path input_ref hashes: none, regular files (Spider), or regular files and
// folders (sha256_path: the listing hash of core/digest.hpp; BIRD, UDA).
enum class HashInputs { None, Files, FilesAndFolders };
// An input of a record, with the sha256 of its content when `hash` covers what the path is. Anything
// else has none (null): a FIFO (`--pred <(…)`, read already: hashing it would block), a device, a
// path that does not exist.
InputRef input_ref(const std::string& role, const std::string& side, const std::string& path,
                   HashInputs hash = HashInputs::FilesAndFolders);
std::string sqlite_version();
// An instance's `rows` from the first rows of both results (either may be absent): "gold"/"pred" with
// their columns and totals, "truncated" when a side holds fewer rows or columns than its result. Null
// when neither side has rows.
Json rows_json(const ResultRows& gold, const ResultRows& pred);
Machine this_machine();
// Now, in UTC, to the second; SOURCE_DATE_EPOCH (seconds) replaces "now" when set.
std::string utc_now_iso8601();

}  // namespace sqlgrade::runs
