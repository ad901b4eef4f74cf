#pragma once
// evaluation.py's rebuild steps, applied to gold and prediction before comparing:
//   build_valid_col_units (top-level FROM tables), rebuild_sql_val (values → None, recursing into
//   WHERE/HAVING/ON sub-queries and set operations but not FROM sub-queries), rebuild_sql_col
//   (foreign-key canonicalisation of valid columns, DISTINCT flags → None; not inside WHERE/HAVING
//   sub-queries).
// Also the structural helpers shared by the evaluator and hardness.
#include "sqlgrade/spider/schema.hpp"
#include "sqlgrade/spider/sql.hpp"
#include "sqlgrade/spider/tokenize.hpp"

namespace sqlgrade::spider {

// The official rebuild unpacks every even-position element of a condition list as a cond_unit and
// crashes on a connector there (e.g. `… ON a = b AND` followed by another ON). Throws ParseError
// for such records so that callers can score them instead of crashing.
void check_condition_shape(const Sql& sql);

// Rebuild in place (both steps), using the record's own top-level FROM for the valid columns.
void rebuild_sql(Sql& sql, const DbInfo& db);

// Python truthiness helpers used by the components and hardness.
inline bool is_unit_at(const Condition& c, size_t i) { return i < c.size() && !c[i].is_conn; }

}  // namespace sqlgrade::spider
