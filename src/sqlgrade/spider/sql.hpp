#pragma once
// The parsed structure of the Spider SQL grammar (taoyds/spider process_sql.py), as the official
// evaluator builds it. Every field mirrors the Python record so that comparisons follow Python's `==`:
//   sql = {from: {table_units, conds}, select: (distinct, [(agg, val_unit)]), where, groupBy, having,
//          orderBy: [] | (direction, [val_unit]), limit, intersect, union, except}
// A column id is an int into the schema's symbol table (SpiderSchema::names), so equality of ids is
// equality of the official "__table.column__" strings.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace sqlgrade::spider {

// AGG_OPS, UNIT_OPS, WHERE_OPS in process_sql.py order (the index is the id).
enum Agg : int8_t { AGG_NONE = 0, AGG_MAX, AGG_MIN, AGG_COUNT, AGG_SUM, AGG_AVG };
enum UnitOp : int8_t { UNIT_NONE = 0, UNIT_MINUS, UNIT_PLUS, UNIT_TIMES, UNIT_DIV };
enum WhereOp : int8_t {
  OP_NOT = 0, OP_BETWEEN, OP_EQ, OP_GT, OP_LT, OP_GE, OP_LE, OP_NE, OP_IN, OP_LIKE, OP_IS, OP_EXISTS
};

// Python's False / True / None for the distinct flags (the rebuild step sets them to None).
enum Flag : int8_t { F_FALSE = 0, F_TRUE = 1, F_NONE = 2 };

struct Sql;

struct ColUnit {
  int8_t agg = AGG_NONE;
  int col = -1;
  int8_t distinct = F_FALSE;
  bool operator==(const ColUnit& o) const { return agg == o.agg && col == o.col && distinct == o.distinct; }
};

struct ValUnit {
  int8_t op = UNIT_NONE;
  ColUnit c1;
  bool has_c2 = false;
  ColUnit c2;
  bool operator==(const ValUnit& o) const {
    return op == o.op && c1 == o.c1 && has_c2 == o.has_c2 && (!has_c2 || c2 == o.c2);
  }
};

// A condition's right-hand side: None, a number (Python float), a quoted string token, a column
// (col_unit) or a nested query.
struct Val {
  enum Kind : int8_t { None, Num, Str, Col, Query } kind = None;
  double num = 0;
  std::string str;
  ColUnit col;
  std::unique_ptr<Sql> sql;
};
bool operator==(const Val& a, const Val& b);

// One element of a condition list. The official list alternates cond_unit, "and"/"or", cond_unit…
// but malformed inputs can break the alternation, and every consumer slices by position, so each
// element records what it really is.
struct CondItem {
  bool is_conn = false;
  bool is_or = false;  // connector: "or" (true) or "and"
  bool not_op = false;
  int8_t op = OP_EQ;
  ValUnit vu;
  Val v1, v2;
};
bool operator==(const CondItem& a, const CondItem& b);
using Condition = std::vector<CondItem>;

struct TableUnit {
  bool is_sql = false;
  int table = -1;  // symbol id of "__table__"
  std::unique_ptr<Sql> sql;
};
bool operator==(const TableUnit& a, const TableUnit& b);

struct SelItem {
  int8_t agg = AGG_NONE;
  ValUnit vu;
  bool operator==(const SelItem& o) const { return agg == o.agg && vu == o.vu; }
};

struct Sql {
  std::vector<TableUnit> table_units;
  Condition from_conds;
  int8_t distinct = F_FALSE;
  std::vector<SelItem> select;
  Condition where;
  std::vector<ColUnit> group_by;
  Condition having;
  bool has_order = false;   // orderBy is a (direction, list) tuple rather than []
  bool order_desc = false;  // direction: "desc" or "asc"
  std::vector<ValUnit> order_by;
  bool has_limit = false;
  long long limit = 0;
  std::unique_ptr<Sql> intersect, union_, except_;
};
bool operator==(const Sql& a, const Sql& b);
bool operator==(const std::unique_ptr<Sql>& a, const std::unique_ptr<Sql>& b) = delete;
// Equality of optional nested records (both null, or both present and equal).
bool same_sql(const Sql* a, const Sql* b);

// The schema as the parser sees it.
//  * tables: lower-cased table names in catalogue order with their lower-cased column names;
//  * id_map: "*", "table.column" and "table" → symbol id (the official idMap);
//  * names: symbol id → text ("__all__", "__t.c__", "__t__" for the evaluator; for the dataset
//    format of `spider parse` the ids are the tables.json indices and names are informational).
struct SpiderSchema {
  std::vector<std::string> table_names;
  std::vector<std::vector<std::string>> table_columns;
  std::unordered_map<std::string, int> table_index;  // name → position in table_names (last wins)
  std::unordered_map<std::string, int> id_map;
  std::vector<std::string> names;
  bool has_column(int table_pos, const std::string& col) const;
};

}  // namespace sqlgrade::spider
