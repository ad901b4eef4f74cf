#pragma once
// The spider benchmark as the Benchmark contract (exec/benchmark.hpp): its names, where its databases live,
// the check of one rollout and the item of the counterexample search (bench.cpp). Listed in
// verdict/registry.hpp.
#include "sqlgrade/exec/benchmark.hpp"
#include "sqlgrade/spider/exec_evaluator.hpp"

namespace sqlgrade::spider {

const Benchmark& benchmark();

// A test-suite verdict (ExecEvaluator::evaluate: a gold SQL on every database of its folder) as the
// Outcome of every benchmark: equal, gold_failed, timeout, pred_failed or different, with its reason.
Outcome outcome_of(ExecVerdict v);

}  // namespace sqlgrade::spider
