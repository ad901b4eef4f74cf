// `sqlgrade diff RUN_A.json RUN_B.json`: instance-by-instance comparison of two run records with
// paired statistics (docs/comparing-runs.md). `--json FILE` writes the comparison as JSON, as every
// other command's `--json FILE` writes its record; `--json -` prints it instead of the table. The old
// switch still works: a bare `--json` (last, or before another flag, or before the two run records:
// `diff --json A B`) is `--json -`, and `--json-out FILE` is `--json FILE`.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs.hpp"

namespace {

struct DiffArgs {
  sqlgrade::runs::DiffFilesOptions opt;
  std::string json, json_out;
  CLI::Option* json_flag = nullptr;
};

void run_diff(DiffArgs& a) {
  bool to_stdout = false;
  if (a.json_flag->count() > 0) {
    // `diff --json A B`: the switch took RUN_A as its value (the record paths shift by one).
    if (a.opt.b.empty() && !a.json.empty() && a.json != "-") a.opt.b = a.opt.a, a.opt.a = a.json, a.json = "-";
    if (a.json.empty() || a.json == "-") to_stdout = true;
    else a.opt.json_out = a.json;
  }
  if (a.opt.b.empty()) throw sqlgrade::InputError("diff", "RUN_B is required (two run records)");
  if (!a.json_out.empty()) {
    if (!a.opt.json_out.empty() && a.opt.json_out != a.json_out)
      throw sqlgrade::InputError("--json-out", "give one file: --json FILE (--json-out is its old name)");
    a.opt.json_out = a.json_out;
  }
  const sqlgrade::runs::Diff d = sqlgrade::runs::diff_files(a.opt);  // writes the JSON file too
  const std::string& out = to_stdout ? d.json : d.text;
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

void register_diff_command(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand("diff", "compare two run records instance by instance (paired statistics)");
  sqlgrade::cli::path_role(cmd->add_option("RUN_A", args->opt.a, "baseline run record (JSON)"), sqlgrade::cli::PathRole::ReadsFile)->required();
  sqlgrade::cli::path_role(cmd->add_option("RUN_B", args->opt.b, "run record to compare with it"), sqlgrade::cli::PathRole::ReadsFile);
  args->json_flag = sqlgrade::cli::path_role(cmd->add_option("--json", args->json,
                                    "also write the comparison as JSON to FILE; - prints it instead of the table (a bare "
                                    "--json too)"), sqlgrade::cli::PathRole::WritesFile)
                        ->expected(0, 1)
                        ->type_name("FILE");
  sqlgrade::cli::path_role(cmd->add_option("--json-out", args->json_out, "old name of --json FILE"), sqlgrade::cli::PathRole::WritesFile);
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
