#pragma once
// The registry of benchmarks: every Benchmark (exec/benchmark.hpp) the single-rollout verdict, the
// reward server and the binding know, each implemented in its own folder (spider/bench.cpp,
// bird/bench.cpp, spider2/bench.cpp). It sits above the benchmark folders, which implement the
// contract below them; adding a benchmark is one line here (docs/architecture.md).
#include <string>
#include <vector>

#include "sqlgrade/exec/benchmark.hpp"

namespace sqlgrade::verdicts {

// Every benchmark, in the order messages list them (spider2, spider, bird).
const std::vector<const Benchmark*>& benchmarks();
// The benchmark of a name or alias, any case; BadRequest "unknown benchmark '<name>' (expected
// spider2, spider or bird)" otherwise.
const Benchmark& benchmark_named(const std::string& name);
// The default of a request that names none (spider2).
const Benchmark& default_benchmark();

}  // namespace sqlgrade::verdicts
