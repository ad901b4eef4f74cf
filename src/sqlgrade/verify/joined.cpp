// The `joined` strategy: joined rows built from the data's rows where a join of the queries has no
// matching pair in the data (joined.hpp).
#include "sqlgrade/verify/joined.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>

#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::verify {

namespace {

bool key_like(const Column& c) { return c.pk > 0 || c.single_unique || c.data_unique; }

// A value as a join compares it: a number, or a text that reads as one, by its number (SQLite's
// affinity makes '3' in a TEXT column equal 3 in an INTEGER one); any other text as itself.
std::string join_form(const Value& v) {
  if (v.is_number()) return "n" + py::repr(Value::real(v.as_double()));
  if (v.kind == Kind::Text && !v.s.empty()) {
    char* end = nullptr;
    const double d = std::strtod(v.s.c_str(), &end);
    if (end && *end == '\0' && !std::isspace(static_cast<unsigned char>(v.s[0]))) return "n" + py::repr(Value::real(d));
  }
  return "t" + v.s;
}

// No non-NULL value of the child column among the parent column's values (both samples non-empty).
bool no_match(const TableInfo& child, size_t cc, const TableInfo& parent, size_t pc) {
  if (child.sample.empty() || parent.sample.empty()) return false;
  std::set<std::string> keys;
  for (const Row& r : parent.sample)
    if (!r[pc].is_null()) keys.insert(join_form(r[pc]));
  for (const Row& r : child.sample)
    if (!r[cc].is_null() && keys.count(join_form(r[cc]))) return false;
  return !keys.empty();
}

struct JoinedBuilder {
  const GenContext& g;
  Rng& rng;
  const StarvedJoin& j;
  Candidate cand;
  size_t fresh_n = 0;

