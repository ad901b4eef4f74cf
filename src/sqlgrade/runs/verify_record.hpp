#pragma once
// Verified execution accuracy in a run record (docs/verify.md, "In the run record"). A record written
// with --verify carries the binary metric "verified_ex", every searched match's outcome in
// instances[i].detail.verify and the totals in summary.verify. The totals are rebuilt from the
// instances (here), so `merge` of shards gives exactly the totals of one unsharded run.
#include "sqlgrade/runs/record.hpp"

namespace sqlgrade::runs {

inline constexpr const char* kVerifiedMetric = "verified_ex";

// detail.verify of an instance ({"status": "refuted" | "no_counterexample" | "skipped", "candidates",
// "seconds", "time_capped", "reason"?, "counterexample"?}), or nullptr when it has none.
const Json* verify_detail(const Instance& in);

// summary.verify: {"graded", "ex", "verified_ex", "verified_ex_rate", "refuted", "no_counterexample",
// "not_searched", "candidates", "search_seconds", "time_capped", "refuted_ids"}; null when no
// instance carries detail.verify.
Json verify_summary(const RunRecord& r);

}  // namespace sqlgrade::runs
