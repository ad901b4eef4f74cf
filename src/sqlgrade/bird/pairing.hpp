#pragma once
// BIRD: one run's inputs read and paired — the gold, prediction and question files (inputs.hpp), each
// prediction paired with its question (--pair-by), and the instances built from the pairs. Each step
// takes what it reads and returns what it makes; warnings go to the sink as they are found.
#include <functional>
#include <string>
#include <vector>

#include "sqlgrade/bird/inputs.hpp"

namespace sqlgrade::bird {

using Warn = std::function<void(const std::string&)>;

// The files of one run, read.
struct Inputs {
  InputFiles files;
  std::vector<GoldItem> gold;
  PredFile preds;
  std::vector<QuestionInfo> questions;  // empty without --diff_json_path (warned)
};
Inputs read_inputs(const Options& opt, const Warn& warn);

// Warns when the difficulty file disagrees with the gold file (length, db_id, duplicate question_ids).
void check_questions(const Inputs& in, const Warn& warn);

// Which prediction each gold question gets.
struct Pairing {
  PairBy mode = PairBy::Index;  // the --pair-by actually used (auto resolved)
  std::vector<int> pred_of;     // gold index -> prediction entry index (-1: none)
  size_t extra = 0;             // prediction keys that match no question (ignored)
};
Pairing pair_predictions(const Inputs& in, const Options& opt, const Warn& warn);

// One Instance per gold question: its gold, question and prediction (or why there is none), with one
// warning per kind of prediction problem.
std::vector<Instance> build_instances(const Inputs& in, const Pairing& p, const Options& opt, const Warn& warn);

// Instance ids: the question_id ("#k" for its k-th occurrence), the index without one.
void assign_ids(std::vector<Instance>& items);
// Per instance: 1 when it is in the run's shard (--shard; all when there is none).
std::vector<char> shard_mask(const std::vector<Instance>& items, const Options& opt);

}  // namespace sqlgrade::bird
