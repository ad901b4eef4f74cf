// sqlgrade._native: the in-process backend of the Python package (protocol version 1, exactly
// python/sqlgrade/_native.pyi) over the public C++ API: sqlgrade::Verifier (include/sqlgrade/
// verdict.hpp) and sqlgrade::execute (include/sqlgrade/execute.hpp).
//
// Requests are converted from Python objects to JSON while the GIL is held; the verdicts and queries
// run with the GIL released, on the caller's thread (verdict, execute) or on `threads` worker
// threads (verdicts). One Verifier per process, so one gold cache shared by every thread.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/execute.hpp"
#include "sqlgrade/verdict.hpp"
#include "sqlgrade/version.hpp"
#include "native.hpp"

namespace py = pybind11;
using json = nlohmann::json;

namespace {

constexpr int kProtocolVersion = 1;
constexpr int kMaxDepth = 256;  // Python objects nested deeper are refused (like the server's JSON bodies)

sqlgrade::Verifier& verifier() {
  static sqlgrade::Verifier v;  // defaults: 30 s per query, 4096 gold results / 256 MiB cached
  return v;
}

PyObject* g_input_error = nullptr;  // sqlgrade._native.InputError

}  // namespace

void sqlgrade_native::raise_input(const std::string& msg) {
  PyErr_SetString(g_input_error, msg.c_str());
  throw py::error_already_set();
}

namespace {

using sqlgrade_native::raise_input;

json to_json(py::handle o, int depth = 0) {
  if (depth > kMaxDepth) raise_input("request nested deeper than 256 levels");
  if (o.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(o)) return o.cast<bool>();
  if (py::isinstance<py::int_>(o)) {
    try {
      return o.cast<long long>();
    } catch (const py::cast_error&) {
      return py::str(o).cast<std::string>();  // beyond 64 bits: its decimal text
    }
  }
  if (py::isinstance<py::float_>(o)) return o.cast<double>();
  if (py::isinstance<py::str>(o)) return o.cast<std::string>();
  if (py::isinstance<py::bytes>(o)) return o.cast<std::string>();
  if (py::isinstance<py::dict>(o)) {
    json j = json::object();
    for (auto item : o.cast<py::dict>()) {
      if (!py::isinstance<py::str>(item.first)) raise_input("request keys must be strings");
      j[item.first.cast<std::string>()] = to_json(item.second, depth + 1);
    }
    return j;
  }
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    json j = json::array();
    for (auto x : o) j.push_back(to_json(x, depth + 1));
    return j;
  }
  raise_input(std::string("cannot send a ") + py::str(py::type::handle_of(o).attr("__name__")).cast<std::string>() +
              " in a request (use None, bool, int, float, str, list or dict)");
}

py::object from_json(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return py::none();
    case json::value_t::boolean: return py::bool_(j.get<bool>());
    case json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case json::value_t::number_float: return py::float_(j.get<double>());
    case json::value_t::string: {
      const std::string& s = j.get_ref<const std::string&>();
      PyObject* u = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
      if (!u) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(u);
    }
    case json::value_t::array: {
      py::list l;
      for (auto& x : j) l.append(from_json(x));
      return l;
    }
    case json::value_t::object: {
      py::dict d;
      for (auto it = j.begin(); it != j.end(); ++it) d[py::str(it.key())] = from_json(it.value());
      return d;
    }
    default: return py::none();
  }
}

py::object cell(const sqlgrade::Value& v) {
  switch (v.kind) {
    case sqlgrade::Kind::Null: return py::none();
    case sqlgrade::Kind::Int: return py::int_(v.i);
    case sqlgrade::Kind::Real: return py::float_(v.r);
    case sqlgrade::Kind::Text: {
      PyObject* u = PyUnicode_DecodeUTF8(v.s.data(), static_cast<Py_ssize_t>(v.s.size()), "replace");
      if (!u) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(u);
    }
    case sqlgrade::Kind::Blob: return py::bytes(v.s);
  }
  return py::none();
}

json verdict_nogil(const json& req) {
  py::gil_scoped_release release;
  return verifier().verdict_json(req);
}

