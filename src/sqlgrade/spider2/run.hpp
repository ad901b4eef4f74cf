#pragma once
// Spider 2.0-Lite adapter: eval jsonl and metadata loading, gold resolution, prediction discovery,
// sql-mode execution on the local SQLite databases, scheduling on all cores.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/compare.hpp"
#include "sqlgrade/spider2/compare_v2.hpp"

namespace sqlgrade::spider2 {

// The metadata file and database folder a run uses: the option when given, else the default next
// to the gold folder (<gold_dir>/../spider2-lite.jsonl, <gold_dir>/../databases).
std::string default_meta_path(const Options& opt);
std::string default_db_dir(const Options& opt);

// What a run of these result folders reads — each folder's predictions (<id>.sql, or <id>.csv in
// exec_result mode), the gold folder, the databases (sql mode), the metadata: what no output may replace
// (core/fs.hpp check_outputs_spare_inputs; `spider2`, `verify spider2`, `audit`).
std::vector<IoPath> run_inputs(const Options& opt, const std::vector<std::string>& result_dirs);

// <gold_dir>/spider2lite_eval.jsonl -> entries by instance_id (InputError naming file and line).
std::map<std::string, EvalEntry> load_eval_jsonl(const std::string& path);
// spider2-lite.jsonl -> instance_id -> db.
std::map<std::string, std::string> load_db_map(const std::string& path);

// The regular files (and symlinks) of a folder by name, sorted; InputError naming the folder as
// `what` when it is missing or cannot be listed.
std::vector<std::string> sorted_listing(const std::string& dir, const std::string& what);

// Gold files for an id (spec §4.3): {<id>.csv} with single=true, or the sorted `<id>(_[a-z])?.csv` list.
struct GoldFiles {
  bool single = false;
  std::vector<std::string> paths;
};
GoldFiles resolve_gold_files(const std::string& exec_result_dir, const std::string& instance_id,
                             const std::vector<std::string>& dir_listing);

// Evaluate one prediction frame against the instance's golds with the official rule (+ strict, v2).
// DeadlineExceeded passes through when `deadline` expires (the caller scores a timeout).
void grade_frame(const Frame& pred, const std::vector<Frame>& golds, bool single, const EvalEntry& entry,
                 const Options& opt, Instance& out, const Deadline& deadline = {});

// The whole run of several systems (one result folder each) in one pass, no printing, no writing (see
// report.hpp): the gold alternatives of an id are read once and each distinct (database, SQL) runs
// once; out[i] is result_dirs[i]'s run (opt.result_dir ignored). Throws InputError for bad inputs.
// evaluate_many() (spider2.hpp) is this plus the checks made before anything runs.
std::vector<Run> run_many(const Options& opt, const std::vector<std::string>& result_dirs);

}  // namespace sqlgrade::spider2
