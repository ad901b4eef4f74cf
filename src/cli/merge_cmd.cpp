// `sqlgrade merge PART*.json --out RUN.json`: the shards of one run (--shard i/n) as one run record
// whose summary is recomputed from all instances.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/runs.hpp"
#include "sqlgrade/uda.hpp"
#include "sqlgrade/verdict/registry.hpp"

namespace {

struct MergeArgs {
  std::vector<std::string> parts;
  std::string output;
  bool quiet = false, no_progress = false;  // merge draws no progress bar: --no-progress is accepted as everywhere
};

void run_merge(const MergeArgs& a) {
  // Benchmarks whose printed table merge rebuilds from the instances' detail.
  sqlgrade::verdicts::register_run_summarizers();
  sqlgrade::uda::register_run_summarizer();
  const sqlgrade::runs::Merged m = sqlgrade::runs::merge_files(a.parts, sqlgrade::cli::invocation(), a.output);
  if (m.summary_text) std::fwrite(m.summary_text->data(), 1, m.summary_text->size(), stdout);
  if (!a.quiet) std::fprintf(stderr, "sqlgrade: merged %zu shards, %zu instances into %s\n", m.parts, m.instances, a.output.c_str());
}

}  // namespace

void register_merge_command(CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand("merge", "merge the shards of one run (graded with --shard i/n) into one run record");
  sqlgrade::cli::path_role(cmd->add_option("PARTS", args->parts, "run records of shards 1/n … n/n"), sqlgrade::cli::PathRole::ReadsFile)->required();
  sqlgrade::cli::add_out(cmd, args->output, "run record to write", "-o,--output")->required();
  sqlgrade::cli::add_quiet(cmd, args->quiet);
  sqlgrade::cli::add_no_progress(cmd, args->no_progress);
  cmd->callback([args]() { run_merge(*args); });
  sqlgrade::cli::example(cmd, "sqlgrade merge part1.json part2.json part3.json --out run.json");
}
