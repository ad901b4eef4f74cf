#pragma once
// The registry of benchmarks: every Benchmark (exec/benchmark.hpp) the single-rollout verdict, the
// reward server and the binding know, each implemented in its own folder (spider/bench.cpp,
// bird/bench.cpp, spider2/bench.cpp). It sits above the benchmark folders, which implement the
// contract below them; adding a benchmark is one line here (docs/architecture.md).
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sqlgrade/exec/benchmark.hpp"

namespace sqlgrade::verdicts {

// Every benchmark, in the order messages list them (spider2, spider, bird).
const std::vector<const Benchmark*>& benchmarks();
// Every benchmark's summarizer of run records, registered (Benchmark::register_run_summarizer): what
// `sqlgrade merge` and the binding's merge call. UDA, not a Benchmark, registers its own beside it.
void register_run_summarizers();
// The benchmark of a name or alias, any case, whitespace around it ignored (Python's str.strip():
// py::strip, the rule the Python package applied first); BadRequest "unknown benchmark '<name>'
// (expected spider2, spider or bird)" otherwise, <name> stripped and lower-cased.
const Benchmark& benchmark_named(const std::string& name);
// The default of a request that names none (spider2).
const Benchmark& default_benchmark();

// The registry as data, for the Python package (python/sqlgrade/_tables.py: the native module's
// registry(), or the JSON the build writes from it): {"default": name, "benchmarks": [{"name",
// "aliases", "layout" ("nested" | "flat"), "database" (database("<root>", "<id>"): the layout as a
// path pattern), "grades_folders", "grades_servers"}, ...]} in benchmarks() order, and the request
// tables Python reads with it: "label_keys" (label_keys()), "extract_keys" (extract_switches()' names),
// "extract_presets" (answer::preset_names()).
nlohmann::json registry_table();

}  // namespace sqlgrade::verdicts
