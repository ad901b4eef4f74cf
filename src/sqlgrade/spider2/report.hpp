#pragma once
// What `sqlgrade spider2` prints and writes, in the official script's formats (Python reprs).
#include <string>

#include <nlohmann/json.hpp>

#include "sqlgrade/spider2/run.hpp"

namespace sqlgrade::spider2 {

// Official stdout (spec §4.7), without the tqdm progress lines:
//   per-instance messages (sql mode), the {id: score} dict, "Final score", "Real score" (over 547),
//   "Execution results saved to" (sql mode), "Correct IDs saved to", "TOTAL_GB_PROCESSED".
// With no overlapping ids: the official one-line notice.
std::string format_official(const Run& r, const Options& opt);

// <result_dir>-ids.csv: header instance_id, one correct id per row, bq/ga/local ids prefixed "sf_".
// Correct by the official rule, or with v2_rule by evaluate_v2's (v2_data_score == 1).
std::string ids_csv(const Run& r, bool v2_rule = false);

// --strict section (after the official lines): findings per instance and a strict score.
std::string format_strict(const Run& r);

// --v2: the printed summary (spec §5.3) and <result_dir>-detailed-metrics.json.
std::string format_v2_summary(const Run& r, const Options& opt);
nlohmann::json v2_detailed_json(const Run& r);
// Its "summary" object alone (the run record's summary.v2).
nlohmann::json v2_summary_json(const Run& r);
// errors.log lines ("<time> | ERROR | <message> | context={...}") for the v2 errors; "" if none.
std::string v2_errors_log(const Run& r, const Options& opt);

// Output paths derived from --result_dir exactly as the official script builds them (string concat).
std::string ids_csv_path(const Options& opt);
std::string csv_dir_path(const Options& opt);
std::string v2_metrics_path(const Options& opt);

}  // namespace sqlgrade::spider2
