#pragma once
// Verified execution accuracy in a run record (docs/verify.md, "In the run record"). A record written
// with --verify carries the binary metric "verified_ex", every searched match's outcome in
// instances[i].detail.verify and the totals in summary.verify. The totals are rebuilt from the
// instances (here), so `merge` of shards gives exactly the totals of one unsharded run.
#include <map>
#include <string>

#include "sqlgrade/runs/record.hpp"

namespace sqlgrade::runs {

inline constexpr const char* kVerifiedMetric = "verified_ex";

// detail.verify of an instance ({"status": "refuted" | "gold_suspect" | "edge" | "tie" |
// "no_counterexample" | "skipped" | ..., "candidates", "seconds", "cpu_seconds", "time_capped",
// "reason"?, "counterexample"?}), or nullptr when it has none. Only "refuted" (a clean refutation)
// costs the instance its verified_ex.
const Json* verify_detail(const Instance& in);

// The instances carrying detail.verify, counted by status name (every class, whatever its name).
std::map<std::string, size_t> verify_status_counts(const RunRecord& r);

// summary.verify: {"graded", "ex", "verified_ex", "verified_ex_rate", "refuted", "gold_suspect",
// "edge", "tie", "no_counterexample", "not_searched", "statuses" (every status by name with its
// count), "candidates", "cpu_seconds", "instance_seconds" (summed elapsed time), "time_capped",
// "refuted_ids", "ids" (per status but no_counterexample/skipped)}; null when no instance carries
// detail.verify.
Json verify_summary(const RunRecord& r);

}  // namespace sqlgrade::runs
