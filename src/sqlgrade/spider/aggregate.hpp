#pragma once
// Spider: the score table of a run from its examples (aggregate.cpp).
#include "sqlgrade/spider.hpp"

namespace sqlgrade::spider {

// Fills run.scores from run.examples (in order) and adds the "predictions do not parse" warning.
// Needs run.opt (compat, etype) and run.n_interactions.
void aggregate(Run& run);

}  // namespace sqlgrade::spider
