#pragma once
// BIRD run internals. The run itself (Options, Instance, Run, evaluate) is public: sqlgrade/bird.hpp.
#include "sqlgrade/bird.hpp"
#include "sqlgrade/core/table.hpp"

namespace sqlgrade::bird {

// Metric value of one pair of results (EX/Soft-F1/EM+F1; VES metrics use ex_match for correctness).
double metric_value(Metric m, const Table& pred, const Table& gold);

// Gold results and checked (database, gold, prediction) outcomes shared by the systems of one
// evaluate_many (run.cpp).
struct SharedCache;
Run evaluate_with(const Options& opt, const std::function<void(const std::string&)>& warn, SharedCache& cache);

}  // namespace sqlgrade::bird
