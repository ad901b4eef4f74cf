#pragma once
// Public API — comparing runs: `sqlgrade diff` (two run records instance by instance, paired
// bootstrap and McNemar), `sqlgrade report` (one self-contained HTML page), `sqlgrade merge` (the
// shards of one run as one record). docs/comparing-runs.md describes the records and the statistics.
//
// Each call reads the run-record files it is given and returns what the command prints or writes.
// Nothing here prints; a call writes only the output file it is given (empty: none), atomically,
// after checking that it would not replace one of the inputs (the check runs before any work, the
// write after it: nothing half-written) — the CLI and the Python module (sqlgrade.runs) share this.
// Unusable or incomparable records, and such an output, throw sqlgrade::InputError.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sqlgrade::runs {

struct DiffFilesOptions {
  std::string a, b;          // run records: the baseline and the run compared with it
  size_t bootstrap = 1000;   // resamples, 1..1000000
  uint64_t seed = 12345;
  double confidence = 0.95;  // of the intervals, in (0, 1)
  bool common = false;       // different instance ids: compare the shared ones
  std::vector<std::string> axes;  // category axes to compare (empty: all)
  std::string agree;         // "x,y": agreement between two metrics of each run ("" = none)
  size_t list = 20;          // regressions/improvements listed in the table (0 = all)
  std::string json_out;      // also write the JSON comparison here (--json-out; "" = no file)
};
struct Diff {
  std::string text;  // the terminal table
  std::string json;  // the JSON comparison (+ "\n")
};
Diff diff_files(const DiffFilesOptions& opt);

struct ReportFilesOptions {
  std::vector<std::string> runs;  // run records; the first is the baseline of the comparisons
  std::string title;              // default: "<benchmark>: <labels>"
  size_t bootstrap = 1000;        // resamples, 1..1000000
  uint64_t seed = 12345;
  bool common = false;            // different instance ids: keep the shared ones
  std::string output;             // write the page here (-o; "" = no file)
};
struct Report {
  std::string html;  // the self-contained page
  size_t runs = 0, instances = 0;  // instances of the first run
};
Report report_files(const ReportFilesOptions& opt);

struct Merged {
  std::string record;                       // the merged run record (JSON + "\n")
  std::optional<std::string> summary_text;  // its recomputed printed summary, when the benchmark has one
  size_t parts = 0, instances = 0;
};
// `command`: the invocation recorded in the merged record; `output`: where it is written ("" = no file).
Merged merge_files(const std::vector<std::string>& parts, const std::vector<std::string>& command,
                   const std::string& output = {});

}  // namespace sqlgrade::runs
