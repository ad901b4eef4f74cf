#pragma once
// What the two files of sqlgrade._native share (module.cpp defines it).
#include <pybind11/pybind11.h>

#include <string>

namespace sqlgrade_native {

// Raises _native.InputError(msg): the one way a bad request or input reaches Python.
[[noreturn]] void raise_input(const std::string& msg);

// Adds the whole-benchmark functions (evaluate.cpp) to the module.
void register_evaluate(pybind11::module_& m);

}  // namespace sqlgrade_native
