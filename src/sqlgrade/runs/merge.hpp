#pragma once
// Shards and merging (`sqlgrade merge`): a run graded as n parts with --shard i/n becomes one record
// whose summary is rebuilt from all instances by the benchmark's summarizer (summary.hpp).
#include <string>
#include <vector>

#include "sqlgrade/runs/record.hpp"

namespace sqlgrade::runs {

struct MergeInput {
  std::string file;
  RunRecord run;
  std::string sha256;  // of the file (recorded in merged_from); may be empty
};

// Checks that the parts are shards 1..n of one run (same n, each index once, every id in the shard
// shard_of assigns it) of the same benchmark, metrics, options, timeout, sqlgrade version and gold
// inputs; InputError naming the offending file otherwise. The result: instances of all parts in
// natural id order, the summary recomputed, no "shard", "merged_from" listing the parts, wall_s the
// sum of the parts' wall_s, started_at the earliest.
RunRecord merge_runs(const std::vector<MergeInput>& parts, const std::vector<std::string>& command);
// The same, the parts consumed: their instances are moved into the result, not copied.
RunRecord merge_runs(std::vector<MergeInput>&& parts, const std::vector<std::string>& command);

// The instances of r that belong to shard s, as a record marked with that shard and summarized
// again (used by tests and by benchmarks that grade everything and keep a shard).
RunRecord shard_subset(const RunRecord& r, const Shard& s);

}  // namespace sqlgrade::runs
