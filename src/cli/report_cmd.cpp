// `sqlgrade report RUN.json [RUN2.json …] -o report.html`: one self-contained HTML report.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/html/report.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/core/fs.hpp"

namespace {

struct ReportArgs {
  std::vector<std::string> runs;
  std::string output, title;
  size_t bootstrap = sqlgrade::runs::kDefaultResamples;
  uint64_t seed = sqlgrade::runs::kDefaultSeed;
  bool common = false;
};

void run_report(const ReportArgs& a) {
  using namespace sqlgrade;
  using namespace sqlgrade::runs;
  if (a.bootstrap < 1 || a.bootstrap > 1000000) throw InputError("--bootstrap", "must be between 1 and 1000000");
  std::vector<RunRecord> records;
  records.reserve(a.runs.size());
  for (const auto& f : a.runs) records.push_back(read_run_record(f));
  std::vector<NamedRun> named;
  for (size_t i = 0; i < records.size(); ++i) named.push_back(NamedRun{a.runs[i], &records[i]});
  ReportOptions opt;
  opt.bootstrap.resamples = a.bootstrap, opt.bootstrap.seed = a.seed, opt.common_only = a.common, opt.title = a.title;
  write_file_atomic(a.output, render_report(named, opt));
  std::fprintf(stdout, "wrote %s (%zu run%s, %zu instances)\n", a.output.c_str(), records.size(), records.size() == 1 ? "" : "s",
               records.front().instances.size());
}

}  // namespace

void register_report_command(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand("report", "write a self-contained HTML report of one or more run records");
  cmd->add_option("RUNS", args->runs, "run records (JSON); the first is the baseline of the comparisons")->required();
  cmd->add_option("-o,--output", args->output, "HTML file to write")->required();
  cmd->add_option("--title", args->title, "page title (default: benchmark and system names)");
  cmd->add_option("--bootstrap", args->bootstrap, "bootstrap resamples of the comparisons (default 1000)");
  cmd->add_option("--seed", args->seed, "bootstrap seed (default 12345)");
  cmd->add_flag("--common", args->common, "runs with different instance ids: keep the shared ones");
  cmd->callback([args]() { run_report(*args); });
}
