#pragma once
// Checking that two runs can be compared, and pairing their instances by id.
#include <string>
#include <utility>
#include <vector>

#include "sqlgrade/runs/record.hpp"

namespace sqlgrade::runs {

// A run and the file it was read from (named in error messages).
struct NamedRun {
  std::string file;
  const RunRecord* run = nullptr;
};

// InputError naming b.file unless a and b are the same benchmark and every gold-side input they
// both hash (same role) has the same sha256.
void check_same_gold(const NamedRun& a, const NamedRun& b);

struct Aligned {
  std::vector<std::pair<const Instance*, const Instance*>> pairs;  // natural id order
  size_t only_a = 0, only_b = 0;
  std::vector<std::string> notes;  // what the reader should know (differing options, …)
  std::vector<std::string> gold_checked;  // "role sha256-prefix" of the gold inputs found identical
};

// check_same_gold, then pairs instances by id. Different id sets are refused (InputError naming
// b.file with counts and an example) unless common_only, which keeps the shared ids.
Aligned align_runs(const NamedRun& a, const NamedRun& b, bool common_only);

// Metrics declared by both runs with the same kind, in a's order.
std::vector<MetricDef> common_metrics(const RunRecord& a, const RunRecord& b);

// Label of a run for display: its system, else the file's stem.
std::string run_label(const NamedRun& r);
// Labels of runs shown together (diff, report): run_label, and where two runs would share one (records
// written before --name all say "pred.txt") "label (record file's stem)", then "label #k" if still equal.
std::vector<std::string> run_labels(const std::vector<NamedRun>& runs);

}  // namespace sqlgrade::runs
