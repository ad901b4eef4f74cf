#pragma once
// Spider 2.0-Lite: the run's input files — the eval jsonl, the metadata (instance → database), folder
// listings, the gold alternatives of an id and the default paths beside the gold folder.
#include <map>
#include <string>
#include <vector>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/compare.hpp"

namespace sqlgrade::spider2 {

// The metadata file and database folder a run uses: the option when given, else the default next
// to the gold folder (<gold_dir>/../spider2-lite.jsonl, <gold_dir>/../databases).
std::string default_meta_path(const Options& opt);
std::string default_db_dir(const Options& opt);

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

}  // namespace sqlgrade::spider2
