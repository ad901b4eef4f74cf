#include "sqlgrade/spider/rebuild.hpp"

#include <string_view>

namespace sqlgrade::spider {

namespace {

void check_cond(const Condition& c) {
  for (size_t i = 0; i < c.size(); i += 2)
    if (c[i].is_conn) throw ParseError("condition list with a connector where a condition is expected");
  for (const auto& it : c) {
    if (it.is_conn) continue;
    if (it.v1.kind == Val::Query) check_condition_shape(*it.v1.sql);
    if (it.v2.kind == Val::Query) check_condition_shape(*it.v2.sql);
  }
}

// rebuild_condition_val: only even positions are cond_units; odd positions are left untouched.
void rebuild_val(Sql& sql);
void rebuild_cond_val(Condition& c) {
  for (size_t i = 0; i < c.size(); i += 2) {
    CondItem& it = c[i];
    for (Val* v : {&it.v1, &it.v2}) {
      if (v->kind == Val::Query) {
        rebuild_val(*v->sql);
      } else {
        v->kind = Val::None;
        v->str.clear();
      }
    }
  }
}
void rebuild_val(Sql& sql) {
  rebuild_cond_val(sql.from_conds);
  rebuild_cond_val(sql.having);
  rebuild_cond_val(sql.where);
  if (sql.intersect) rebuild_val(*sql.intersect);
  if (sql.except_) rebuild_val(*sql.except_);
  if (sql.union_) rebuild_val(*sql.union_);
}

struct ColRebuilder {
  const DbInfo& db;
  std::vector<std::string_view> prefixes;  // "__t" for each top-level FROM table

  bool valid(int id) const {
    if (id < 0 || static_cast<size_t>(id) >= db.n_idmap) return false;
    const std::string& p = db.prefix[static_cast<size_t>(id)];
    if (p.empty()) return false;
    for (auto q : prefixes)
      if (q == p) return true;
    return false;
  }
  void col(ColUnit& cu) const {
    if (valid(cu.col)) {
      auto it = db.kmap.find(cu.col);
      if (it != db.kmap.end()) cu.col = it->second;
    }
    cu.distinct = F_NONE;
  }
  void val(ValUnit& vu) const {
    col(vu.c1);
    if (vu.has_c2) col(vu.c2);
  }
  void cond(Condition& c) const {
    for (size_t i = 0; i < c.size(); i += 2) val(c[i].vu);
  }
  void sql(Sql& s) const {
    for (auto& it : s.select) val(it.vu);
    s.distinct = F_NONE;
    cond(s.from_conds);
    cond(s.where);
    for (auto& cu : s.group_by) col(cu);
    if (s.has_order)
      for (auto& vu : s.order_by) val(vu);
    cond(s.having);
    if (s.intersect) sql(*s.intersect);
    if (s.except_) sql(*s.except_);
    if (s.union_) sql(*s.union_);
  }
};

}  // namespace

void check_condition_shape(const Sql& sql) {
  check_cond(sql.from_conds);
  check_cond(sql.where);
  check_cond(sql.having);
  for (const Sql* s : {sql.intersect.get(), sql.except_.get(), sql.union_.get()})
    if (s) check_condition_shape(*s);
}

void rebuild_sql(Sql& sql, const DbInfo& db) {
  ColRebuilder rb{db, {}};
  for (const auto& tu : sql.table_units) {
    if (tu.is_sql || tu.table < 0 || static_cast<size_t>(tu.table) >= db.schema.names.size()) continue;
    std::string_view name = db.schema.names[static_cast<size_t>(tu.table)];
    if (name.size() >= 2) rb.prefixes.push_back(name.substr(0, name.size() - 2));
  }
  rebuild_val(sql);
  rb.sql(sql);
}

}  // namespace sqlgrade::spider
