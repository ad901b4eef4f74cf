// sqlgrade: thin command-line front end. Each benchmark module registers one subcommand
// (src/cli/<module>_cmd.cpp); this file only wires them up and maps errors to exit codes:
//   0 success, 1 a run that completed with failures the user asked to treat as fatal, 2 bad input.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/engine/duckdb.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/version.hpp"

#define SQLGRADE_COMMAND(name) void register_##name##_command(CLI::App& app);
#include "sqlgrade_commands.inc"
#undef SQLGRADE_COMMAND

int main(int argc, char** argv) {
  CLI::App app{"sqlgrade — fast, faithful grading for text-to-SQL and SQL-over-documents benchmarks"};
  app.require_subcommand(1);
  sqlgrade::cli::invocation().assign(argv, argv + argc);
  // A callback: asking DuckDB its version loads libduckdb, which only --version (and uda) should do.
  app.set_version_flag("--version", std::function<std::string()>([] {
                         return std::string("sqlgrade ") + SQLGRADE_VERSION + " (DuckDB " + sqlgrade::DuckDb::version() + ")";
                       }));
  // Bound on any one input file (every command; also accepted after the subcommand name).
  app.add_option_function<double>(
         "--max-input-mb",
         [](double mb) { sqlgrade::set_max_input_bytes(sqlgrade::cli::mib_to_bytes(mb)); },
         "largest input file read whole, in MiB (default 256; up to 4095): beyond it, a one-line error")
      ->check(sqlgrade::cli::bounded("max_input_mb"));
  app.fallthrough();  // inherited by the subcommands registered below
#define SQLGRADE_COMMAND(name) register_##name##_command(app);
#include "sqlgrade_commands.inc"
#undef SQLGRADE_COMMAND
  sqlgrade::cli::example(&app, "sqlgrade spider --gold dev_gold.sql --pred pred.sql --db database --table tables.json --etype all");
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