py::dict verdict(py::dict request) {
  json req = to_json(request);
  json reply;
  try {
    reply = verdict_nogil(req);
  } catch (const sqlgrade::InputError& e) {
    raise_input(e.what());
  }
  return from_json(reply).cast<py::dict>();
}

py::list verdicts(py::list requests, int threads) {
  std::vector<json> reqs;  // the bodies (for the echoed fields) ...
  std::vector<sqlgrade::VerdictRequest> parsed;  // ... and their requests, all validated before any work starts
  reqs.reserve(requests.size());
  parsed.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    py::handle r = requests[i];
    if (!py::isinstance<py::dict>(r)) raise_input("request " + std::to_string(i) + ": not a dict");
    reqs.push_back(to_json(r));
    try {
      parsed.push_back(verifier().request_of(reqs.back()));
    } catch (const sqlgrade::InputError& e) {
      raise_input("request " + std::to_string(i) + ": " + e.what());
    }
  }
  std::vector<json> out(reqs.size());
  std::string first_error;
  size_t first_index = 0;
  {
    py::gil_scoped_release release;
    std::mutex mu;
    unsigned jobs = sqlgrade::resolve_jobs(threads > 0 ? threads : 0);
    sqlgrade::parallel_for(reqs.size(), jobs, [&](size_t i) {
      try {
        out[i] = verifier().verdict_json(parsed[i], reqs[i]);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lk(mu);
        if (first_error.empty() || i < first_index) {
          first_error = e.what();
          first_index = i;
        }
      }
    });
  }
  if (!first_error.empty()) raise_input("request " + std::to_string(first_index) + ": " + first_error);
  py::list l;
  for (auto& r : out) l.append(from_json(r));
  return l;
}

py::dict execute(const std::string& db, const std::string& sql, double timeout, long long max_rows, long long max_bytes) {
  if (max_rows <= 0 || max_bytes <= 0) raise_input("max_rows and max_bytes must be > 0");
  sqlgrade::ExecuteLimits lim{timeout, static_cast<size_t>(max_rows), static_cast<size_t>(max_bytes)};
  sqlgrade::ExecuteResult r;
  try {
    py::gil_scoped_release release;
    r = sqlgrade::execute(db, sql, lim);
  } catch (const sqlgrade::InputError& e) {
    raise_input(e.what());
  }
  py::list rows;
  for (auto& row : r.table.rows) {
    py::list pr;
    for (auto& v : row) pr.append(cell(v));
    rows.append(std::move(pr));
  }
  py::dict d;
  d["status"] = r.status;
  d["columns"] = r.table.columns;
  d["rows"] = rows;
  d["truncated"] = r.truncated;
  d["error"] = r.error;
  py::dict t;
  t["total_s"] = r.total_s;
  d["timings"] = t;
  return d;
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "sqlgrade's C++ core in-process (protocol 1; see sqlgrade/_native.pyi). Use the sqlgrade package API.";
  m.attr("PROTOCOL_VERSION") = kProtocolVersion;
  // SQLite's memory statistics serialise every allocation across threads; switch them off now, before
  // anything in this process uses SQLite (too late, and a no-op, if Python's sqlite3 was imported first).
  sqlgrade::sqlite_configure_once();
  static py::exception<sqlgrade::InputError> input_error(m, "InputError", PyExc_ValueError);
  g_input_error = input_error.ptr();
  m.def("version", [] { return std::string(SQLGRADE_VERSION); }, "The sqlgrade version the module was built from.");
  m.def("verdict", &verdict, py::arg("request"), "One verdict (GIL released while it runs).");
  m.def("verdicts", &verdicts, py::arg("requests"), py::arg("threads") = 0,
        "Verdicts in request order on `threads` threads (0: all cores), GIL released for the batch.");
  m.def("execute", &execute, py::arg("db"), py::arg("sql"), py::arg("timeout"), py::arg("max_rows"),
        py::arg("max_bytes"), "Run one statement read-only under a deadline and caps.");
  sqlgrade_native::register_evaluate(m);
}
