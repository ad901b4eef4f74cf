#pragma once
// Internals of the BIRD works_cycles prompt-optimisation subset (the subset, its schema prompt and
// their options are public: sqlgrade/bird.hpp; its shuffle is py/random.hpp): the recipe's table layout,
// and the {"answer": "..."} output format read back from model output.
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

// Read the SQL back from a model output holding {"answer": "..."}: the whole text, a ```json fenced
// block, or the last JSON object in the text whose "answer" is a string. nullopt when none is found.
std::optional<std::string> extract_answer(const std::string& model_output);

}  // namespace sqlgrade::bird
