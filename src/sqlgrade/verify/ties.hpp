#pragma once
// Ties (docs/verify.md "Which witnesses count"): a difference counts only when the gold's result on the
// witness is determined by the query, and the prediction's result is not one the gold could also give.
// A query's result is undetermined where SQL leaves a choice: the cut of an ORDER BY ... LIMIT/OFFSET
// inside a group of rows equal on the sort keys (top level or in a subquery), LIMIT without ORDER BY,
// the order of rows the top level does not sort (GROUP BY key order, scan order), a bare column of a
// group. The check runs the query in variants that break those choices differently and compares:
//   * `asc` / `desc`: every ORDER BY clause followed by every output column as a further key
//     (`ORDER BY k, 1, 2, ..., n` and `ORDER BY k, 1 DESC, ..., n DESC`: the first and the last of the
//     tied rows), and `ORDER BY 1, ..., n` (ASC / DESC) inserted before a LIMIT that has no ORDER BY;
//   * reversed unordered scans (`PRAGMA reverse_unordered_selects`, run by the caller).
// The number of output columns of each clause's SELECT is read from SQLite itself (the "ORDER BY term
// out of range - should be between 1 and N" error of a probe), so `SELECT *`, compound selects and
// subqueries need no parsing of the select list; an ORDER BY that SQLite does not read as the
// statement's sort (a window's, an aggregate's) is left alone.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/core/table.hpp"
#include "sqlgrade/engine/engine.hpp"
#include "sqlgrade/verify/verify.hpp"

namespace sqlgrade::verify {

struct TieVariants {
  std::string asc, desc;   // "" when the query has no ORDER BY / LIMIT to break ties in
  bool top_order = false;  // the statement sorts its own result (an ORDER BY outside every parenthesis)
  // Each parenthesised subquery that has a cut of its own, as a statement alone, both ways (asc, desc):
  // where it runs alone (not correlated) and the two differ, its cut falls inside a tie even when the
  // whole query's result does not show it (`= (SELECT id ... ORDER BY capacity DESC LIMIT 1)` counting
  // one of two tied stadiums' concerts: Spider dev 43).
  std::vector<std::pair<std::string, std::string>> subqueries;
  size_t cuts = 0;  // the clauses broken in asc / desc
};

// Runs one statement and returns its result (the caller's connection and bounds).
using RunSql = std::function<ExecResult(const std::string&)>;

// The variants of `sql`; `run` is called once per clause with a probe statement (it fails to prepare,
// so nothing is read) to learn the clause's column count.
TieVariants tie_variants(const std::string& sql, const RunSql& run);

// The rule with row order ignored (Spider: order_matters off; Spider 2.0: ignore_order on).
RuleSpec order_free(const RuleSpec& rule);

// A query's results on one database: as written, with unordered scans reversed, and the tie-break
// variants (absent when the query has none, or when a variant did not run).
struct QueryRuns {
  Table base, reversed;
  std::optional<Table> asc, desc;
  bool top_order = false;
  bool inner_tie = false;  // a subquery's cut falls inside a tie (TieVariants::subqueries differ)
  std::vector<const Table*> all() const;
};

// What a database shows about two queries whose results (as written) differ under `rule`. A query's
// answers there are the results its tie-breaks give (its variants; the rows tied at its top-level cut).
//  * Differs: a clean difference — no gold variant equals a prediction variant, no cut of a gold
//    subquery falls inside a tie, and for each query either its result is determined (every variant
//    gives it, row order ignored) or none of its answers is the other's result: every variant of it
//    has one size and every variant of the other another (a LIMIT 1 gold against a prediction that
//    returns every tied row), or the membership check (`*_could_give_*`: the query's only cut is its
//    top-level LIMIT, its tied rows read with their ranks — ranked_query, cut_could_give) answers
//    false. When only the order differs, the gold must sort its result (an ORDER BY outside every
//    parenthesis) with every tie-break giving the same order, and so must the prediction if it sorts;
//  * Tie: anything else that differs — a tie-break makes the results agree, the witness asks the gold
//    what it answers arbitrarily (`inner_tie`: Spider dev 43), one query's result may be one of the
//    other's answers, or only the order of rows differs that the gold leaves unsorted (GROUP BY key
//    order, scan order) or sorts with ties: not a proof that the prediction is wrong;
//  * Same: the results (as written) do not differ.
enum class TieVerdict { Same, Differs, Tie };
using Membership = std::function<std::optional<bool>()>;
TieVerdict judge_ties(const RuleSpec& rule, const QueryRuns& gold, const QueryRuns& pred,
                      const Membership& gold_could_give_pred = {}, const Membership& pred_could_give_gold = {});

// The tie group at a query's top-level cut: `SELECT list FROM ... ORDER BY keys LIMIT n` (no OFFSET,
// no DISTINCT, no compound) rewritten to `SELECT list, RANK() OVER (ORDER BY keys) FROM ... ORDER BY
// keys` — every row with its rank, so the rows tied at the cut are known; `SELECT list FROM ... LIMIT
// n` to `SELECT list, 0 FROM ...` (every row tied). nullopt for other shapes.
struct RankedQuery {
  std::string sql;
  size_t limit = 0;
};
std::optional<RankedQuery> ranked_query(const std::string& sql);
// A top-level `SELECT list FROM ... ORDER BY keys LIMIT n` with NULLS LAST on every ascending key
// (SQLite sorts NULL first, as the smallest value): `sql` that query, `flagged` the same without its
// LIMIT and with one more column, 1 where an ascending key is NULL. nullopt for other shapes or when no
// key is ascending.
struct NullsLast {
  std::string sql, flagged;
  size_t limit = 0;
};
std::optional<NullsLast> nulls_last(const std::string& sql);

// Whether some choice among the rows tied at the cut (`ranked`: the RankedQuery's result, rank last)
// gives the result `other` under `rule` with row order ignored (either query's: the rule's gold side
// is the choice); nullopt when the cut is not inside a tie there or the choices are too many to try
// (kMaxTieChoices).
inline constexpr size_t kMaxTieChoices = 256;
std::optional<bool> cut_could_give(const RuleSpec& rule, const Table& ranked, size_t limit, const Table& other);

}  // namespace sqlgrade::verify
