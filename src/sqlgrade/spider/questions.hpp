#pragma once
// The question text of Spider records: dev.json (a JSON array, one object per gold line with
// "question" and "db_id") given by --questions, or found beside the gold file.
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/spider.hpp"

namespace sqlgrade::spider {

struct Questions {
  std::string path;
  bool given = false;  // by Options::questions (a mismatch is an error), else found beside the gold
  std::vector<std::pair<std::string, std::string>> items;  // (question, db_id) per gold line
};

// Reads Options::questions (InputError naming the file when it is not such an array) or, without it
// and when a record is wanted (Options::keep_rows), dev.json in the gold file's folder (nothing when
// absent or unreadable as such).
std::optional<Questions> load_questions(const Options& opt);

// Sets Example::question of every run from q by question index. When an index is missing from q or
// its db_id differs from the example's: InputError (given) or a warning and no questions (found).
void attach_questions(const std::optional<Questions>& q, std::vector<Run>& runs);

}  // namespace sqlgrade::spider
