#pragma once
// The shape of a SELECT statement as DuckDB's own parser sees it (json_serialize_sql): tables,
// select items with aliases and aggregates, GROUP BY, join keys, every column reference, string
// literal positions, and the query type used by the UDA-Bench evaluator.
#include <optional>
#include <string>
#include <vector>

namespace sqlgrade {
class DuckConn;
}  // namespace sqlgrade

namespace sqlgrade::uda {

struct ColumnRef {
  std::string table;   // qualifier as written ("" when unqualified)
  std::string column;  // column name as written
  std::string qualified() const { return table.empty() ? column : table + "." + column; }
};

struct SelectItem {
  std::string expr_text;    // the item's SQL text without its alias
  std::string alias;        // "" when none
  std::string output_name;  // alias, else the column name as written, else expr_text
  std::optional<ColumnRef> column;  // plain column, or the first column argument of a function
  bool is_agg = false;      // COUNT/SUM/AVG/MIN/MAX/... anywhere inside the item
  std::string agg;          // upper-case name of the outermost aggregate ("COUNT" for count(*))
  bool is_star = false;
  bool is_plain_column = false;
  size_t begin = 0;         // byte offset of the item's first character in the SQL text
};

struct TableRef {
  std::string name;   // as written
  std::string alias;  // "" when none
  std::string ref() const { return alias.empty() ? name : alias; }
};

struct StringLiteral {
  size_t begin = 0, end = 0;  // byte range of the quoted literal (quotes included)
  std::string value;          // unescaped content
};

enum class QueryType { SelectFilter, Join, Aggregation };
const char* to_string(QueryType t);

struct QueryShape {
  std::vector<TableRef> tables;  // every base table anywhere, first appearance order, distinct by name
  std::vector<SelectItem> select;
  std::vector<ColumnRef> group_by;       // GROUP BY items that are columns
  std::vector<std::string> group_by_text;  // every GROUP BY item's text
  std::vector<std::pair<ColumnRef, ColumnRef>> join_keys;  // equalities in JOIN ... ON
  std::vector<ColumnRef> columns;  // every column reference anywhere (select, where, join, group, having, order)
  std::vector<StringLiteral> literals;
  bool distinct = false;
  bool has_set_operation = false;  // UNION/INTERSECT/EXCEPT at the top
  QueryType type = QueryType::SelectFilter;
  // Calls that would build one value larger than kMaxValueBytes (engine.hpp) from constant arguments:
  // repeat/lpad/rpad/bar with a huge count or width, printf/format with a huge width or precision
  // (a number argument or digits inside the format string), e.g. "repeat(..., 1000000000)". DuckDB
  // builds such a value in one step, outside its memory_limit and beyond its interrupt (docs/safety.md),
  // so the UDA gold side refuses these statements instead of running them. Computed arguments
  // (repeat('x', 1000 * 1000000)) are not caught, except for the list builders: a scalar range() or
  // generate_series() is refused when its list would pass kMaxValueBytes (8 bytes per element) or when
  // its size is not a numeric constant (FROM range(...) streams its rows and is not concerned).
  std::vector<std::string> oversized_values;

  // Resolve a qualifier (alias or table name, case-insensitive) to the table name as written; "" if none.
  std::string table_for(const std::string& qualifier) const;
};

// Parses `sql` (one SELECT statement) with DuckDB's parser. Throws std::runtime_error with DuckDB's
// message when the statement does not parse or is not a single SELECT.
QueryShape parse_query_shape(DuckConn& conn, const std::string& sql);

// Returns `sql` with every string literal's content replaced by fn(content) (re-quoted).
template <class F>
std::string rewrite_literals(const std::string& sql, const QueryShape& shape, F fn);

// Returns `sql` with `text` inserted right before the first select item (after SELECT [DISTINCT]).
std::string insert_before_select_list(const std::string& sql, const QueryShape& shape, const std::string& text);

}  // namespace sqlgrade::uda

#include <algorithm>

namespace sqlgrade::uda {
template <class F>
std::string rewrite_literals(const std::string& sql, const QueryShape& shape, F fn) {
  std::vector<StringLiteral> lits = shape.literals;
  std::sort(lits.begin(), lits.end(), [](auto& a, auto& b) { return a.begin > b.begin; });
  std::string out = sql;
  for (auto& l : lits) {
    std::string v = fn(l.value), q = "'";
    for (char c : v) {
      if (c == '\'') q += '\'';
      q += c;
    }
    q += '\'';
    out.replace(l.begin, l.end - l.begin, q);
  }
  return out;
}
}  // namespace sqlgrade::uda
