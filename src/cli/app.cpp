// The `sqlgrade` command tree (app.hpp): built once by main.cpp for a run, and by the flag-table
// generator (flag_table_main.cpp) for the Python package.
#include "app.hpp"

#include <functional>
#include <string>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/engine/duckdb.hpp"
#include "sqlgrade/version.hpp"

#define SQLGRADE_COMMAND(name) void register_##name##_command(CLI::App& app);
#include "sqlgrade_commands.inc"
#undef SQLGRADE_COMMAND

namespace sqlgrade::cli {

void build_app(CLI::App& app) {
  app.require_subcommand(1);
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
}

}  // namespace sqlgrade::cli
