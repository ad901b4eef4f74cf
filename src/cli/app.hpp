#pragma once
// The `sqlgrade` command tree: every subcommand registered (src/cli/<command>_cmd.cpp), the global
// flags, the top-level example. main.cpp parses a command line with it; flag_table_main.cpp walks it.
#include <CLI/CLI.hpp>

namespace sqlgrade::cli {

void build_app(CLI::App& app);

}  // namespace sqlgrade::cli
