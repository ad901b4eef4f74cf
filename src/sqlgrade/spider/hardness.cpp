// Spider hardness levels: mirrors taoyds/spider @ b7b5b8c evaluation.py Evaluator.eval_hardness and its
// count_component1 / count_component2 / count_others (identical in test-suite-sql-eval @ e97acc5);
// spec shared/spec/official-evaluators.md §1.11.
#include "sqlgrade/spider/hardness.hpp"

#include "sqlgrade/spider/tokenize.hpp"

namespace sqlgrade::spider {

const char* to_string(Hardness h) {
  switch (h) {
    case Hardness::Easy: return "easy";
    case Hardness::Medium: return "medium";
    case Hardness::Hard: return "hard";
    case Hardness::Extra: return "extra";
  }
  return "?";
}

namespace {

// Elements at even positions of from.conds + where + having (the cond_units).
template <class F>
void for_units(const Sql& s, F f) {
  for (const Condition* c : {&s.from_conds, &s.where, &s.having})
    for (size_t i = 0; i < c->size(); i += 2) f((*c)[i]);
}
template <class F>
void for_conns(const Sql& s, F f) {
  for (const Condition* c : {&s.from_conds, &s.where, &s.having})
    for (size_t i = 1; i < c->size(); i += 2) f((*c)[i]);
}

int component1(const Sql& s) {
  int count = 0;
  if (!s.where.empty()) ++count;
  if (!s.group_by.empty()) ++count;
  if (s.has_order) ++count;
  if (s.has_limit) ++count;
  if (!s.table_units.empty()) count += static_cast<int>(s.table_units.size()) - 1;
  for_conns(s, [&](const CondItem& it) {
    if (it.is_conn && it.is_or) ++count;
  });
  for_units(s, [&](const CondItem& it) {
    // cond_unit[1] == like; a connector string there compares a character with 9 (never equal)
    if (!it.is_conn && it.op == OP_LIKE) ++count;
  });
  return count;
}

int component2(const Sql& s) {
  int count = 0;
  for_units(s, [&](const CondItem& it) {
    // 'and'[3] / 'or'[3] raise IndexError in the official code
    if (it.is_conn) throw ParseError("string index out of range (connector in a condition slot)");
    if (it.v1.kind == Val::Query) ++count;
    if (it.v2.kind == Val::Query) ++count;
  });
  if (s.intersect) ++count;
  if (s.except_) ++count;
  if (s.union_) ++count;
  return count;
}

int others(const Sql& s) {
  int agg = 0;
  for (const auto& it : s.select)
    if (it.agg != AGG_NONE) ++agg;
  for (size_t i = 0; i < s.where.size(); i += 2) {
    const CondItem& it = s.where[i];
    if (it.is_conn || it.not_op) ++agg;  // unit[0] != 0: the NOT flag (a connector's 'a'/'o' too)
  }
  for (const auto& cu : s.group_by)
    if (cu.agg != AGG_NONE) ++agg;
  if (s.has_order) {
    for (const auto& vu : s.order_by)
      if (vu.c1.agg != AGG_NONE) ++agg;
    for (const auto& vu : s.order_by)
      if (vu.has_c2 && vu.c2.agg != AGG_NONE) ++agg;
  }
  for (const auto& it : s.having)  // whole list: connectors count, aggregates do not
    if (it.is_conn || it.not_op) ++agg;
  int count = 0;
  if (agg > 1) ++count;
  if (s.select.size() > 1) ++count;
  if (s.where.size() > 1) ++count;
  if (s.group_by.size() > 1) ++count;
  return count;
}

}  // namespace

HardnessCounts hardness_counts(const Sql& sql) {
  HardnessCounts h;
  h.component1 = component1(sql);
  h.component2 = component2(sql);
  h.others = others(sql);
  return h;
}

Hardness hardness(const Sql& sql) {
  HardnessCounts h = hardness_counts(sql);
  const int c1 = h.component1, c2 = h.component2, o = h.others;
  if (c1 <= 1 && o == 0 && c2 == 0) return Hardness::Easy;
  if ((o <= 2 && c1 <= 1 && c2 == 0) || (c1 <= 2 && o < 2 && c2 == 0)) return Hardness::Medium;
  if ((o > 2 && c1 <= 2 && c2 == 0) || (2 < c1 && c1 <= 3 && o <= 2 && c2 == 0) || (c1 <= 1 && o == 0 && c2 <= 1))
    return Hardness::Hard;
  return Hardness::Extra;
}

}  // namespace sqlgrade::spider
