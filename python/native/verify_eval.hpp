#pragma once
// `verify=` of the whole-benchmark evaluations (sqlgrade.spider/bird/spider2.evaluate): the CLI's
// `--verify` (src/cli/*_cmd.cpp) in-process. After the official run, the same library calls: the
// run's check (verify::check_verifiable, the CLI's message), the search (verify_spider / verify_bird
// / verify_spider2), the lines the CLI prints after the official output, and the run record with the
// verification added (verify::add_to_record, what `--verify --json` writes).
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/verify.hpp"
#include "released.hpp"

namespace sqlgrade_native {

// The options as the CLI's verify_options() makes them from its flags: the counterexamples folder
// checked before the run, the run's worker count, no progress bar.
inline sqlgrade::verify::Options verify_options(sqlgrade::verify::Options o, int jobs) {
  if (!o.counterexamples_dir.empty()) sqlgrade::verify::check_counterexamples_dir(o.counterexamples_dir);
  o.jobs = jobs;
  o.progress = 0;
  return o;
}

// Adds the verification of one system to what the run rendered, as the CLI prints and writes it:
// "\n" + the verification lines after the official text, the record with the verification added
// (when the run has one). Returns the report as `sqlgrade verify --json` writes it.
inline std::string add_verification(const std::vector<sqlgrade::verify::SystemReport>& reports,
                                    const sqlgrade::verify::Options& opt, Rendered& r) {
  r.text += "\n" + sqlgrade::verify::render_text(reports);
  if (!r.json.empty() && !reports.empty()) r.json = sqlgrade::verify::add_to_record(r.json, reports[0], opt);
  return sqlgrade::verify::render_json(reports);
}

}  // namespace sqlgrade_native
