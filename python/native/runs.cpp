// sqlgrade._native: `sqlgrade merge`, `diff` and `report` in-process (sqlgrade.runs) over
// include/sqlgrade/runs.hpp — the calls the CLI's commands make, with the CLI's output checks
// (an output that would replace an input is refused) and atomic writes. The Ray drivers
// (python/sqlgrade/ray/) merge a run's shards with it without starting the CLI (docs/ray.md).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

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
#include "released.hpp"

namespace py = pybind11;

namespace {

// The run records at `parts` (shards 1/n … n/n of one run) as one record; `command` is recorded in
// it; written atomically to `output` unless it is empty, with the CLI's checks (an output that would
// replace a part is refused). Reads, merges and writes without the GIL; bad parts raise
// _native.InputError with merge's one-line message (the file named).
py::dict merge(const std::vector<std::string>& parts, const std::vector<std::string>& command, const std::string& output) {
  const sqlgrade::runs::Merged m = sqlgrade_native::run_released([&] {
    // The summarizers rebuild each benchmark's printed table from the instances (as `sqlgrade merge`).
    sqlgrade::spider::register_run_summarizer();
    sqlgrade::bird::register_run_summarizer();
    sqlgrade::spider2::register_run_summarizer();
    sqlgrade::uda::register_run_summarizer();
    std::vector<sqlgrade::IoPath> in;
    for (const auto& p : parts) in.push_back({p, "PARTS"});
    if (!output.empty()) sqlgrade::check_outputs_spare_inputs({{output, "--output"}}, in);
    sqlgrade::runs::Merged x = sqlgrade::runs::merge_files(parts, command);
    if (!output.empty()) sqlgrade::write_file_atomic(output, x.record);
    return x;
  });
  py::dict d;
  d["record"] = m.record;
  d["text"] = m.summary_text ? py::object(py::str(*m.summary_text)) : py::object(py::none());
  d["parts"] = m.parts;
  d["instances"] = m.instances;
  return d;
}

// `sqlgrade diff A B [--json-out FILE]`: the terminal table and the JSON comparison.
py::dict diff(const sqlgrade::runs::DiffFilesOptions& opt, const std::string& json_out) {
  const sqlgrade::runs::Diff d = sqlgrade_native::run_released([&] {
    if (!json_out.empty())
      sqlgrade::check_outputs_spare_inputs({{json_out, "--json-out"}}, {{opt.a, "RUN_A"}, {opt.b, "RUN_B"}});
    sqlgrade::runs::Diff r = sqlgrade::runs::diff_files(opt);
    if (!json_out.empty()) sqlgrade::write_file_atomic(json_out, r.json);
    return r;
  });
  py::dict out;
  out["text"] = d.text;
  out["json"] = d.json;
  return out;
}

// `sqlgrade report RUNS -o FILE`: the page (written to `output` unless it is empty).
py::dict report(const sqlgrade::runs::ReportFilesOptions& opt, const std::string& output) {
  const sqlgrade::runs::Report r = sqlgrade_native::run_released([&] {
    std::vector<sqlgrade::IoPath> in;
    for (const auto& p : opt.runs) in.push_back({p, "RUNS"});
    if (!output.empty()) sqlgrade::check_outputs_spare_inputs({{output, "--output"}}, in);
    sqlgrade::runs::Report x = sqlgrade::runs::report_files(opt);
    if (!output.empty()) sqlgrade::write_file_atomic(output, x.html);
    return x;
  });
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
      .def_readwrite("list", &rn::DiffFilesOptions::list);
  py::class_<rn::ReportFilesOptions>(m, "ReportOptions", "sqlgrade::runs::ReportFilesOptions (`sqlgrade report`'s flags).")
      .def(py::init<>())
      .def_readwrite("runs", &rn::ReportFilesOptions::runs)
      .def_readwrite("title", &rn::ReportFilesOptions::title)
      .def_readwrite("bootstrap", &rn::ReportFilesOptions::bootstrap)
      .def_readwrite("seed", &rn::ReportFilesOptions::seed)
      .def_readwrite("common", &rn::ReportFilesOptions::common);
  m.def("diff", &diff, py::arg("options"), py::arg("json_out"),
        "`sqlgrade diff` in-process: {text, json} (GIL released; --json-out written atomically unless \"\").");
  m.def("report", &report, py::arg("options"), py::arg("output"),
        "`sqlgrade report` in-process: {html, runs, instances} (GIL released; written atomically unless \"\").");
  m.def("merge", &merge, py::arg("parts"), py::arg("command"), py::arg("output"),
        "`sqlgrade merge` in-process: the shards' run records (files) as one record (GIL released, nothing printed).");
}
