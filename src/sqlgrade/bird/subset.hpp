#pragma once
// The BIRD works_cycles prompt-optimisation subset (seed "BIRD-bench"): filter train.json by db_id,
// shuffle with a seed, split [0, train) / [train, train + valid); the schema prompt of its recipe;
// and the {"answer": "..."} target format (read back by answer::json_answer with
// JsonAnswerRule::WholeFencedOrLastObject). The shuffle is CPython's (py/random.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sqlgrade::bird {

struct SubsetOptions {
  std::string data_path;          // train.json (JSON array of {db_id, question, evidence, SQL, ...})
  std::string db_id = "works_cycles";
  uint64_t seed = 1;
  size_t train = 100, valid = 100;
  std::string db_path;            // optional: add "schema_prompt" to every item from this database
  int rows = 0;                   // example rows in the schema prompt (0 = none)
  bool keep_sqlite_sequence = false;
};

struct SubsetItem {
  size_t source_index = 0;  // position in the input file
  std::string json;         // the item as a compact JSON object (input fields + added ones)
  std::string sql, db_id;
};

struct Subset {
  std::vector<SubsetItem> train, valid;
  size_t matched = 0;  // items with the requested db_id
};

// Filter, shuffle (py::Random(seed).shuffle over the filtered list in file order), split.
// Each output item keeps the input object's fields and adds "source_index", "answer" (the
// {"answer": "<SQL>"} target string) and, when a database is given, "schema_prompt".
Subset build_subset(const SubsetOptions& opt);

// The recipe's schema prompt: every table's CREATE statement in sqlite_master order, separated by a
// blank line; sqlite_sequence skipped unless keep_sqlite_sequence (the original code's skip test
// compares a tuple with a string and never fires, so the original prompt does include it). With
// rows > 0 each table is followed by
//   " \n /* \n N example rows: \n SELECT * FROM t LIMIT N; \n <aligned table> \n */"
// where tables named order/by/group are written in backquotes.
std::string schema_prompt(const std::string& db_path, int rows = 0, bool keep_sqlite_sequence = false);

// nice_look_table(): each cell right-aligned to its column's widest str() (code points), followed by
// one space; header line, then one line per row.
std::string nice_look_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows);

// {"answer": "<SQL>"} as the subset's target string (JSON, ensure_ascii like Python's json.dumps).
std::string answer_json(const std::string& sql);

}  // namespace sqlgrade::bird
