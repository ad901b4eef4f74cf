#pragma once
// What the whole-benchmark files of sqlgrade._native share (evaluate.cpp, spider_eval.cpp): a library
// call run with the GIL released, its InputError raised as _native.InputError once the GIL is back.
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <utility>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/errors.hpp"
#include "native.hpp"

namespace sqlgrade_native {

// _native.InputError with the first line of the message, as the CLI prints an error.
[[noreturn]] inline void raise_input_line(const std::string& msg) { raise_input(sqlgrade::first_line(msg)); }

// Runs fn() without the GIL; an InputError becomes _native.InputError once the GIL is back.
template <class F>
auto run_released(F&& fn) -> decltype(fn()) {
  std::optional<decltype(fn())> out;
  std::string input_error;
  bool failed = false;
  {
    pybind11::gil_scoped_release release;
    try {
      out.emplace(fn());
    } catch (const sqlgrade::InputError& e) {
      failed = true;
      input_error = e.what();
    }
  }
  if (failed) raise_input_line(input_error);
  return std::move(*out);
}

// evaluate() and then render(run) without the GIL: the run, and what render made of it (`out`).
template <class Evaluate, class Render>
auto evaluate_released(Evaluate&& evaluate, Render&& render) {
  using Run = decltype(evaluate());
  struct Out {
    Run run;
    decltype(render(std::declval<Run&>())) out;
  };
  return run_released([&] {
    Out x{evaluate(), {}};
    x.out = render(x.run);
    return x;
  });
}

// What the CLI prints (render_text) and what its --json writes (render_json).
struct Rendered {
  std::string text, json;
};

}  // namespace sqlgrade_native
