#pragma once
// The report's stylesheet and script, embedded at build time from report.css, report_widgets.js,
// report_verify.js and report_main.js (cmake/modules/runs.cmake generates their definitions).
namespace sqlgrade::runs {
extern const char* const kReportCss;
extern const char* const kReportWidgetsJs;
extern const char* const kReportVerifyJs;  // report_verify.js
extern const char* const kReportMainJs;
}  // namespace sqlgrade::runs