  const TableInfo& table(size_t t) const { return g.schema.tables[t]; }
  void add(size_t t, Row r, std::string src) {
    cand.rows[t].push_back(std::move(r));
    cand.src[t].push_back(std::move(src));
  }
  // A value no row of the column has: past the largest number, or a new text.
  Value fresh(size_t t, size_t c) {
    const Column& col = table(t).columns[c];
    ++fresh_n;
    if (col.affinity == Affinity::Integer || col.affinity == Affinity::Numeric || col.affinity == Affinity::Real) {
      int64_t mx = 0;
      for (const std::vector<Row>* rows : std::initializer_list<const std::vector<Row>*>{&table(t).sample, &cand.rows[t]})
        for (const Row& r : *rows) if (r[c].kind == Kind::Int) mx = std::max(mx, r[c].i);
      return Value::integer(mx + static_cast<int64_t>(fresh_n));
    }
    return Value::text("k" + std::to_string(fresh_n) + "_" + std::to_string(rng.below(100000)));
  }
  // Rows of the parent table: most of the time two or three that share a value of a column the
  // queries show (else of any non-key column) and one or two others; else two to four at random.
  std::vector<size_t> pick_parents() {
    const TableInfo& p = table(j.parent);
    std::vector<size_t> cols;
    if (g.targets)
      for (auto [t, c] : g.targets->selected) if (t == j.parent && !key_like(p.columns[c])) cols.push_back(c);
    if (cols.empty())
      for (size_t c = 0; c < p.columns.size(); ++c) if (!key_like(p.columns[c])) cols.push_back(c);
    std::vector<size_t> out;
    if (!cols.empty() && rng.chance(75)) {
      const size_t gc = cols[rng.below(cols.size())];
      std::map<std::string, std::vector<size_t>> by_value;
      for (size_t r = 0; r < p.sample.size(); ++r)
        if (!p.sample[r][gc].is_null() && !p.sample[r][j.parent_col].is_null())
          by_value[py::repr(p.sample[r][gc])].push_back(r);
      std::vector<const std::vector<size_t>*> groups;
      for (const auto& [v, rows] : by_value) if (rows.size() >= 2) groups.push_back(&rows);
      if (!groups.empty()) {
        std::vector<size_t> grp = *groups[rng.below(groups.size())];
        for (size_t k = 0, n = std::min<size_t>(grp.size(), 2 + rng.below(2)); k < n; ++k) {
          const size_t at = rng.below(grp.size());
          out.push_back(grp[at]);
          grp.erase(grp.begin() + static_cast<std::ptrdiff_t>(at));
        }
      }
    }
    for (size_t k = 0, n = out.empty() ? 2 + rng.below(3) : 1 + rng.below(2); k < n; ++k) {
      const size_t r = rng.below(p.sample.size());
      if (!p.sample[r][j.parent_col].is_null() && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
    return out;
  }
  // The row of table t that `vals` (of columns `cols`) names: a chosen one, else a sample row added.
  bool reference(size_t t, const std::vector<size_t>& cols, std::vector<Value>& vals) {
    if (!cand.rows[t].empty() && (t == j.parent || rng.chance(50))) {
      const Row& r = cand.rows[t][rng.below(cand.rows[t].size())];
      for (size_t k = 0; k < cols.size(); ++k) vals[k] = r[cols[k]];
      return true;
    }
    if (table(t).sample.empty()) return false;
    const size_t at = rng.below(table(t).sample.size());
    const Row& r = table(t).sample[at];
    for (size_t k = 0; k < cols.size(); ++k) vals[k] = r[cols[k]];
    if (std::find(cand.rows[t].begin(), cand.rows[t].end(), r) == cand.rows[t].end())
      add(t, r, "original row " + std::to_string(at + 1) + " (referenced by a joined row)");
    return true;
  }
  // A copy of a real child row joined to the parent row `p`: its other references pointed at rows of
  // the candidate, the last column of each unique set and the columns unique in the data fresh.
  void child_of(const Row& p) {
    const TableInfo& c = table(j.child);
    const size_t at = rng.below(c.sample.size());
    Row row = c.sample[at];
    row[j.child_col] = p[j.parent_col];
    std::string src = "original row " + std::to_string(at + 1) + "; " + c.columns[j.child_col].name + " := " +
                      py::repr(p[j.parent_col]) + " (joined to a " + table(j.parent).name + " row)";
    for (const auto& fk : c.fks) {
      if (fk.parent == SIZE_MAX || std::count(fk.columns.begin(), fk.columns.end(), j.child_col)) continue;
      std::vector<Value> vals(fk.columns.size());
      if (!reference(fk.parent, fk.parent_columns, vals)) continue;
      for (size_t k = 0; k < fk.columns.size(); ++k) row[fk.columns[k]] = vals[k];
      src += "; " + c.columns[fk.columns[0]].name + " := " + py::repr(vals[0]) + " (a row of the candidate)";
    }
    std::set<size_t> freshen;
    for (const auto& u : c.unique_sets)
      if (!u.empty()) freshen.insert(u.back());
    for (size_t k = 0; k < c.columns.size(); ++k) if (c.columns[k].data_unique) freshen.insert(k);
    freshen.erase(j.child_col);
    for (size_t k : freshen) row[k] = fresh(j.child, k);
    add(j.child, std::move(row), src + (freshen.empty() ? "" : "; fresh key values"));
  }
};

}  // namespace

std::vector<StarvedJoin> starved_joins(const Schema& s, const QueryFacts& f) {
  std::vector<StarvedJoin> out;
  for (const auto& [x, y] : f.equated)
    for (const auto& [a, b] : {std::pair{x, y}, std::pair{y, x}}) {  // a: the child side, b: the parent's
      if (!key_like(s.tables[b.table].columns[b.column]) || key_like(s.tables[a.table].columns[a.column])) continue;
      if (no_match(s.tables[a.table], a.column, s.tables[b.table], b.column))
        out.push_back({a.table, a.column, b.table, b.column});
    }
  return out;
}

Candidate joined_candidate(const GenContext& g, Rng& rng, const StarvedJoin& j) {
  JoinedBuilder b{g, rng, j, {}};
  b.cand.rows.resize(g.schema.tables.size());
  b.cand.src.resize(g.schema.tables.size());
  b.cand.strategy = "joined";
  const auto& tabs = g.schema.tables;
  for (size_t r : b.pick_parents()) b.add(j.parent, tabs[j.parent].sample[r], "original row " + std::to_string(r + 1));
  const std::vector<Row> parents = b.cand.rows[j.parent];
  for (const Row& p : parents)
    for (size_t k = 0, n = 1 + rng.below(4); k < n; ++k) b.child_of(p);
  for (size_t t = 0; t < tabs.size(); ++t) {  // the other tables the queries use: a few of their rows
    if (!g.used[t] || t == j.parent || t == j.child || !b.cand.rows[t].empty()) continue;
    for (size_t r = 0; r < tabs[t].sample.size() && b.cand.rows[t].size() < g.rows_per_table; ++r)
      if (rng.chance(70)) b.add(t, tabs[t].sample[r], "original row " + std::to_string(r + 1));
  }
  b.cand.mutations.push_back(std::to_string(b.cand.rows[j.child].size()) + " " + tabs[j.child].name +
                             " rows joined to " + std::to_string(parents.size()) + " " + tabs[j.parent].name + " rows");
  return std::move(b.cand);
}

}  // namespace sqlgrade::verify
