#pragma once
// BIRD input files: the gold SQL file, the prediction JSON and the difficulty/question file, in the
// Mini-Dev and the original layouts (bird-bench/mini_dev evaluation_utils.py, DAMO-ConvAI bird/llm).
#include <string>
#include <utility>
#include <vector>

#include "sqlgrade/bird/run.hpp"
#include "sqlgrade/core/fs.hpp"

namespace sqlgrade::bird {

struct GoldItem {
  std::string sql;
  std::string db_id;
  long line = 0;  // 1-based line in the gold file
};

struct QuestionInfo {
  std::string difficulty;  // "" when the file has none for this item
  std::string question;    // the question text ("question", and "evidence" when present); "" if none
  long long question_id = -1;
  std::string db_id;
};

// One top-level entry of the prediction JSON object, in file order.
struct PredEntry {
  std::string key;
  bool is_string = false;
  std::string raw;        // the string value (when is_string)
  std::string type_name;  // JSON type when not a string
};

struct PredFile {
  std::vector<PredEntry> entries;            // file order; a duplicated key keeps its first position
  std::vector<std::pair<std::string, int>> duplicate_keys;  // key, occurrences
};

// Gold file: one "SQL<TAB>db_id" per line (the last TAB separates the db_id). Trailing empty lines are
// ignored; an empty line before the end, or a line without a TAB, is an InputError.
std::vector<GoldItem> load_gold(const std::string& path);
// Prediction file: a JSON object. Duplicate keys keep the LAST value at the FIRST position (Python).
PredFile load_predictions(const std::string& path);
// Difficulty / question file: a JSON array (dev.json) or JSONL (one object per line).
std::vector<QuestionInfo> load_questions(const std::string& path);

// Split a prediction string on "\t----- bird -----\t". Exactly one separator: (sql, db_id) with the SQL
// unstripped; otherwise (Mini-Dev) the whole string stripped and db_id "" (the official code would use
// "financial", which only matters in the original layout, where it crashes instead).
std::pair<std::string, std::string> split_prediction(const std::string& raw, bool* had_separator = nullptr);

// Every path a BIRD run of these prediction files reads — each prediction and gold file (the original
// layout's predict_<mode>.json and <mode>_gold.sql included), the difficulty file and the databases
// (every .sqlite under --db_root_path): what no output may replace (core/fs.hpp, issue 31).
std::vector<IoPath> run_inputs(const Options& opt, const std::vector<std::string>& preds);

}  // namespace sqlgrade::bird
