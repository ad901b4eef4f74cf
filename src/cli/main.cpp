// sqlgrade: thin command-line front end. Each benchmark module registers one subcommand
// (src/cli/<module>_cmd.cpp); this file only wires them up and maps errors to exit codes:
//   0 success, 1 a run that completed with failures the user asked to treat as fatal, 2 bad input.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app.hpp"
#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/errors.hpp"

int main(int argc, char** argv) {
  CLI::App app{"sqlgrade — fast, faithful grading for text-to-SQL and SQL-over-documents benchmarks"};
  sqlgrade::cli::invocation().assign(argv, argv + argc);
  sqlgrade::cli::build_app(app);  // app.cpp: every subcommand and the global flags
  try {
    // Both spellings of every flag (--db-root-path / --db_root_path) and "did you mean" (flags.hpp);
    // the run records keep the command line as typed (invocation()).
    // `verify --benchmark bird ...` / `audit --benchmark bird ...` → `verify bird ...` (flags.hpp).
    std::vector<std::string> args =
        sqlgrade::cli::resolve_spellings(app, sqlgrade::cli::benchmark_flag_as_subcommand({argv + 1, argv + argc}));
    std::vector<char*> resolved{argv[0]};
    for (auto& a : args) resolved.push_back(a.data());
    app.parse(static_cast<int>(resolved.size()), resolved.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line naming the flag ("sqlgrade: --timeout: must be ...; got nan"), exit 2, like every
    // other bad input (CLI11's own printer adds a second "Run with --help" line).
    std::fprintf(stderr, "sqlgrade: %s\n", sqlgrade::cli::first_line(e.what()).c_str());
    return 2;
  } catch (const sqlgrade::InputError& e) {
    std::fprintf(stderr, "sqlgrade: %s\n", sqlgrade::cli::first_line(e.what()).c_str());
    return 2;
  } catch (const sqlgrade::cli::Exit& e) {
    return e.code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sqlgrade: error: %s\n", sqlgrade::cli::first_line(e.what()).c_str());
    return 2;
  }
  return 0;
}
