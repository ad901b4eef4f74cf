// `sqlgrade diff RUN_A.json RUN_B.json`: instance-by-instance comparison of two run records with
// paired statistics (docs/comparing-runs.md).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/runs.hpp"

namespace {

struct DiffArgs {
  sqlgrade::runs::DiffFilesOptions opt;
  bool json_stdout = false;
};

void run_diff(const DiffArgs& a) {
  const sqlgrade::runs::Diff d = sqlgrade::runs::diff_files(a.opt);  // writes --json-out too
  const std::string& out = a.json_stdout ? d.json : d.text;
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

void register_diff_command(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand("diff", "compare two run records instance by instance (paired statistics)");
  cmd->add_option("RUN_A", args->opt.a, "baseline run record (JSON)")->required();
  cmd->add_option("RUN_B", args->opt.b, "run record to compare with it")->required();
  cmd->add_flag("--json", args->json_stdout, "print the comparison as JSON instead of the table");
  cmd->add_option("--json-out", args->opt.json_out, "also write the JSON comparison to this file");
  cmd->add_option("--bootstrap", args->opt.bootstrap, "bootstrap resamples (default 1000)")->check(sqlgrade::cli::bounded("bootstrap"));
  cmd->add_option("--seed", args->opt.seed, "bootstrap seed (default 12345)")->check(sqlgrade::cli::bounded("seed"));
  cmd->add_option("--confidence", args->opt.confidence, "confidence level of the intervals (default 0.95)")->check(sqlgrade::cli::bounded("confidence"));
  cmd->add_option("--agree", args->opt.agree, "agreement between two metrics of each run, e.g. exec,exact");
  cmd->add_option("--axis", args->opt.axes, "compare only these category axes (repeatable; default all)");
  cmd->add_option("--list", args->opt.list, "regressions/improvements listed (default 20; 0 = all)")->check(sqlgrade::cli::bounded("list"));
  cmd->add_flag("--common", args->opt.common, "runs with different instance ids: compare the shared ones");
  cmd->callback([args]() { run_diff(*args); });
  sqlgrade::cli::example(cmd, "sqlgrade diff baseline.json candidate.json --agree exec,exact --list 10");
}
