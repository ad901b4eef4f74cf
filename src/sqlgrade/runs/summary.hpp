#pragma once
// Summaries rebuilt from a run's instances: a registry of per-benchmark summarizers (phase 2 of
// issue 15 registers Spider/BIRD/Spider2/UDA ones that rebuild the printed table from each
// instance's "detail") and the generic summarizer used when a benchmark has none.
#include <functional>
#include <optional>
#include <string>

#include "sqlgrade/runs/record.hpp"

namespace sqlgrade::runs {

struct SummaryOut {
  Json summary = Json::object();
  std::optional<std::string> text;  // the printed table
};
using Summarizer = std::function<SummaryOut(const RunRecord&)>;

// Registers (or replaces) the summarizer of a benchmark. Thread-safe.
void register_summarizer(const std::string& benchmark, Summarizer fn);
bool has_summarizer(const std::string& benchmark);
// The benchmark's registered summarizer, else generic_summary.
SummaryOut summarize(const RunRecord& r);

// {"generic": true, "count": N,
//  "metrics": {metric: {"n": k, "mean": x}},
//  "by_category": {axis: {value: {"count": k, metric: mean-or-null}}}}
// and a text table (one row for all, one per axis=value; columns count and each metric's mean).
// Means are over the instances that have the metric.
SummaryOut generic_summary(const RunRecord& r);

}  // namespace sqlgrade::runs
