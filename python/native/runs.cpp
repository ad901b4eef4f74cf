// sqlgrade._native: `sqlgrade merge`, `diff` and `report` in-process (sqlgrade.runs) over
// include/sqlgrade/runs.hpp — the calls the CLI's commands make, which also check and write the
// output file they are given (refused when it would replace an input; atomic). The Ray drivers
// (python/sqlgrade/ray/) merge a run's shards with it without starting the CLI (docs/ray.md).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs.hpp"
#include "sqlgrade/uda.hpp"
#include "sqlgrade/verdict/registry.hpp"
#include "native.hpp"
#include "released.hpp"

namespace py = pybind11;

namespace {

// The run records at `parts` (shards 1/n … n/n of one run) as one record; `command` is recorded in
// it; written to `output` unless it is empty (by merge_files, as for the CLI). Reads, merges and writes without the GIL; bad parts raise
// _native.InputError with merge's one-line message (the file named).
py::dict merge(const std::vector<std::string>& parts, const std::vector<std::string>& command, const std::string& output) {
  const sqlgrade::runs::Merged m = sqlgrade_native::run_released([&] {
    // The summarizers rebuild each benchmark's printed table from the instances (as `sqlgrade merge`).
    sqlgrade::verdicts::register_run_summarizers();
    sqlgrade::uda::register_run_summarizer();
    return sqlgrade::runs::merge_files(parts, command, output);
  });
  py::dict d;
  d["record"] = m.record;
  d["text"] = m.summary_text ? py::object(py::str(*m.summary_text)) : py::object(py::none());
  d["parts"] = m.parts;
  d["instances"] = m.instances;
  return d;
}

// The library's one check that no output replaces an input (core/fs.hpp check_outputs_spare_inputs),
// for the Python drivers that write files themselves (sqlgrade.ray): outputs as (path, role, folder),
// inputs as (path, role); _native.InputError with the CLI's one-line message.
void check_outputs(const std::vector<std::tuple<std::string, std::string, bool>>& outputs,
                   const std::vector<std::pair<std::string, std::string>>& inputs) {
  std::vector<sqlgrade::IoPath> out, in;
  for (const auto& [path, role, folder] : outputs) out.push_back({path, role, {}, true, folder});
  for (const auto& [path, role] : inputs) in.push_back({path, role});
  sqlgrade_native::run_released([&] {
    sqlgrade::check_outputs_spare_inputs(out, in);
    return 0;
  });
}

// `sqlgrade diff A B [--json-out FILE]`: the terminal table and the JSON comparison.
py::dict diff(const sqlgrade::runs::DiffFilesOptions& opt) {
  const sqlgrade::runs::Diff d = sqlgrade_native::run_released([&] { return sqlgrade::runs::diff_files(opt); });
  py::dict out;
  out["text"] = d.text;
  out["json"] = d.json;
  return out;
}

// `sqlgrade report RUNS -o FILE`: the page (written to options.output unless it is empty).
py::dict report(const sqlgrade::runs::ReportFilesOptions& opt) {
  const sqlgrade::runs::Report r = sqlgrade_native::run_released([&] { return sqlgrade::runs::report_files(opt); });
  py::dict out;
  out["html"] = r.html;
  out["runs"] = r.runs;
  out["instances"] = r.instances;
  return out;
}

}  // namespace

void sqlgrade_native::register_runs(py::module_& m) {
  namespace rn = sqlgrade::runs;
  py::class_<rn::DiffFilesOptions>(m, "DiffOptions", "sqlgrade::runs::DiffFilesOptions (`sqlgrade diff`'s flags).")
      .def(py::init<>())
      .def_readwrite("a", &rn::DiffFilesOptions::a)
      .def_readwrite("b", &rn::DiffFilesOptions::b)
      .def_readwrite("bootstrap", &rn::DiffFilesOptions::bootstrap)
      .def_readwrite("seed", &rn::DiffFilesOptions::seed)
      .def_readwrite("confidence", &rn::DiffFilesOptions::confidence)
      .def_readwrite("common", &rn::DiffFilesOptions::common)
      .def_readwrite("axes", &rn::DiffFilesOptions::axes)
      .def_readwrite("agree", &rn::DiffFilesOptions::agree)
      .def_readwrite("list", &rn::DiffFilesOptions::list)
      .def_readwrite("json_out", &rn::DiffFilesOptions::json_out);
  py::class_<rn::ReportFilesOptions>(m, "ReportOptions", "sqlgrade::runs::ReportFilesOptions (`sqlgrade report`'s flags).")
      .def(py::init<>())
      .def_readwrite("runs", &rn::ReportFilesOptions::runs)
      .def_readwrite("title", &rn::ReportFilesOptions::title)
      .def_readwrite("bootstrap", &rn::ReportFilesOptions::bootstrap)
      .def_readwrite("seed", &rn::ReportFilesOptions::seed)
      .def_readwrite("common", &rn::ReportFilesOptions::common)
      .def_readwrite("output", &rn::ReportFilesOptions::output);
  m.def("diff", &diff, py::arg("options"),
        "`sqlgrade diff` in-process: {text, json} (GIL released; options.json_out written unless \"\").");
  m.def("report", &report, py::arg("options"),
        "`sqlgrade report` in-process: {html, runs, instances} (GIL released; options.output written unless \"\").");
  m.def("check_outputs", &check_outputs, py::arg("outputs"), py::arg("inputs"),
        "core/fs.hpp check_outputs_spare_inputs: outputs [(path, role, folder)] against inputs [(path, role)]; "
        "InputError when an output would replace an input.");
  m.def("merge", &merge, py::arg("parts"), py::arg("command"), py::arg("output"),
        "`sqlgrade merge` in-process: the shards' run records (files) as one record (GIL released, nothing printed).");
}
