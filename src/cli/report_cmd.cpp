// `sqlgrade report RUN.json [RUN2.json …] --out report.html`: one self-contained HTML report.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/runs.hpp"

namespace {

struct ReportArgs {
  sqlgrade::runs::ReportFilesOptions opt;
};

void run_report(const ReportArgs& a) {
  const sqlgrade::runs::Report r = sqlgrade::runs::report_files(a.opt);  // writes the page to -o
  std::fprintf(stdout, "wrote %s (%zu run%s, %zu instances)\n", a.opt.output.c_str(), r.runs, r.runs == 1 ? "" : "s", r.instances);
}

}  // namespace

void register_report_command(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand("report", "write a self-contained HTML report of one or more run records");
  sqlgrade::cli::path_role(cmd->add_option("RUNS", args->opt.runs, "run records (JSON); the first is the baseline of the comparisons"), sqlgrade::cli::PathRole::ReadsFile)->required();
  sqlgrade::cli::add_out(cmd, args->opt.output, "HTML file to write", "-o,--output")->required();
  cmd->add_option("--title", args->opt.title, "page title (default: benchmark and system names)");
  cmd->add_option("--bootstrap", args->opt.bootstrap, "bootstrap resamples of the comparisons (default 1000)")->check(sqlgrade::cli::bounded("bootstrap"));
  cmd->add_option("--seed", args->opt.seed, "bootstrap seed (default 12345)")->check(sqlgrade::cli::bounded("seed"));
  cmd->add_flag("--common", args->opt.common, "runs with different instance ids: keep the shared ones");
  cmd->callback([args]() { run_report(*args); });
  sqlgrade::cli::example(cmd, "sqlgrade report baseline.json candidate.json --out report.html");
}
