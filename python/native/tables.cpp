// The library's tables that the Python package reads instead of keeping copies (issue 32, "generated,
// not copied"): the registry of benchmarks (verdict/registry.hpp) and the `--shard i/n` parser
// (runs/ids.hpp), and the CLI's flag table (src/cli/flag_table.hpp: every flag's names and path role,
// written by the build as generated/cli_flags.inc and embedded here; the module does not link the CLI).
// python/sqlgrade/_tables.py is their one reader.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/verdict/registry.hpp"
#include "native.hpp"

namespace py = pybind11;

namespace {
const char* const kCliFlags =
#include "cli_flags.inc"
    ;
}  // namespace

void sqlgrade_native::register_tables(py::module_& m) {
  m.def("registry", [] { return sqlgrade::verdicts::registry_table().dump(); },
        "The registry of benchmarks as JSON text (verdict/registry.hpp registry_table()).");
  m.def("cli_flags", [] { return std::string(kCliFlags); },
        "The CLI's flag table as JSON text (src/cli/flag_table.hpp): names, value, type and path role per command.");
  m.def("parse_shard", [](const std::string& spec) {
        try {
          const sqlgrade::runs::Shard s = sqlgrade::runs::parse_shard(spec);
          return std::pair<int, int>(s.index, s.count);
        } catch (const sqlgrade::InputError& e) {
          raise_input(e.what());
        }
      }, py::arg("spec"), "`--shard i/n` as (i, n), by the CLI's parser (runs::parse_shard); InputError otherwise.");
  m.def("locate_database", [](const std::string& benchmark, const std::string& root, const std::string& db_id) {
        try {
          const sqlgrade::Located at = sqlgrade::verdicts::benchmark_named(benchmark).locate(root, db_id);
          return std::pair<std::string, std::string>(at.path, at.error);
        } catch (const std::exception& e) {
          raise_input(e.what());
        }
      }, py::arg("benchmark"), py::arg("root"), py::arg("db_id"),
        "Where `db_id` is under `root` for `benchmark`, as the reward server looks it up (Benchmark::locate): "
        "(path, \"\") when found, (\"\", why) when the folder cannot serve it, (\"\", \"\") when nothing is there.");
}
