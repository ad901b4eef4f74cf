#include "sqlgrade/spider/sql_json.hpp"

namespace sqlgrade::spider {

namespace {
using J = nlohmann::ordered_json;

J flag(int8_t f) { return f == F_NONE ? J(nullptr) : J(f == F_TRUE); }
J col(const ColUnit& c) { return J::array({c.agg, c.col, flag(c.distinct)}); }
J val_unit(const ValUnit& v) { return J::array({v.op, col(v.c1), v.has_c2 ? col(v.c2) : J(nullptr)}); }
J value(const Val& v) {
  switch (v.kind) {
    case Val::None: return nullptr;
    case Val::Num: return v.num;
    case Val::Str: return v.str;
    case Val::Col: return col(v.col);
    case Val::Query: return sql_to_json(*v.sql);
  }
  return nullptr;
}
J cond(const Condition& c) {
  J a = J::array();
  for (const auto& it : c) {
    if (it.is_conn) a.push_back(it.is_or ? "or" : "and");
    else a.push_back(J::array({it.not_op, it.op, val_unit(it.vu), value(it.v1), value(it.v2)}));
  }
  return a;
}
J opt_sql(const std::unique_ptr<Sql>& s) { return s ? sql_to_json(*s) : J(nullptr); }
}  // namespace

nlohmann::ordered_json sql_to_json(const Sql& s) {
  J out = J::object();
  J tus = J::array();
  for (const auto& tu : s.table_units) {
    if (tu.is_sql) tus.push_back(J::array({"sql", sql_to_json(*tu.sql)}));
    else tus.push_back(J::array({"table_unit", tu.table}));
  }
  out["from"] = J{{"table_units", tus}, {"conds", cond(s.from_conds)}};
  J sel = J::array();
  for (const auto& it : s.select) sel.push_back(J::array({it.agg, val_unit(it.vu)}));
  out["select"] = J::array({flag(s.distinct), sel});
  out["where"] = cond(s.where);
  J gb = J::array();
  for (const auto& cu : s.group_by) gb.push_back(col(cu));
  out["groupBy"] = gb;
  out["having"] = cond(s.having);
  if (s.has_order) {
    J ob = J::array();
    for (const auto& vu : s.order_by) ob.push_back(val_unit(vu));
    out["orderBy"] = J::array({s.order_desc ? "desc" : "asc", ob});
  } else {
    out["orderBy"] = J::array();
  }
  out["limit"] = s.has_limit ? J(s.limit) : J(nullptr);
  out["intersect"] = opt_sql(s.intersect);
  out["union"] = opt_sql(s.union_);
  out["except"] = opt_sql(s.except_);
  return out;
}

}  // namespace sqlgrade::spider
