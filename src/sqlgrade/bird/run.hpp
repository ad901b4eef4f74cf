#pragma once
// BIRD run internals. The run itself (Options, Instance, Run, evaluate) is public: sqlgrade/bird.hpp.
#include "sqlgrade/bird.hpp"

namespace sqlgrade::bird {

// Questions whose gold failed: timed out, or failed otherwise (error, too large). The run warns about
// them; the run record's summary counts them.
struct GoldFailures {
  size_t timeouts = 0, errors = 0;
};
GoldFailures gold_failures(const std::vector<Instance>& items);

// Gold results and checked (database, gold, prediction) outcomes shared by the systems of one
// evaluate_many (run.cpp).
struct SharedCache;
Run evaluate_with(const Options& opt, const std::function<void(const std::string&)>& warn, SharedCache& cache);

}  // namespace sqlgrade::bird
