#pragma once
// `sqlgrade report`: one self-contained HTML file (styles, script and data inlined; no network)
// with headline numbers, charts by category, comparisons with significance, the SQL-feature
// breakdown, UDA per-column scores and a filterable instance table. Nothing here prints.
#include <string>
#include <vector>

#include "sqlgrade/runs/align.hpp"
#include "sqlgrade/runs/stats.hpp"

namespace sqlgrade::runs {

// The page lists at most this many instances (issue 19, finding 13: 2 x 1 M instances made a 243 MB
// page); every table and statistic still covers them all, and a note says how many are not listed.
inline constexpr size_t kMaxReportInstances = 100000;

struct ReportOptions {
  BootstrapOptions bootstrap;
  bool common_only = false;  // runs with different id sets: keep the shared ids
  std::string title;         // default: "<benchmark>: <labels>"
};

// The data embedded in the page (report_data.cpp). The first run is the baseline of every
// comparison. InputError when the runs cannot be compared (see align_runs).
Json report_data(const std::vector<NamedRun>& runs, const ReportOptions& opt);
// The whole page (report_html.cpp).
std::string render_report(const std::vector<NamedRun>& runs, const ReportOptions& opt);
// JSON text safe inside <script type="application/json">: ASCII only, invalid UTF-8 replaced, and
// '<', '>', '&' written as \u escapes so no "</script>" or "<!--" can appear.
std::string json_for_script(const Json& j);
std::string html_escape(std::string_view s);

}  // namespace sqlgrade::runs
