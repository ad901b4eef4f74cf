// The dataset's `sql` JSON of a parsed query, and `sqlgrade spider parse` (SQL<TAB>db_id lines → JSON).
#include "sqlgrade/spider/sql_json.hpp"

#include <unordered_map>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/io.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider/parser.hpp"
#include "sqlgrade/spider/schema.hpp"

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

std::vector<std::string> parse_lines_to_json(const std::vector<std::string>& lines, const std::string& tables_json,
                                             bool testsuite_limit, size_t* n_errors) {
  auto tables = load_tables_json(tables_json);
  std::unordered_map<std::string, SpiderSchema> schemas;
  std::vector<std::string> out;
  size_t errors = 0;
  long no = 0;
  for (const auto& raw : lines) {
    ++no;
    std::string s = py::strip(raw);
    if (s.empty()) continue;
    auto f = split(s, "\t");
    nlohmann::ordered_json o;
    if (f.size() != 2) throw InputError("<stdin>", "expected `SQL<TAB>db_id`", no);
    o["db_id"] = f[1];
    o["query"] = f[0];
    auto it = tables.find(f[1]);
    if (it == tables.end()) throw InputError(tables_json, "no entry for db_id '" + f[1] + "'");
    auto sit = schemas.find(f[1]);
    if (sit == schemas.end()) sit = schemas.emplace(f[1], dataset_schema(it->second)).first;
    try {
      auto sql = parse_sql(sit->second, f[0], ParseOptions{testsuite_limit});
      o["sql"] = sql_to_json(*sql);
    } catch (const ParseError& e) {
      ++errors;
      o["sql"] = nullptr;
      o["error"] = e.what();
    }
    out.push_back(o.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  }
  if (n_errors) *n_errors = errors;
  return out;
}

ParseOutput parse_to_json(std::string text, const std::string& tables_json, bool testsuite_limit) {
  strip_bom(text);
  ParseOutput r;
  auto objs = parse_lines_to_json(py::split_lines_universal(text), tables_json, testsuite_limit, &r.n_errors);
  r.json = "[\n";
  for (size_t i = 0; i < objs.size(); ++i) r.json += "  " + objs[i] + (i + 1 < objs.size() ? ",\n" : "\n");
  r.json += "]\n";
  return r;
}

}  // namespace sqlgrade::spider
