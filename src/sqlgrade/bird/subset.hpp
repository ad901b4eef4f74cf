#pragma once
// Internals of the BIRD works_cycles prompt-optimisation subset (the subset, its schema prompt and
// their options are public: sqlgrade/bird.hpp; its shuffle is py/random.hpp): the recipe's table layout,
// and the {"answer": "..."} target format (read back by answer::json_answer with
// JsonAnswerRule::WholeFencedOrLastObject).
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/bird.hpp"

namespace sqlgrade::bird {

// nice_look_table(): each cell right-aligned to its column's widest str() (code points), followed by
// one space; header line, then one line per row.
std::string nice_look_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows);

// {"answer": "<SQL>"} as the subset's target string (JSON, ensure_ascii like Python's json.dumps).
std::string answer_json(const std::string& sql);

}  // namespace sqlgrade::bird
