#pragma once
// The spider2 benchmark as the Benchmark contract (exec/benchmark.hpp): its names, where its databases
// live, the check of one rollout and the item of the counterexample search (bench.cpp). Listed in
// verdict/registry.hpp.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/exec/benchmark.hpp"
#include "sqlgrade/spider2/compare.hpp"

namespace sqlgrade::spider2 {

const Benchmark& benchmark();

// The frames form of a gold: its alternatives, and whether it is one official <id>.csv (single) rather
// than <id>_a.csv, ...
struct FramesGold final : GoldForm {
  std::vector<Frame> frames;
  bool single_file = false;
  size_t heap_bytes() const override;
};

// True for an instance whose database is a local SQLite file: its id starts with "local" (case
// sensitive, as the official evaluate.py and `sqlgrade spider2` read it); bq*/ga*/sf* ids need
// BigQuery or Snowflake.
bool is_local(const std::string& instance_id);

// True when condition_cols is a list of lists (one per gold alternative) rather than one flat list.
// One gold then takes the multi-gold path, whose element 0 applies (NeMo Gym does the same).
bool per_alternative(const nlohmann::json& condition_cols);

}  // namespace sqlgrade::spider2
