#pragma once
// The verification flags shared by `sqlgrade verify` and the `--verify` option of `spider`, `bird`
// and `spider2 --mode sql` (docs/verify.md). Defined in verify_cmd.cpp.
#include <CLI/CLI.hpp>

#include <string>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/verify.hpp"

namespace sqlgrade::cli {

struct VerifyFlags {
  bool on = false;  // --verify (the benchmark commands only)
  sqlgrade::verify::Options opt;
  std::string json_out;  // sqlgrade verify --json FILE
};

// Adds --verify-budget, --verify-candidates, --seed, --counterexamples (and --verify when with_switch).
void add_verify_flags(CLI::App* cmd, VerifyFlags& f, bool with_switch);
// The --counterexamples folder (when verification runs) as an output for check_outputs_spare_inputs.
std::vector<IoPath> verify_outputs(const VerifyFlags& f, bool on);
// Checks the values (InputError naming the flag) and returns the options to use.
sqlgrade::verify::Options verify_options(const VerifyFlags& f, int jobs, bool no_progress);
// Prints the verification lines after a benchmark's official output (stdout).
void print_verify(const std::vector<sqlgrade::verify::SystemReport>& reports);
// --verify with --json/--json-dir: writes records[k] (a benchmark's run record, held back until the
// search is done) to paths[k] with system k's verification added. Empty paths are skipped.
void write_verified_records(const std::vector<std::string>& paths, const std::vector<std::string>& records,
                            const std::vector<sqlgrade::verify::SystemReport>& reports, const sqlgrade::verify::Options& opt);

}  // namespace sqlgrade::cli
