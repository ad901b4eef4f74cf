#pragma once
// Spider 2.0-Lite adapter: eval jsonl and metadata loading, gold resolution, prediction discovery,
// sql-mode execution on the local SQLite databases, scheduling on all cores.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/spider2/compare.hpp"
#include "sqlgrade/spider2/compare_v2.hpp"

namespace sqlgrade::spider2 {

enum class Mode { Sql, ExecResult };

struct RunOptions {
  Mode mode = Mode::Sql;
  std::string result_dir;
  std::string gold_dir;
  std::string db_dir;     // sql mode: <db_dir>/<db>.sqlite; default <gold_dir>/../databases
  std::string meta_path;  // spider2-lite.jsonl; default <gold_dir>/../spider2-lite.jsonl
  int max_workers = 0;    // 0 = all cores
  double timeout_s = 60;  // per query (the official flag is accepted but unused; ours is real)
  bool strict = false;    // also report what the official rule misses
  bool v2 = false;        // also compute the tolerant v2 metrics
  int progress = -1;      // -1 auto (TTY), 0 off, 1 on
};

struct InstanceResult {
  std::string instance_id;
  int score = 0;
  std::optional<std::string> error_info;  // "Result Error", execution error text, ...
  std::optional<std::string> pred_sql;    // sql mode: the statement executed
  std::vector<std::string> messages;      // lines the official script prints while evaluating
  std::vector<std::string> strict;        // --strict findings
  bool strict_scrambled = false;          // scored 1, but rows are scrambled across columns
  bool strict_sort_miss = false;          // scored 0, but a value sort (tolerance kept) would score 1
  std::optional<std::string> result_csv;  // sql mode: the CSV the official script would write
  double seconds = 0;                     // sql mode: engine time
  // --v2
  v2::Result v2;
  std::optional<std::string> v2_error;
};

struct RunResult {
  std::vector<InstanceResult> items;  // sorted by instance_id
  size_t n_gold_ids = 0;
  size_t n_pred_ids = 0;
};

// <gold_dir>/spider2lite_eval.jsonl -> entries by instance_id (InputError naming file and line).
std::map<std::string, EvalEntry> load_eval_jsonl(const std::string& path);
// spider2-lite.jsonl -> instance_id -> db.
std::map<std::string, std::string> load_db_map(const std::string& path);

// Gold files for an id (spec §4.3): {<id>.csv} with single=true, or the sorted `<id>(_[a-z])?.csv` list.
struct GoldFiles {
  bool single = false;
  std::vector<std::string> paths;
};
GoldFiles resolve_gold_files(const std::string& exec_result_dir, const std::string& instance_id,
                             const std::vector<std::string>& dir_listing);

// Official sql-mode extraction (§4.2): the stripped inner text of the first "```sql\n...\n```" block,
// else the whole text.
std::string extract_sql_block(const std::string& text);

// Evaluate one prediction frame against the instance's golds with the official rule (+ strict, v2).
void grade_frame(const Frame& pred, const std::vector<Frame>& golds, bool single, const EvalEntry& entry,
                 const RunOptions& opt, InstanceResult& out);

// The whole run (no printing; see report/spider2.hpp). Throws InputError for bad inputs.
RunResult run(const RunOptions& opt);

}  // namespace sqlgrade::spider2
