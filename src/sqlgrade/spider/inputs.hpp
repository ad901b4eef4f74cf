#pragma once
// Every path a Spider run reads: what no output of `spider`, `verify spider` or `audit` may replace
// (core/fs.hpp check_outputs_spare_inputs, issue 31).
#include <string>
#include <vector>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/spider.hpp"

namespace sqlgrade::spider {

// The gold, each prediction file, tables.json, the questions (--questions, or dev.json beside the gold,
// which a run writing records reads) and the databases (every .sqlite under --db).
std::vector<IoPath> run_inputs(const Options& opt, const std::vector<std::string>& preds);

}  // namespace sqlgrade::spider
