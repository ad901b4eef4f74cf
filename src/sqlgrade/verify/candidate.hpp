#pragma once
// Candidate databases: a set of rows per table of a Schema, with where each row came from, and the
// strategies that make them (docs/verify.md "Search"). A candidate becomes a database in a ScratchDb
// (materialize.hpp); SQLite then rejects every row that breaks a declared constraint.
#include <cstdint>
#include <string>
#include <vector>

#include "sqlgrade/spider/sqlparse.hpp"
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

// A query's significant tokens (no whitespace, newlines or comments) as the project's sqlparse lexer
// reads them: the one token pass that the search's targets, the witness's rules and the gold-suspect
// rules share.
struct SqlWord {
  spider::sqlparse::TokType type;
  std::string text;   // as written
  std::string lower;  // lower-cased, inner whitespace collapsed to one space ("group by")
  std::string name;   // lower-cased, without the quotes of a quoted name ("x", `x`, [x] -> x)
  bool is_word() const;  // a Name, a quoted name or a Keyword
};
std::vector<SqlWord> significant_words(const std::string& sql);

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

// Where the queries point the search (docs/verify.md "Search"): a column compared with literals
// (`c < 5`, `c BETWEEN 1 AND 9`, `c IN ('a','b')`, `c LIKE 'x%'`, either side) and the values at its
// boundary (the literal, ±1, ±0.5 or ±0.01, converted to the column's affinity); and the columns an
// aggregate reads (`count(c)`, `count(DISTINCT c)`, `sum(c)`, ...): NULLs and repeated values there
// are what COUNT(*) vs COUNT(c) and COUNT(DISTINCT c) vs COUNT(c) turn on.
struct Boundary {
  size_t table = 0, column = 0;
  std::vector<Value> values;
  std::string from;                  // "gold", "pred" or "both"
  std::vector<std::string> filters;  // the comparisons as SQL on the column (`"age" < 7`), for seed_rows
};
struct QueryTargets {
  std::vector<Boundary> boundaries;
  std::vector<std::pair<size_t, size_t>> counted;  // (table, column)
  std::vector<std::pair<size_t, size_t>> joins;    // columns compared with a column (`a.x = b.y`): join keys
  std::vector<std::pair<size_t, std::string>> filters;  // (table, SQL) of several columns: `"a" - "b" > 30`
  std::vector<std::pair<size_t, size_t>> selected;      // columns of the outermost SELECT list
  // Columns a set operation or IN compares: the SELECT lists of every part of a UNION / EXCEPT /
  // INTERSECT and of an IN-subquery, and the column before IN. A value two of them share is what
  // these operations turn on (Spider dev 926: an owner and a dog both named Max).
  std::vector<std::pair<size_t, size_t>> shared;
};
// Columns are resolved by name among the tables `used` (an unqualified or aliased name may resolve to
// several tables: each is a target).
QueryTargets query_targets(const Schema& s, const std::vector<bool>& used, const std::string& gold_sql,
                           const std::string& pred_sql);

// Rows of the benchmark database that the queries' own filters select (every comparison of a
// column with literals of one table together, then each alone), with their foreign-key neighbours
// among the used tables (the parent rows they point to, the child rows that point to them): the rows
// a filter, a join and a LIMIT act on, which a random sample of a large table may miss. Read once
// per item, read-only, bounded (kSeedRows rows per table, a time budget).
struct Seeds {
  std::vector<std::vector<Row>> rows;          // per table of the Schema
  std::vector<std::vector<std::string>> src;   // per row: which filter or key selected it
};
constexpr size_t kSeedRows = 24;
Seeds seed_rows(const Schema& s, const std::vector<bool>& used, const QueryTargets& targets, const std::string& db_path);

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
  const QueryTargets* targets = nullptr;  // none: the targeted strategies fall back to constants
  const Seeds* seeds = nullptr;           // rows the dense base always includes
};

// Candidate number `index` of the search: the strategy cycles over boundary, counted, original-subset,
// duplicate, nulls, constants, ties, dense (a larger subset of the original rows with 1-3 of the
// targeted mutations), fresh and fresh-with-mutations; `rng` is seeded per (seed, item, index).
Candidate make_candidate(const GenContext& g, Rng& rng, size_t index);

// `base` grown by 1-3 of the mutations that change group sizes and join partners (a row copied with
// fresh keys, a join key re-pointed, a counted column changed): the search's step from a witness that
// only a tie-break decides towards one whose ties are broken (ties.hpp, verify.cpp).
Candidate grow_candidate(const GenContext& g, Rng& rng, Candidate base);

}  // namespace sqlgrade::verify
