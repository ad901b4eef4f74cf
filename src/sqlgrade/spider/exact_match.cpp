// Spider exact set match: the comparison rule. Mirrors taoyds/spider @ b7b5b8c evaluation.py
// (Evaluator.eval_partial_match / eval_exact_match, get_scores, the component helpers eval_sel ...
// eval_keywords) — shared unchanged by taoyds/test-suite-sql-eval @ e97acc5 evaluation.py; spec
// shared/spec/official-evaluators.md §1.9-1.10. Also the ORIGINAL Spider execution check of that
// evaluation.py (eval_exec_match, columns keyed by the parsed select items, §1.14). Both records are
// rebuilt first (rebuild.cpp, §1.8); hardness is in hardness.cpp (§1.11).
#include "sqlgrade/spider/exact_match.hpp"

#include <cmath>
#include <cstdint>
#include <string_view>

#include "sqlgrade/py/equality.hpp"

namespace sqlgrade::spider {

const char* const kComponentNames[C_COUNT] = {"select", "select(no AGG)", "where",  "where(no OP)", "group(no Having)",
                                              "group",  "order",          "and/or", "IUEN",         "keywords"};

namespace {

ComponentScore scores(int label_total, int pred_total, int count) {
  ComponentScore c{label_total, pred_total, count, 0};
  // get_scores(count, pred_total, label_total)
  c.score = (pred_total == label_total && count == pred_total) ? 1 : 0;
  return c;
}

// Greedy multiset intersection with first-match removal (Python `in` + list.remove).
template <class T, class Eq>
int multiset_hits(const std::vector<const T*>& pred, const std::vector<const T*>& label, Eq eq) {
  std::vector<char> used(label.size(), 0);
  int cnt = 0;
  for (const T* p : pred)
    for (size_t j = 0; j < label.size(); ++j)
      if (!used[j] && eq(*p, *label[j])) {
        used[j] = 1;
        ++cnt;
        break;
      }
  return cnt;
}

std::vector<const CondItem*> even_items(const Condition& c) {
  std::vector<const CondItem*> v;
  for (size_t i = 0; i < c.size(); i += 2) v.push_back(&c[i]);
  return v;
}

// set(items at odd positions) with Python equality.
std::vector<const CondItem*> odd_set(const Condition& c) {
  std::vector<const CondItem*> v;
  for (size_t i = 1; i < c.size(); i += 2) {
    bool dup = false;
    for (auto* x : v)
      if (*x == c[i]) dup = true;
    if (!dup) v.push_back(&c[i]);
  }
  return v;
}

enum Kw : uint32_t {
  K_WHERE = 1, K_GROUP = 2, K_HAVING = 4, K_ORDER = 8, K_ASC = 16, K_DESC = 32, K_LIMIT = 64, K_EXCEPT = 128,
  K_UNION = 256, K_INTERSECT = 512, K_OR = 1024, K_NOT = 2048, K_IN = 4096, K_LIKE = 8192
};

uint32_t keywords(const Sql& s) {
  uint32_t k = 0;
  if (!s.where.empty()) k |= K_WHERE;
  if (!s.group_by.empty()) k |= K_GROUP;
  if (!s.having.empty()) k |= K_HAVING;
  if (s.has_order) k |= K_ORDER | (s.order_desc ? K_DESC : K_ASC);
  if (s.has_limit) k |= K_LIMIT;
  if (s.except_) k |= K_EXCEPT;
  if (s.union_) k |= K_UNION;
  if (s.intersect) k |= K_INTERSECT;
  for (const Condition* c : {&s.from_conds, &s.where, &s.having}) {
    for (size_t i = 1; i < c->size(); i += 2)
      if ((*c)[i].is_conn && (*c)[i].is_or) k |= K_OR;
    for (size_t i = 0; i < c->size(); i += 2) {
      const CondItem& it = (*c)[i];
      if (it.is_conn) {
        k |= K_NOT;  // cond_unit[0] of 'and'/'or' is a non-empty (truthy) character
        continue;
      }
      if (it.not_op) k |= K_NOT;
      if (it.op == OP_IN) k |= K_IN;
      if (it.op == OP_LIKE) k |= K_LIKE;
    }
  }
  return k;
}

std::string_view group_key(const DbInfo& db, int id) {
  if (id < 0 || static_cast<size_t>(id) >= db.schema.names.size()) return {};
  std::string_view s = db.schema.names[static_cast<size_t>(id)];
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return s;
  std::string_view rest = s.substr(dot + 1);
  size_t dot2 = rest.find('.');
  return dot2 == std::string_view::npos ? rest : rest.substr(0, dot2);  // split(".")[1]
}

ComponentScore nested(const Sql* pred, const Sql* label, const DbInfo& db, int& lt, int& pt, int& cnt) {
  if (pred) ++pt;
  if (label) ++lt;
  if (pred && label) cnt += exact_match(*pred, *label, db, nullptr);
  return {};
}

}  // namespace

PartialScores partial_match(const Sql& pred, const Sql& gold, const DbInfo& db) {
  PartialScores r;
  {  // select / select(no AGG)
    std::vector<const SelItem*> p, l;
    for (auto& x : pred.select) p.push_back(&x);
    for (auto& x : gold.select) l.push_back(&x);
    int lt = static_cast<int>(l.size()), pt = static_cast<int>(p.size());
    int cnt = multiset_hits(p, l, [](const SelItem& a, const SelItem& b) { return a == b; });
    int cnt2 = multiset_hits(p, l, [](const SelItem& a, const SelItem& b) { return a.vu == b.vu; });
    r[C_SELECT] = scores(lt, pt, cnt);
    r[C_SELECT_NO_AGG] = scores(lt, pt, cnt2);
  }
  {  // where / where(no OP)
    auto p = even_items(pred.where), l = even_items(gold.where);
    int lt = static_cast<int>(l.size()), pt = static_cast<int>(p.size());
    int cnt = multiset_hits(p, l, [](const CondItem& a, const CondItem& b) { return a == b; });
    int cnt2 = multiset_hits(p, l, [](const CondItem& a, const CondItem& b) { return a.vu == b.vu; });
    r[C_WHERE] = scores(lt, pt, cnt);
    r[C_WHERE_NO_OP] = scores(lt, pt, cnt2);
  }
  {  // group(no Having)
    std::vector<std::string_view> p, l;
    for (auto& cu : pred.group_by) p.push_back(group_key(db, cu.col));
    for (auto& cu : gold.group_by) l.push_back(group_key(db, cu.col));
    std::vector<char> used(l.size(), 0);
    int cnt = 0;
    for (auto& x : p)
      for (size_t j = 0; j < l.size(); ++j)
        if (!used[j] && l[j] == x) {
          used[j] = 1;
          ++cnt;
          break;
        }
    r[C_GROUP_NO_HAVING] = scores(static_cast<int>(l.size()), static_cast<int>(p.size()), cnt);
  }
  {  // group (with HAVING)
    int pt = pred.group_by.empty() ? 0 : 1, lt = gold.group_by.empty() ? 0 : 1, cnt = 0;
    if (pt == 1 && lt == 1 && pred.having == gold.having) {
      bool same = pred.group_by.size() == gold.group_by.size();
      for (size_t i = 0; same && i < pred.group_by.size(); ++i) same = pred.group_by[i].col == gold.group_by[i].col;
      if (same) cnt = 1;
    }
    r[C_GROUP] = scores(lt, pt, cnt);
  }
  {  // order
    int pt = pred.has_order ? 1 : 0, lt = gold.has_order ? 1 : 0, cnt = 0;
    if (gold.has_order && pred.has_order && pred.order_desc == gold.order_desc && pred.order_by == gold.order_by &&
        pred.has_limit == gold.has_limit)
      cnt = 1;
    r[C_ORDER] = scores(lt, pt, cnt);
  }
  {  // and/or: quirk — on inequality the totals come back swapped
    auto p = odd_set(pred.where), l = odd_set(gold.where);
    bool eq = p.size() == l.size();
    for (auto* x : p) {
      bool found = false;
      for (auto* y : l)
        if (*x == *y) found = true;
      if (!found) eq = false;
    }
    if (eq) r[C_AND_OR] = scores(1, 1, 1);
    else r[C_AND_OR] = scores(static_cast<int>(p.size()), static_cast<int>(l.size()), 0);
  }
  {  // IUEN
    int lt = 0, pt = 0, cnt = 0;
    nested(pred.intersect.get(), gold.intersect.get(), db, lt, pt, cnt);
    nested(pred.except_.get(), gold.except_.get(), db, lt, pt, cnt);
    nested(pred.union_.get(), gold.union_.get(), db, lt, pt, cnt);
    r[C_IUEN] = scores(lt, pt, cnt);
  }
  {  // keywords
    uint32_t p = keywords(pred), l = keywords(gold);
    r[C_KEYWORDS] = scores(__builtin_popcount(l), __builtin_popcount(p), __builtin_popcount(p & l));
  }
  return r;
}

int exact_match(const Sql& pred, const Sql& gold, const DbInfo& db, PartialScores* partial) {
  PartialScores ps = partial_match(pred, gold, db);
  if (partial) *partial = ps;
  for (const auto& c : ps)
    if (c.score != 1) return 0;
  if (gold.table_units.empty()) return 1;
  if (gold.table_units.size() != pred.table_units.size()) return 0;
  std::vector<char> used(pred.table_units.size(), 0);
  for (const auto& g : gold.table_units) {
    bool found = false;
    for (size_t j = 0; j < pred.table_units.size() && !found; ++j)
      if (!used[j] && pred.table_units[j] == g) {
        used[j] = 1;
        found = true;
      }
    if (!found) return 0;
  }
  return 1;
}

namespace {
struct Key {
  bool composite;
  int8_t op;
  ColUnit c1, c2;
  bool operator==(const Key& o) const {
    return composite == o.composite && c1 == o.c1 && (!composite || (op == o.op && c2 == o.c2));
  }
};

bool build_map(const Sql& s, const Table& t, std::vector<std::pair<Key, size_t>>& m) {
  for (size_t idx = 0; idx < s.select.size(); ++idx) {
    const ValUnit& vu = s.select[idx].vu;
    Key k{vu.has_c2, vu.op, vu.c1, vu.has_c2 ? vu.c2 : ColUnit{}};
    if (!t.rows.empty()) {
      for (const auto& row : t.rows)
        if (idx >= row.size()) return false;
    }
    bool replaced = false;
    for (auto& e : m)
      if (e.first == k) {
        e.second = idx;
        replaced = true;
      }
    if (!replaced) m.emplace_back(k, idx);
  }
  return true;
}
}  // namespace

bool spider_exec_maps_equal(const Sql& pred, const Table& pred_res, const Sql& gold, const Table& gold_res) {
  std::vector<std::pair<Key, size_t>> pm, gm;
  if (!build_map(pred, pred_res, pm)) return false;
  if (!build_map(gold, gold_res, gm)) return false;
  if (pm.size() != gm.size()) return false;
  for (const auto& [k, pi] : pm) {
    const std::pair<Key, size_t>* g = nullptr;
    for (const auto& e : gm)
      if (e.first == k) g = &e;
    if (!g) return false;
    if (pred_res.rows.size() != gold_res.rows.size()) return false;
    for (size_t r = 0; r < pred_res.rows.size(); ++r)
      if (!py::equal(pred_res.rows[r][pi], gold_res.rows[r][g->second])) return false;
  }
  return true;
}

}  // namespace sqlgrade::spider
