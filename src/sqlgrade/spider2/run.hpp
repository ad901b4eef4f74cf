#pragma once
// Spider 2.0-Lite adapter: eval jsonl and metadata loading, gold resolution, prediction discovery,
// sql-mode execution on the local SQLite databases, scheduling on all cores.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/compare.hpp"
#include "sqlgrade/spider2/compare_v2.hpp"

namespace sqlgrade::spider2 {

// The public types (include/sqlgrade/spider2.hpp) under the names the module's code uses.
using RunOptions = Options;
using RunResult = Run;
using InstanceResult = Instance;

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

// The whole run (no printing, no writing; see report.hpp). Throws InputError for bad inputs.
// evaluate() (spider2.hpp) is this plus the sql-mode output-folder check made before anything runs.
RunResult run(const RunOptions& opt);
// Several systems (one result folder each) in one pass: the gold alternatives of an id are read once
// and each distinct (database, SQL) runs once; out[i] is result_dirs[i]'s run (opt.result_dir ignored).
std::vector<RunResult> run_many(const RunOptions& opt, const std::vector<std::string>& result_dirs);

}  // namespace sqlgrade::spider2
