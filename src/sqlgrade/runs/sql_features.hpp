#pragma once
// SQL features of a query for the report's breakdown: JOIN, GROUP BY, nested query, ORDER BY/LIMIT,
// set operation. A small lexer (strings, quoted identifiers and comments skipped; no regexes) and
// paren tracking; any dialect the benchmarks use (SQLite, BigQuery, Snowflake, DuckDB).
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::runs {

enum SqlFeature : unsigned {
  kJoin = 1u << 0,        // JOIN keyword, or a comma between FROM items (FROM a, b)
  kGroupBy = 1u << 1,     // GROUP BY or HAVING at query level
  kNested = 1u << 2,      // a parenthesised SELECT/WITH/VALUES: subquery, derived table or CTE body
  kOrderLimit = 1u << 3,  // ORDER BY, LIMIT or FETCH FIRST/NEXT at query level (not inside OVER(…) or an aggregate's parens)
  kSetOp = 1u << 4,       // UNION, INTERSECT, EXCEPT (not BigQuery's SELECT * EXCEPT(…))
};

unsigned classify_sql(std::string_view sql);

struct FeatureInfo {
  SqlFeature bit;
  const char* name;   // "join", "group_by", "nested", "order_limit", "set_op"
  const char* label;  // "JOIN", "GROUP BY", …
};
const std::vector<FeatureInfo>& sql_features();
std::vector<std::string> feature_names(unsigned mask);

}  // namespace sqlgrade::runs
