#pragma once
// Spider: a pass's inputs read and paired — the gold file (one `SQL<TAB>db_id` per line, or SParC/CoSQL
// interactions separated by blank lines), each prediction file paired with it (one Run per system), the
// (system, example) slots the pass grades, and the databases the gold names. Each step takes what it
// reads and returns what it makes.
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider/schema.hpp"

namespace sqlgrade::spider {

// What a pass does, from its options: test-suite rules, exact match, execution, whether tables.json is
// read, and on how many threads.
struct PassMode {
  bool ts = false, do_match = false, do_exec = false, need_table = false;
  unsigned jobs = 1;
};
// Throws InputError when --table is required and missing.
PassMode pass_mode(const Options& opt);

// <db_dir>/<db_id>/<db_id>.sqlite
std::string db_path(const std::string& db_dir, const std::string& db_id);

// Reads the gold once and pairs every prediction file with it: one Run per system (its options with
// `pred` set, started_at, the paired examples of its shard, the pairing's warnings).
std::vector<Run> read_systems(const Options& opt, const PassMode& mode, const std::vector<std::string>& preds,
                              const std::string& started_at);

// The unit a pass parses, matches and executes: (system, example).
using Slots = std::vector<std::pair<size_t, size_t>>;
Slots make_slots(const std::vector<Run>& runs);
inline const Example& at(const std::vector<Run>& runs, const Slots& slots, size_t s) {
  return runs[slots[s].first].examples[slots[s].second];
}

// The schema of every database the gold names (once for all systems). Throws InputError when one is
// missing, or has no tables.json entry when one is needed.
using Databases = std::unordered_map<std::string, std::shared_ptr<DbInfo>>;
Databases load_databases(const Options& opt, const PassMode& mode, const std::vector<Run>& runs);

}  // namespace sqlgrade::spider
