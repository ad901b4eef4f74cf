#pragma once
// The CLI's flag definitions as data (issue 32, "generated, not copied"): every subcommand's options
// with their names, whether they take a value, CLI11's type name and their path role (flags.hpp
// PathRole). Written by the build (flag_table_main.cpp) into the Python package, whose Ray drivers
// read it instead of keeping a table of flags and guessing paths (python/sqlgrade/_tables.py).
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

namespace sqlgrade::cli {

// {"<command path>": [{"names": ["--gold", ...], "positional": NAME | null, "value": bool, "type": "TEXT",
//   "path": "reads_file" | ... | "value"}, ...]}; the command path is "spider", "spider parse",
// "uda run", ... ("" for the top level). A subcommand's list includes the options it inherits from its
// parents (fallthrough), after its own.
nlohmann::json flag_table(const CLI::App& app);

}  // namespace sqlgrade::cli
