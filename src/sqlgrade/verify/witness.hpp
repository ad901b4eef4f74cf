#pragma once
// Which witnesses convince a reviewer (docs/verify.md "Which witnesses count"). A database on which
// the gold and the prediction differ is
//  * degenerate when a table either query reads is empty, when both results are vacuous (no row, or
//    one row of NULLs and zeros: what an aggregate over no row gives), or when the results differ only
//    by floating-point noise. Shrinking never crosses into a degenerate database; a difference that
//    shows only on one is an `edge` finding, not a refutation;
//  * unrealistic when, in a column either query names, it breaks a property the benchmark data shows
//    in practice (schema.hpp Column::data_*): a NULL where the data has none, a value repeated where
//    the data's values are all distinct, a case or substring variant of a query constant that is not
//    a value of the data, a value outside a category's few values (a flag, a status), a reference
//    with nothing to point at where the data's references always have one (columns a query equates),
//    a copy of a referenced row's value that disagrees with it where the data's copies never do. The search prefers a witness that keeps them; when it finds none, the
//    finding is an `edge` and says which properties its witness breaks.
#include <string>
#include <vector>

#include "sqlgrade/verify/candidate.hpp"
#include "sqlgrade/verify/verify.hpp"

namespace sqlgrade::verify {

// What a gold/prediction pair reads and names, read once per item with the project's lexer.
struct QueryFacts {
  std::vector<size_t> read_tables;       // schema tables named after FROM / JOIN / a FROM list's comma
  std::vector<std::vector<bool>> named;  // [table][column]: the column's name appears in either query
                                         // (every column of a read table when a query selects *)
  std::vector<Constant> constants;       // the literals of both queries (query_constants)
  // Columns of two different read tables that either query equates (`a.x = b.y`, names resolved
  // against the read tables' columns): where the data keeps one inside the other (every x is a y), a
  // witness row whose x has no y is a dangling reference the data never shows.
  struct ColumnRef {
    size_t table = 0, column = 0;
  };
  std::vector<std::pair<ColumnRef, ColumnRef>> equated;
};
QueryFacts query_facts(const Schema& s, const std::string& gold_sql, const std::string& pred_sql);

// A result is vacuous: no row, or exactly one row whose every value is NULL or zero.
bool vacuous(const Table& t);
// The tolerance of float_noise (also the audit's nondeterminism check): reals that agree to this many
// significant digits are the same value.
inline constexpr int kFloatDigits = 12;
// The two results differ under `rule` but are the same once every real is rounded to kFloatDigits
// significant digits (last-bit noise of avg()/sum() computed in another order).
bool float_noise(const RuleSpec& rule, const Table& gold, const Table& pred);

// Why a database on which the two results differ is degenerate, "" when it is not.
std::string degenerate(const QueryFacts& f, const RuleSpec& rule, const Candidate& c, const Table& gold,
                       const Table& pred);

// The properties of the benchmark data that the rows of `c` break, in columns the queries name, one
// line each (e.g. `NULL in singer.Name (never NULL in the data)`). `db_path` is the benchmark database
// (opened read-only) to check whether a variant value occurs in the data.
std::vector<std::string> broken_properties(const QueryFacts& f, const Schema& s, const Candidate& c,
                                           const std::string& db_path);

// Fills cex->degenerate and cex->breaks for a re-checked witness (its rows and both results).
void classify_witness(const QueryFacts& f, const Schema& s, const Item& item, const Candidate& c,
                      Counterexample* cex);

// The witness fields of a counterexample's JSON: {"witness_rows": n, "degenerate": "...",
// "breaks": [...]} (the last two only when set).
nlohmann::json witness_json(const Counterexample& c);

// Witness sizes as a distribution: {"1": n, "2": n, ..., "6+": n, "median": m, "max": m} over the
// given counterexamples' row counts (empty: {}).
nlohmann::json witness_size_distribution(const std::vector<size_t>& rows);

}  // namespace sqlgrade::verify
