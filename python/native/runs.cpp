// sqlgrade._native: `sqlgrade merge` in-process (sqlgrade.runs.merge) over include/sqlgrade/runs.hpp —
// the call the CLI's merge command makes, so the Ray drivers (python/sqlgrade/ray/) merge a run's
// shards without starting the CLI (docs/ray.md).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/bird.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs.hpp"
#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/uda.hpp"
#include "sqlgrade/core/fs.hpp"
#include "native.hpp"

namespace py = pybind11;

namespace {

// The run records at `parts` (shards 1/n … n/n of one run) as one record; `command` is recorded in
// it; written atomically to `output` unless it is empty, with the CLI's checks (an output that would
// replace a part is refused). Reads, merges and writes without the GIL; bad parts raise
// _native.InputError with merge's one-line message (the file named).
py::dict merge(const std::vector<std::string>& parts, const std::vector<std::string>& command, const std::string& output) {
  std::optional<sqlgrade::runs::Merged> m;
  std::string error;
  {
    py::gil_scoped_release release;
    // The summarizers rebuild each benchmark's printed table from the instances (as `sqlgrade merge`).
    sqlgrade::spider::register_run_summarizer();
    sqlgrade::bird::register_run_summarizer();
    sqlgrade::spider2::register_run_summarizer();
    sqlgrade::uda::register_run_summarizer();
    try {
      std::vector<sqlgrade::IoPath> in;
      for (const auto& p : parts) in.push_back({p, "PARTS"});
      if (!output.empty()) sqlgrade::check_outputs_spare_inputs({{output, "--output"}}, in);
      m.emplace(sqlgrade::runs::merge_files(parts, command));
      if (!output.empty()) sqlgrade::write_file_atomic(output, m->record);
    } catch (const sqlgrade::InputError& e) {
      error = e.what();
    }
  }
  if (!m) sqlgrade_native::raise_input(error.substr(0, error.find('\n')));
  py::dict d;
  d["record"] = m->record;
  d["text"] = m->summary_text ? py::object(py::str(*m->summary_text)) : py::object(py::none());
  d["parts"] = m->parts;
  d["instances"] = m->instances;
  return d;
}

}  // namespace

void sqlgrade_native::register_runs(py::module_& m) {
  m.def("merge", &merge, py::arg("parts"), py::arg("command"), py::arg("output"),
        "`sqlgrade merge` in-process: the shards' run records (files) as one record (GIL released, nothing printed).");
}
