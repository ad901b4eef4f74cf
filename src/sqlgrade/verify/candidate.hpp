#pragma once
// Candidate databases: a set of rows per table of a Schema, with where each row came from, and the
// strategies that make them (docs/verify.md "Search"). A candidate becomes a database in a ScratchDb
// (materialize.hpp); SQLite then rejects every row that breaks a declared constraint.
#include <cstdint>
#include <string>
#include <vector>

#include "sqlgrade/verify/schema.hpp"

namespace sqlgrade::verify {

// Deterministic generator (splitmix64): the same seed gives the same candidates on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next();
  size_t below(size_t n) { return n ? static_cast<size_t>(next() % n) : 0; }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  uint64_t s_;
};
uint64_t mix_seed(uint64_t seed, const std::string& salt, uint64_t index);

// A literal of one of the two queries (string, number), and which query it came from.
struct Constant {
  Value value;
  std::string from;  // "gold", "pred" or "both"
};
// The literals of both queries, read with the project's sqlparse lexer (spider/sqlparse.hpp): quoted
// strings ('..' and ".."), numbers; LIKE patterns also give their text without % and _.
std::vector<Constant> query_constants(const std::string& gold_sql, const std::string& pred_sql);
// Indices of the tables whose name appears as a word in either query (every table when a view is used).
std::vector<bool> tables_used(const Schema& s, const std::string& gold_sql, const std::string& pred_sql);

struct Candidate {
  std::vector<std::vector<Row>> rows;         // per table of the Schema, in its order
  std::vector<std::vector<std::string>> src;  // per row: where it came from
  std::string strategy;
  std::vector<std::string> mutations;
  size_t row_count() const;
};

struct GenContext {
  const Schema& schema;
  const std::vector<Constant>& constants;
  const std::vector<bool>& used;
  size_t rows_per_table;
};

// Candidate number `index` of the search: the strategy cycles over original-subset, duplicate, nulls,
// constants, ties, fresh and fresh-with-constants; `rng` is seeded per (seed, item, index).
Candidate make_candidate(const GenContext& g, Rng& rng, size_t index);

}  // namespace sqlgrade::verify
