// Python `==` on the parsed records (tuples, lists, dicts, None, floats, strings).
#include "sqlgrade/spider/sql.hpp"

namespace sqlgrade::spider {

bool operator==(const Val& a, const Val& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Val::None: return true;
    case Val::Num: return a.num == b.num;  // nan != nan, as for two distinct Python floats
    case Val::Str: return a.str == b.str;
    case Val::Col: return a.col == b.col;
    case Val::Query: return same_sql(a.sql.get(), b.sql.get());
  }
  return false;
}

bool operator==(const CondItem& a, const CondItem& b) {
  if (a.is_conn != b.is_conn) return false;
  if (a.is_conn) return a.is_or == b.is_or;
  return a.not_op == b.not_op && a.op == b.op && a.vu == b.vu && a.v1 == b.v1 && a.v2 == b.v2;
}

bool operator==(const TableUnit& a, const TableUnit& b) {
  if (a.is_sql != b.is_sql) return false;
  if (!a.is_sql) return a.table == b.table;
  return same_sql(a.sql.get(), b.sql.get());
}

bool same_sql(const Sql* a, const Sql* b) {
  if (!a || !b) return a == b;
  return *a == *b;
}

bool operator==(const Sql& a, const Sql& b) {
  if (&a == &b) return true;
  return a.table_units == b.table_units && a.from_conds == b.from_conds && a.distinct == b.distinct &&
         a.select == b.select && a.where == b.where && a.group_by == b.group_by && a.having == b.having &&
         a.has_order == b.has_order && (!a.has_order || (a.order_desc == b.order_desc && a.order_by == b.order_by)) &&
         a.has_limit == b.has_limit && (!a.has_limit || a.limit == b.limit) &&
         same_sql(a.intersect.get(), b.intersect.get()) && same_sql(a.union_.get(), b.union_.get()) &&
         same_sql(a.except_.get(), b.except_.get());
}

}  // namespace sqlgrade::spider
