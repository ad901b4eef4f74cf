#pragma once
// What the files of sqlgrade._native share (module.cpp defines it).
#include <pybind11/pybind11.h>

#include <string>

#include "sqlgrade/outcome.hpp"

namespace sqlgrade_native {

// Raises _native.InputError(msg): the one way a bad request or input reaches Python.
[[noreturn]] void raise_input(const std::string& msg);

// `value` when row `row` of the library's table of bounds (core/bounds.hpp) accepts it; otherwise
// _native.InputError "<label>: must be ...; got ..." (the message the server and the CLI give).
double check_bound(const char* row, double value, const char* label);

// The Python form of a check's outcome, the same for every benchmark (docs/python.md, "Outcome"):
// {"stage", "failure_reason", "status", "score", "detail", "deadline_hit"}.
pybind11::dict outcome_dict(const sqlgrade::Outcome& o);

// Adds the whole-benchmark functions (evaluate.cpp) to the module.
void register_evaluate(pybind11::module_& m);

// Adds spider_evaluate and spider_evaluate_both (spider_eval.cpp); register_evaluate calls it.
void register_spider_evaluate(pybind11::module_& m);

// Adds `merge` (runs.cpp) to the module.
void register_runs(pybind11::module_& m);

// Adds the library's tables (tables.cpp): registry, parse_shard.
void register_tables(pybind11::module_& m);

}  // namespace sqlgrade_native
