// `sqlgrade diff RUN_A.json RUN_B.json`: instance-by-instance comparison of two run records with
// paired statistics (docs/comparing-runs.md).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/diff.hpp"
#include "sqlgrade/core/fs.hpp"

namespace {

struct DiffArgs {
  std::string a, b, json_out, agree;
  bool json_stdout = false, common = false;
  size_t bootstrap = sqlgrade::runs::kDefaultResamples, list = 20;
  uint64_t seed = sqlgrade::runs::kDefaultSeed;
  double confidence = 0.95;
  std::vector<std::string> axes;
};

void run_diff(const DiffArgs& a) {
  using namespace sqlgrade;
  using namespace sqlgrade::runs;
  if (a.bootstrap < 1 || a.bootstrap > 1000000) throw InputError("--bootstrap", "must be between 1 and 1000000");
  if (!(a.confidence > 0 && a.confidence < 1)) throw InputError("--confidence", "must be between 0 and 1 (e.g. 0.95)");
  DiffOptions opt;
  opt.bootstrap.resamples = a.bootstrap, opt.bootstrap.seed = a.seed, opt.bootstrap.confidence = a.confidence;
  opt.common_only = a.common, opt.axes = a.axes;
  if (!a.agree.empty()) {
    size_t comma = a.agree.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == a.agree.size())
      throw InputError("--agree", "expected two metrics separated by a comma, e.g. exec,exact");
    opt.agree = std::make_pair(a.agree.substr(0, comma), a.agree.substr(comma + 1));
  }
  const RunRecord ra = read_run_record(a.a);
  const RunRecord rb = read_run_record(a.b);
  const DiffResult d = diff_runs(NamedRun{a.a, &ra}, NamedRun{a.b, &rb}, opt);
  const std::string json = diff_to_json(d).dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
  if (!a.json_out.empty()) write_file_atomic(a.json_out, json);
  const std::string out = a.json_stdout ? json : render_diff_text(d, a.list);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

void register_diff_command(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand("diff", "compare two run records instance by instance (paired statistics)");
  cmd->add_option("RUN_A", args->a, "baseline run record (JSON)")->required();
  cmd->add_option("RUN_B", args->b, "run record to compare with it")->required();
  cmd->add_flag("--json", args->json_stdout, "print the comparison as JSON instead of the table");
  cmd->add_option("--json-out", args->json_out, "also write the JSON comparison to this file");
  cmd->add_option("--bootstrap", args->bootstrap, "bootstrap resamples (default 1000)");
  cmd->add_option("--seed", args->seed, "bootstrap seed (default 12345)");
  cmd->add_option("--confidence", args->confidence, "confidence level of the intervals (default 0.95)");
  cmd->add_option("--agree", args->agree, "agreement between two metrics of each run, e.g. exec,exact");
  cmd->add_option("--axis", args->axes, "compare only these category axes (repeatable; default all)");
  cmd->add_option("--list", args->list, "regressions/improvements listed (default 20; 0 = all)");
  cmd->add_flag("--common", args->common, "runs with different instance ids: compare the shared ones");
  cmd->callback([args]() { run_diff(*args); });
}
