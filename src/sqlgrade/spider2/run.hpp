#pragma once
// Spider 2.0-Lite adapter: the run over every result folder (run.cpp), with its input readers
// (inputs.hpp) and the check of one (system, instance) (check.hpp).
#include <string>
#include <vector>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/check.hpp"
#include "sqlgrade/spider2/compare.hpp"
#include "sqlgrade/spider2/compare_v2.hpp"
#include "sqlgrade/spider2/inputs.hpp"

namespace sqlgrade::spider2 {

// What a run of these result folders reads — each folder's predictions (<id>.sql, or <id>.csv in
// exec_result mode), the gold folder, the databases (sql mode), the metadata: what no output may replace
// (core/fs.hpp check_outputs_spare_inputs; `spider2`, `verify spider2`, `audit`).
std::vector<IoPath> run_inputs(const Options& opt, const std::vector<std::string>& result_dirs);

// The whole run of several systems (one result folder each) in one pass, no printing, no writing (see
// report.hpp): the gold alternatives of an id are read once and each distinct (database, SQL) runs
// once; out[i] is result_dirs[i]'s run (opt.result_dir ignored). Throws InputError for bad inputs.
// evaluate_many() (spider2.hpp) is this plus the checks made before anything runs.
std::vector<Run> run_many(const Options& opt, const std::vector<std::string>& result_dirs);

}  // namespace sqlgrade::spider2
