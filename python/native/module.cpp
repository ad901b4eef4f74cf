// sqlgrade._native: the in-process backend of the Python package (protocol version 1, exactly
// python/sqlgrade/_native.pyi) over the public C++ API: sqlgrade::Grader (include/sqlgrade/
// verdict.hpp) and sqlgrade::execute (include/sqlgrade/execute.hpp).
//
// Requests are converted from Python objects to JSON while the GIL is held; the verdicts and queries
// run with the GIL released, on the caller's thread (verdict, execute) or on `threads` worker
// threads (verdicts). One Grader per process, so one gold cache shared by every thread.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/bounds.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/execute.hpp"
#include "sqlgrade/verdict/surrogates.hpp"
#include "sqlgrade/verdict.hpp"
#include "sqlgrade/verdict/request.hpp"
#include "sqlgrade/verdict/shaping.hpp"
#include "sqlgrade/version.hpp"
#include "native.hpp"

namespace py = pybind11;
using json = nlohmann::json;

namespace {

constexpr int kProtocolVersion = 1;
constexpr int kMaxDepth = 256;  // Python objects nested deeper are refused (like the server's JSON bodies)

// The process's Grader (defaults: 30 s per query, 4096 gold results / 256 MiB cached), replaced by
// set_spider2_gold_dir; a call in flight keeps the one it started with.
std::mutex g_grader_mu;
std::shared_ptr<sqlgrade::Grader> g_grader;

std::shared_ptr<sqlgrade::Grader> process_grader() {
  std::lock_guard<std::mutex> lk(g_grader_mu);
  if (!g_grader) g_grader = std::make_shared<sqlgrade::Grader>();
  return g_grader;
}

// Spider 2.0-Lite by instance_id in-process: the official gold folder (spider2lite_eval.jsonl +
// exec_result/), read by the Grader exactly as `sqlgrade serve --spider2-gold-dir` reads it. "" = none.
void set_spider2_gold_dir(const std::string& dir) {
  if (process_grader()->config().spider2_gold_dir == dir) return;
  sqlgrade::GraderConfig cfg;
  cfg.spider2_gold_dir = dir;
  std::shared_ptr<sqlgrade::Grader> v;
  try {
    py::gil_scoped_release release;
    v = std::make_shared<sqlgrade::Grader>(cfg);
  } catch (const sqlgrade::InputError& e) {
    sqlgrade_native::raise_input(e.what());
  }
  std::lock_guard<std::mutex> lk(g_grader_mu);
  g_grader = std::move(v);
}

PyObject* g_input_error = nullptr;  // sqlgrade._native.InputError

}  // namespace

void sqlgrade_native::raise_input(const std::string& msg) {
  PyErr_SetString(g_input_error, msg.c_str());
  throw py::error_already_set();
}

double sqlgrade_native::check_bound(const char* row, double value, const char* label) {
  if (auto m = sqlgrade::bounds::violation(sqlgrade::bounds::bound(row), value)) raise_input(std::string(label) + ": " + *m);
  return value;
}

