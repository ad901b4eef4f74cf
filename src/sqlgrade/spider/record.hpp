#pragma once
// Spider and the run record (docs/run-record.schema.json): a Run as a record and back, for `--json`
// and the "spider" summarizer of `sqlgrade merge` (record.cpp); the summary numbers (report.cpp).
#include <nlohmann/json.hpp>

#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/spider.hpp"

namespace sqlgrade::spider {

// The printed table's numbers: {"easy": {"count", "exec", "exact", "partial": {...}}, ..., "all",
// "joint_all" and "turn 1".. with interactions (test-suite)}.
nlohmann::ordered_json summary_json(const Run& run);

runs::RunRecord to_run_record(const Run& run, const std::vector<std::string>& command);
// The examples, options and interaction count of a record written by to_run_record (or merged from
// several), aggregated: what the summarizer renders. InputError when a detail is missing.
Run run_from_record(const runs::RunRecord& rec);

}  // namespace sqlgrade::spider
