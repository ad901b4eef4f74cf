#pragma once
// The bird benchmark as the Benchmark contract (exec/benchmark.hpp): its names, where its databases live,
// the check of one rollout and the item of the counterexample search (bench.cpp). Listed in
// verdict/registry.hpp.
#include "sqlgrade/exec/benchmark.hpp"

namespace sqlgrade::bird {

const Benchmark& benchmark();

}  // namespace sqlgrade::bird