namespace {

using sqlgrade_native::check_bound;
using sqlgrade_native::raise_input;

// The table of bounds as tuples (name, min, max, min_open, max_open, integer, unit, note, describe):
// python/sqlgrade/_bounds.py checks the package's numeric arguments against it (the same rows as the
// build's _bounds_table.json, native/bounds_table.cpp).
py::list bounds_table() {
  py::list out;
  for (const auto& b : sqlgrade::bounds::table())
    out.append(py::make_tuple(std::string(b.name), b.min, b.max, b.min_open, b.max_open, b.integer, std::string(b.unit),
                              std::string(b.note), sqlgrade::bounds::describe(b)));
  return out;
}

[[noreturn]] void bad_request(const std::string& msg) { throw sqlgrade::InputError("", msg); }

py::object steal_or_throw(PyObject* o) {
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

// A lone surrogate where only model output may hold one; `path` grows as the error leaves to_json.
struct LoneSurrogate {
  std::string path;
  unsigned code_unit;
};

// A str as UTF-8. Model output may hold lone surrogates (verdict/surrogates.hpp, issue 19): a high and a
// low half side by side are read as the one character they encode (what JSON and UTF-16 do), each
// other surrogate is kept as its 3-byte WTF-8 form, so that the verdict sees whether the graded SQL
// holds one. Anywhere else a surrogate throws LoneSurrogate.
std::string utf8_of(py::handle s, bool model_output) {
  Py_ssize_t n = 0;
  if (const char* p = PyUnicode_AsUTF8AndSize(s.ptr(), &n)) return std::string(p, static_cast<size_t>(n));
  PyErr_Clear();
  if (!model_output) {
    for (Py_ssize_t k = 0, len = PyUnicode_GetLength(s.ptr()); k < len; ++k) {
      const Py_UCS4 c = PyUnicode_ReadChar(s.ptr(), k);
      if (c >= 0xD800 && c <= 0xDFFF) throw LoneSurrogate{"", static_cast<unsigned>(c)};
    }
  }
  py::object u16 = steal_or_throw(PyUnicode_AsEncodedString(s.ptr(), "utf-16-le", "surrogatepass"));
  py::object joined = steal_or_throw(
      PyUnicode_DecodeUTF16(PyBytes_AS_STRING(u16.ptr()), PyBytes_GET_SIZE(u16.ptr()), "surrogatepass", nullptr));
  py::object wtf8 = steal_or_throw(PyUnicode_AsEncodedString(joined.ptr(), "utf-8", "surrogatepass"));
  return std::string(PyBytes_AS_STRING(wtf8.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(wtf8.ptr())));
}

// The InputError of a LoneSurrogate (the server's words, verdict/surrogates.hpp).
[[noreturn]] void lone_surrogate_input_error(const LoneSurrogate& e) {
  bad_request(sqlgrade::verdicts::lone_surrogate_error(e.path, e.code_unit));
}

// Python request objects as JSON (the fields of the top-level key model_output or sql may hold lone
// surrogates); InputError (the caller adds the request's index) for what JSON cannot carry.
json to_json_at(py::handle o, int depth, bool model_output);

json to_json(py::handle o) {
  try {
    return to_json_at(o, 0, false);
  } catch (const LoneSurrogate& e) {
    lone_surrogate_input_error(e);
  }
}

json to_json_at(py::handle o, int depth, bool model_output) {
  if (depth > kMaxDepth) bad_request("request nested deeper than 256 levels");
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
  if (py::isinstance<py::str>(o)) return utf8_of(o, model_output);
  if (py::isinstance<py::bytes>(o)) return o.cast<std::string>();
  if (py::isinstance<py::dict>(o)) {
    json j = json::object();
    for (auto item : o.cast<py::dict>()) {
      if (!py::isinstance<py::str>(item.first)) bad_request("request keys must be strings");
      std::string key;
      try {
        key = utf8_of(item.first, false);
      } catch (const LoneSurrogate&) {
        bad_request("a field name holds a lone surrogate: not valid Unicode");
      }
      try {
        j[key] = to_json_at(item.second, depth + 1,
                            model_output || (depth == 0 && sqlgrade::verdicts::is_model_output_field(key)));
      } catch (LoneSurrogate& e) {
        e.path = (depth == 0 ? key : "." + key) + e.path;  // labels[3].gold_sql, as the server names it
        throw;
      }
    }
    return j;
  }
  if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    json j = json::array();
    size_t i = 0;
    for (auto x : o) {
      try {
        j.push_back(to_json_at(x, depth + 1, model_output));
      } catch (LoneSurrogate& e) {
        e.path = "[" + std::to_string(i) + "]" + e.path;
        throw;
      }
      ++i;
    }
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

py::object cell(const sqlgrade::ExecuteCell& v) {
  using K = sqlgrade::ExecuteCell::Kind;
  switch (v.kind) {
    case K::Null: return py::none();
    case K::Int: return py::int_(v.i);
    case K::Real: return py::float_(v.r);
    case K::Text: {
      PyObject* u = PyUnicode_DecodeUTF8(v.s.data(), static_cast<Py_ssize_t>(v.s.size()), "replace");
      if (!u) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(u);
    }
    case K::Blob: return py::bytes(v.s);
  }
  return py::none();
}

json verdict_nogil(const json& req) {
  py::gil_scoped_release release;
  return sqlgrade::verdicts::verdict_json(*process_grader(), req);
}

py::dict verdict(py::dict request) {
  json reply;
  try {
    reply = verdict_nogil(to_json(request));
  } catch (const sqlgrade::InputError& e) {
    raise_input(e.what());
  }
  return from_json(reply).cast<py::dict>();
}

py::list verdicts(py::list requests, int threads) {
  std::vector<json> reqs;  // the bodies (for the echoed fields) ...
  std::vector<sqlgrade::VerdictRequest> parsed;  // ... and their requests, all validated before any work starts
  const std::shared_ptr<sqlgrade::Grader> grader = process_grader();
  reqs.reserve(requests.size());
  parsed.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    py::handle r = requests[i];
    if (!py::isinstance<py::dict>(r)) raise_input("request " + std::to_string(i) + ": not a dict");
    try {
      reqs.push_back(to_json(r));
      parsed.push_back(sqlgrade::verdicts::request_of(*grader, reqs.back()));
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
        out[i] = sqlgrade::verdicts::verdict_json(*grader, parsed[i], reqs[i]);
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

// `db` and `sql` are str (or bytes); the SQL is model output (a lone surrogate in it gives an error result).
py::dict execute(py::handle db_arg, py::handle sql_arg, double timeout, long long max_rows, long long max_bytes,
                 const std::string& now) {
  check_bound("timeout", timeout, "timeout");
  check_bound("max_rows", static_cast<double>(max_rows), "max_rows");
  check_bound("max_bytes", static_cast<double>(max_bytes), "max_bytes");
  sqlgrade::ExecuteLimits lim{timeout, static_cast<size_t>(max_rows), static_cast<size_t>(max_bytes), now};
  sqlgrade::ExecuteResult r;
  try {
    auto text = [](py::handle o, bool model, const char* name) {
      if (py::isinstance<py::bytes>(o)) return o.cast<std::string>();
      if (!py::isinstance<py::str>(o)) bad_request(std::string(name) + " must be a string");
      try {
        return utf8_of(o, model);
      } catch (const LoneSurrogate& e) {
        lone_surrogate_input_error({name, e.code_unit});
      }
    };
    const std::string db = text(db_arg, false, "db"), sql = text(sql_arg, true, "sql");
    py::gil_scoped_release release;
    r = sqlgrade::execute(db, sql, lim);
  } catch (const sqlgrade::InputError& e) {
    raise_input(e.what());
  }
  py::list rows;
  for (auto& row : r.rows) {
    py::list pr;
    for (auto& v : row) pr.append(cell(v));
    rows.append(std::move(pr));
  }
  py::dict d;
  d["status"] = r.status;
  d["columns"] = r.columns;
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
  // sqlgrade's private SQLite (its symbols hidden in this module, so Python's sqlite3 module cannot
  // initialise it first) is configured when the module loads; this call is a no-op kept for clarity.
  sqlgrade::sqlite_configure_once();
  static py::exception<sqlgrade::InputError> input_error(m, "InputError", PyExc_ValueError);
  g_input_error = input_error.ptr();
  m.def("version", [] { return std::string(SQLGRADE_VERSION); }, "The sqlgrade version the module was built from.");
  m.def("verdict", &verdict, py::arg("request"), "One verdict (GIL released while it runs).");
  m.def("set_spider2_gold_dir", &set_spider2_gold_dir, py::arg("path"),
        "Grade spider2 requests by instance_id against this official gold folder (as serve --spider2-gold-dir).");
  m.def("verdicts", &verdicts, py::arg("requests"), py::arg("threads") = 0,
        "Verdicts in request order on `threads` threads (0: all cores), GIL released for the batch.");
  m.def("execute", &execute, py::arg("db"), py::arg("sql"), py::arg("timeout"), py::arg("max_rows"),
        py::arg("max_bytes"), py::arg("now") = std::string(),
        "Run one statement read-only under a deadline and caps (`now`: SQL's clock, \"\" = the real one).");
  m.def("bounds", &bounds_table, "The library's table of numeric bounds (core/bounds.hpp), row by row.");
  m.def("bound_error", [](const std::string& row, double v) -> py::object {
        auto msg = sqlgrade::bounds::violation(sqlgrade::bounds::bound(row), v);
        return msg ? py::object(py::str(*msg)) : py::object(py::none());
      }, py::arg("row"), py::arg("value"), "The library's message for `value` on row `row`, or None when it is accepted.");
  m.def("label_keys", [] { return sqlgrade::verdicts::label_keys(); },
        "The library's one table of label keys (the adapters' data contract; /get_reward reads the same).");
  m.def("has_top_level_order_by", [](const std::string& sql) { return sqlgrade::verdicts::has_top_level_order_by(sql); },
        py::arg("sql"), "The rule of `order: \"top_level\"` (src/sqlgrade/verdict/shaping.cpp): ORDER BY outside every parenthesis.");
  sqlgrade_native::register_evaluate(m);
  sqlgrade_native::register_runs(m);
  sqlgrade_native::register_tables(m);
}
