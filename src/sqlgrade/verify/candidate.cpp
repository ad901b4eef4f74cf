// Candidate databases: query constants, relevant tables, and the search strategies (candidate.hpp).
// Every value written comes from the column's own sampled domain, from a constant of the two
// queries (or a neighbour of one: ±1, case variants, a LIKE pattern without wildcards), from a
// fresh key value (duplicated entities, generated keys), or is NULL where the column allows it; the
// row's `src` says which.
#include "sqlgrade/verify/candidate.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/spider/sqlparse.hpp"
#include "sqlgrade/py/number.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::verify {

uint64_t Rng::next() {
  uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t mix_seed(uint64_t seed, const std::string& salt, uint64_t index) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a of the salt, then mixed with seed and index
  for (unsigned char c : salt) h = (h ^ c) * 1099511628211ULL;
  Rng r(seed ^ (h * 31) ^ (index * 0x9e3779b97f4a7c15ULL));
  return r.next();
}

size_t Candidate::row_count() const {
  size_t n = 0;
  for (const auto& t : rows) n += t.size();
  return n;
}

namespace {

// A neighbour of a constant: itself, ±1 (numbers), or a case/suffix variant (text).
Value variant(const Value& v, Rng& rng) {
  switch (rng.below(4)) {
    case 0: return v;
    case 1:
      if (v.kind == Kind::Int) return Value::integer(v.i + 1);
      if (v.kind == Kind::Real) return Value::real(v.r + 1);
      return Value::text(to_upper(v.s));
    case 2:
      if (v.kind == Kind::Int) return Value::integer(v.i - 1);
      if (v.kind == Kind::Real) return Value::real(v.r - 0.5);
      return Value::text(to_lower(v.s));
    default:
      if (v.kind == Kind::Text) return Value::text(v.s + " x");
      return v;
  }
}

bool fits(const Column& c, const Value& v) {
  if (v.is_null()) return !c.notnull;
  if (c.affinity == Affinity::Blob) return true;
  if (c.affinity == Affinity::Text) return v.kind == Kind::Text;
  if (v.kind == Kind::Text) {  // a numeric column that holds texts in the data (Spider has many)
    for (const auto& d : c.domain)
      if (d.kind == Kind::Text) return true;
    return false;
  }
  return true;
}

bool is_key(const TableInfo& t, size_t c) { return t.columns[c].pk > 0 || t.columns[c].single_unique; }

// Whether SQLite stores a NULL in the column: not NOT NULL, and not a rowid alias (an INTEGER PRIMARY
// KEY turns NULL into a new rowid) nor the key of a WITHOUT ROWID table. A PRIMARY KEY of another
// type accepts NULL in SQLite.
bool takes_null(const TableInfo& t, size_t c) {
  const Column& col = t.columns[c];
  if (col.notnull) return false;
  if (col.pk == 0) return true;
  if (to_upper(t.create_sql).find("WITHOUT ROWID") != std::string::npos) return false;
  return !(t.unique_sets.size() && t.unique_sets[0].size() == 1 && to_upper(col.type) == "INTEGER");
}

struct Builder {
  const GenContext& g;
  Rng& rng;
  Candidate cand;

  std::vector<size_t> used_tables() const {
    std::vector<size_t> out;
    for (size_t i = 0; i < g.schema.tables.size(); ++i)
      if (g.used[i] && !cand.rows[i].empty()) out.push_back(i);
    return out;
  }
  void add(size_t t, Row r, std::string src) {
    cand.rows[t].push_back(std::move(r));
    cand.src[t].push_back(std::move(src));
  }
  // For every child row, the first sampled parent row that matches its foreign key (children first).
  void close_parents(const std::vector<std::set<size_t>>& chosen_in) {
    std::vector<std::set<size_t>> chosen = chosen_in;
    const auto& tabs = g.schema.tables;
    for (size_t ti = tabs.size(); ti-- > 0;)
      for (const auto& fk : tabs[ti].fks) {
        if (fk.parent == SIZE_MAX || fk.parent == ti) continue;
        for (size_t r : chosen[ti]) {
          const Row& row = tabs[ti].sample[r];
          const auto& prow = tabs[fk.parent].sample;
          for (size_t pr = 0; pr < prow.size(); ++pr) {
            bool eq = true;
            for (size_t k = 0; k < fk.columns.size() && eq; ++k)
              eq = prow[pr][fk.parent_columns[k]] == row[fk.columns[k]];
            if (eq) {
              chosen[fk.parent].insert(pr);
              break;
            }
          }
        }
      }
    for (size_t ti = 0; ti < tabs.size(); ++ti)
      for (size_t r : chosen[ti]) add(ti, tabs[ti].sample[r], "original row " + std::to_string(r + 1));
  }
  // A random subset of the original rows of every used table (keep 70/40/15 %, at most a random cap
  // of rows_per_table, sometimes none), closed under foreign keys. `dense`: at most 3 x rows_per_table
  // rows, each kept with 85 %, never an empty table: the base of the targeted strategies, so that the
  // rows the queries join and filter are likely present.
  void original_subset(bool dense = false) {
    const auto& tabs = g.schema.tables;
    const unsigned keep = dense ? 85 : std::vector<unsigned>{70, 40, 15}[rng.below(3)];
    std::vector<std::set<size_t>> chosen(tabs.size());
    for (size_t ti = 0; ti < tabs.size(); ++ti) {
      if (!g.used[ti] || tabs[ti].sample.empty()) continue;
      if (!dense && rng.chance(8)) continue;  // an empty table (aggregates over nothing, NOT IN over nothing)
      const size_t cap = dense ? 3 * g.rows_per_table : 1 + rng.below(g.rows_per_table);
      for (size_t r = 0; r < tabs[ti].sample.size() && chosen[ti].size() < cap; ++r)
        if (rng.chance(keep)) chosen[ti].insert(r);
      if (tabs[ti].sample.size() > cap * 4)  // large tables: also rows from anywhere in the sample
        for (size_t k = 0; k < cap / 2; ++k) chosen[ti].insert(rng.below(tabs[ti].sample.size()));
    }
    close_parents(chosen);
    if (dense && g.seeds) add_seeds();
  }
  // The seed rows (seed_rows) that are not in the candidate yet.
  void add_seeds() {
    for (size_t t = 0; t < g.seeds->rows.size() && t < cand.rows.size(); ++t)
      for (size_t r = 0; r < g.seeds->rows[t].size(); ++r)
        if (std::find(cand.rows[t].begin(), cand.rows[t].end(), g.seeds->rows[t][r]) == cand.rows[t].end())
          add(t, g.seeds->rows[t][r], g.seeds->src[t][r]);
  }
  Value fresh_key(size_t t, size_t c, size_t salt) {
    const Column& col = g.schema.tables[t].columns[c];
    if (col.affinity == Affinity::Integer || col.affinity == Affinity::Numeric || col.affinity == Affinity::Real) {
      int64_t mx = 0;
      for (const auto& r : cand.rows[t]) if (r[c].kind == Kind::Int) mx = std::max(mx, r[c].i);
      for (const auto& r : g.schema.tables[t].sample) if (r[c].kind == Kind::Int) mx = std::max(mx, r[c].i);
      return Value::integer(mx + 1 + static_cast<int64_t>(salt));
    }
    return Value::text("k" + std::to_string(salt) + "_" + std::to_string(rng.below(100000)));
  }
  // A copy of a row whose key columns get fresh values: the same entity attributes twice.
  // A row of table t; half of the time one of the seed rows (the rows the queries' filters select)
  // when the candidate has some.
  size_t pick_row(size_t t) {
    std::vector<size_t> seeded;
    for (size_t r = 0; r < cand.src[t].size(); ++r)
      if (cand.src[t][r].rfind("original row where", 0) == 0) seeded.push_back(r);
    if (!seeded.empty() && rng.chance(50)) return seeded[rng.below(seeded.size())];
    return rng.below(cand.rows[t].size());
  }
  // Which rows of table t a targeted change writes: one row, about half of them, or every row (a
  // value in every row reaches the rows the query keeps, whichever they are; shrinking then keeps the
  // few that matter). Returns the rows and a description.
  std::pair<std::vector<size_t>, std::string> rows_to_change(size_t t) {
    const unsigned mode = static_cast<unsigned>(rng.below(3));
    std::vector<size_t> out;
    if (mode == 0) out.push_back(pick_row(t));
    for (size_t r = 0; mode > 0 && r < cand.rows[t].size(); ++r)
      if (mode == 2 || rng.chance(50)) out.push_back(r);
    return {out, mode == 0 ? " (one row)" : mode == 1 ? " (about half of the rows)" : " (every row)"};
  }
  void set_rows(size_t t, size_t c, const std::vector<size_t>& rows, const Value& v, const std::string& why) {
    for (size_t r : rows) {
      cand.rows[t][r][c] = v;
      cand.src[t][r] += "; " + g.schema.tables[t].columns[c].name + " := " + py::repr(v) + " (" + why + ")";
    }
  }
  // Copies of rows whose key columns (and, most of the time, the columns unique in the data) get
  // fresh values: the same entity attributes twice. In the targeted strategies, one row, about half
  // or every row of the table is copied (every row doubles each join partner and each group).
  void duplicate(bool many = false) {
    auto ts = used_tables();
    if (ts.empty()) return;
    const size_t t = ts[rng.below(ts.size())];
    std::vector<size_t> which{pick_row(t)};
    std::string how;
    if (many) std::tie(which, how) = rows_to_change(t);
    const bool realistic = rng.chance(70);  // values unique in the data stay unique (witness.hpp)
    for (size_t r : which) {
      Row row = cand.rows[t][r];
      for (size_t c = 0; c < row.size(); ++c)
        if (is_key(g.schema.tables[t], c) || (realistic && g.schema.tables[t].columns[c].data_unique))
          row[c] = fresh_key(t, c, cand.rows[t].size());
      add(t, row, cand.src[t][r] + "; duplicated with fresh key values");
    }
    cand.mutations.push_back("duplicate " + std::string(which.size() == 1 ? "a row" : "rows") + " of " +
                             g.schema.tables[t].name + how);
  }
  // A cell to change: a used table with rows, a column (nullable and not in the key when asked; half
  // of the time, among those, one that holds NULLs in the data when there is one).
  std::pair<size_t, size_t> pick_cell(bool want_nullable) {
    auto ts = used_tables();
    if (ts.empty()) return {SIZE_MAX, 0};
    size_t t = ts[rng.below(ts.size())];
    const auto& cols = g.schema.tables[t].columns;
    std::vector<size_t> ok, seen_null;
    for (size_t c = 0; c < cols.size(); ++c)
      if (!want_nullable || (!cols[c].notnull && cols[c].pk == 0)) {
        ok.push_back(c);
        if (!cols[c].data_never_null) seen_null.push_back(c);
      }
    if (want_nullable && !seen_null.empty() && rng.chance(50)) ok = seen_null;
    if (ok.empty()) return {SIZE_MAX, 0};
    return {t, ok[rng.below(ok.size())]};
  }
  void set_cell(size_t t, size_t c, const Value& v, const std::string& why) {
    size_t r = rng.below(cand.rows[t].size());
    cand.rows[t][r][c] = v;
    cand.src[t][r] += "; " + g.schema.tables[t].columns[c].name + " := " + py::repr(v) + " (" + why + ")";
  }
  void empty_table() {
    auto ts = used_tables();
    if (ts.empty()) return;
    size_t t = ts[rng.below(ts.size())];
    cand.rows[t].clear();
    cand.src[t].clear();
    cand.mutations.push_back("empty " + g.schema.tables[t].name);
  }
  void nulls() {
    auto [t, c] = pick_cell(true);
    if (t == SIZE_MAX) return;
    set_cell(t, c, Value::null(), "NULL");
    cand.mutations.push_back("NULL in " + g.schema.tables[t].name + "." + g.schema.tables[t].columns[c].name);
  }
  void constants() {
    if (g.constants.empty()) return domain_value();
    const Constant& k = g.constants[rng.below(g.constants.size())];
    Value v = variant(k.value, rng);
    for (int tries = 0; tries < 8; ++tries) {
      auto [t, c] = pick_cell(false);
      if (t == SIZE_MAX) return;
      if (!fits(g.schema.tables[t].columns[c], v)) continue;
      set_cell(t, c, v, "constant of " + k.from + (v == k.value ? "" : ", neighbour"));
      cand.mutations.push_back("constant " + py::repr(v) + " in " + g.schema.tables[t].name + "." +
                               g.schema.tables[t].columns[c].name);
      return;
    }
  }
  void domain_value() {
    auto [t, c] = pick_cell(false);
    if (t == SIZE_MAX || g.schema.tables[t].columns[c].domain.empty()) return;
    const auto& d = g.schema.tables[t].columns[c].domain;
    set_cell(t, c, d[rng.below(d.size())], "column domain");
    cand.mutations.push_back("domain value in " + g.schema.tables[t].name);
  }
  // Ties: one value copied into other rows of the same column (what ORDER BY ... LIMIT is sensitive to).
  void ties() {
    auto [t, c] = pick_cell(false);
    if (t == SIZE_MAX || is_key(g.schema.tables[t], c) || cand.rows[t].size() < 2) return duplicate();
    // The tied value: the column's largest or smallest (where ORDER BY ... LIMIT cuts), or any.
    const auto& rows = cand.rows[t];
    size_t pick = rng.below(rows.size());
    const unsigned mode = static_cast<unsigned>(rng.below(3));
    for (size_t r = 0; r < rows.size() && mode < 2; ++r)
      if (rows[r][c].is_number() && rows[pick][c].is_number() &&
          (mode == 0 ? rows[r][c].as_double() > rows[pick][c].as_double() : rows[r][c].as_double() < rows[pick][c].as_double()))
        pick = r;
    Value v = rows[pick][c];
    for (size_t k = 0, n = 1 + rng.below(2); k < n; ++k) set_cell(t, c, v, "tie");
    cand.mutations.push_back("ties on " + g.schema.tables[t].name + "." + g.schema.tables[t].columns[c].name);
  }
  // A comparison boundary of the queries written into 1 row, about half of the rows or every row of
  // its table (query_targets).
  void boundary() {
    if (!g.targets || g.targets->boundaries.empty()) return constants();
    std::vector<const Boundary*> ok;
    for (const auto& b : g.targets->boundaries)
      if (!cand.rows[b.table].empty() && !b.values.empty()) ok.push_back(&b);
    if (ok.empty()) return constants();
    const Boundary& b = *ok[rng.below(ok.size())];
    const Value& v = b.values[rng.below(b.values.size())];
    const auto& col = g.schema.tables[b.table].columns[b.column];
    if (!fits(col, v)) return constants();
    auto [rows, how] = rows_to_change(b.table);
    set_rows(b.table, b.column, rows, v, "boundary of a comparison of " + b.from);
    cand.mutations.push_back("boundary " + py::repr(v) + " in " + g.schema.tables[b.table].name + "." + col.name + how);
  }
  // A column an aggregate reads: NULL in some rows, or one row's value copied into another (duplicates
  // for COUNT(DISTINCT)), or a whole row copied with fresh keys, or a join key changed.
  void counted() {
    if (!g.targets) return duplicate();
    std::vector<std::pair<size_t, size_t>> ok;
    for (auto tc : g.targets->counted)
      if (!cand.rows[tc.first].empty()) ok.push_back(tc);
    if (ok.empty()) return rng.chance(50) ? nulls() : duplicate();
    auto [t, c] = ok[rng.below(ok.size())];
    const auto& col = g.schema.tables[t].columns[c];
    auto& rows = cand.rows[t];
    const unsigned mode = static_cast<unsigned>(rng.below(4));
    if (mode == 0 && takes_null(g.schema.tables[t], c)) {
      auto [which, how] = rows_to_change(t);
      set_rows(t, c, which, Value::null(), "NULL in a counted column");
      cand.mutations.push_back("NULL in " + g.schema.tables[t].name + "." + col.name + " (counted)" + how);
    } else if (mode <= 1 && rows.size() >= 2 && !is_key(g.schema.tables[t], c)) {
      size_t a = pick_row(t), b = rng.below(rows.size() - 1);
      if (b >= a) ++b;
      set_rows(t, c, {b}, rows[a][c], "copied: a repeated counted value");
      cand.mutations.push_back("repeated value in " + g.schema.tables[t].name + "." + col.name + " (counted)");
    } else if (mode == 2) {
      join_key();
    } else {
      duplicate(true);
    }
  }
  // A column the result shows, set to other values of its domain in one row or about half of the rows:
  // the rows a dropped filter or a wrong join lets in then show (they matched because they looked the
  // same as the gold's rows).
  void distinguish() {
    if (!g.targets) return domain_value();
    std::vector<std::pair<size_t, size_t>> ok;
    for (auto tc : g.targets->selected)
      if (!cand.rows[tc.first].empty()) ok.push_back(tc);
    if (ok.empty()) return domain_value();
    auto [t, c] = ok[rng.below(ok.size())];
    const auto& col = g.schema.tables[t].columns[c];
    auto [which, how] = rows_to_change(t);
    if (which.size() == cand.rows[t].size() && which.size() > 1) which.pop_back();  // keep one as it was
    for (size_t r : which) {
      Value v = !is_key(g.schema.tables[t], c) && col.domain.size() > 1 ? col.domain[rng.below(col.domain.size())]
                                                                         : fresh_key(t, c, cand.rows[t].size() + r);
      set_rows(t, c, {r}, v, "another value of the column");
    }
    cand.mutations.push_back("other values in " + g.schema.tables[t].name + "." + col.name + how);
  }
  // A join key (a column compared with a column): NULL in some rows where the schema allows it, the
  // value of another row (the row re-pointed at another partner), or a value no row has (no partner:
  // a declared foreign key refuses it). What LEFT vs INNER JOIN, a swapped or dropped join turn on.
  void join_key() {
    if (!g.targets) return nulls();
    std::vector<std::pair<size_t, size_t>> ok;
    for (auto tc : g.targets->joins)
      if (!cand.rows[tc.first].empty()) ok.push_back(tc);
    if (ok.empty()) return nulls();
    auto [t, c] = ok[rng.below(ok.size())];
    const auto& col = g.schema.tables[t].columns[c];
    const unsigned mode = static_cast<unsigned>(rng.below(3));
    if (mode == 0 && takes_null(g.schema.tables[t], c)) {
      auto [which, how] = rows_to_change(t);
      set_rows(t, c, which, Value::null(), "NULL join key");
      cand.mutations.push_back("NULL join key " + g.schema.tables[t].name + "." + col.name + how);
    } else if (mode <= 1 && cand.rows[t].size() >= 2 && !is_key(g.schema.tables[t], c)) {
      size_t a = rng.below(cand.rows[t].size()), b = pick_row(t);
      set_rows(t, c, {b}, cand.rows[t][a][c], "join key of another row");
      cand.mutations.push_back("join key " + g.schema.tables[t].name + "." + col.name + " re-pointed");
    } else {
      Value v = fresh_key(t, c, cand.rows[t].size() + 7);
      set_rows(t, c, {pick_row(t)}, v, "a join key without partner");
      cand.mutations.push_back("join key " + g.schema.tables[t].name + "." + col.name + " := " + py::repr(v));
    }
  }
  // A value of one column that a set operation or IN compares, given to a row of another (targets
  // `shared`): what EXCEPT, INTERSECT and IN turn on.
  bool can_share() const { return g.targets && g.targets->shared.size() >= 2; }
  void share() {
    std::vector<std::pair<size_t, size_t>> ok;
    for (auto tc : g.targets->shared)
      if (!cand.rows[tc.first].empty()) ok.push_back(tc);
    if (ok.size() < 2) return distinguish();
    const auto a = ok[rng.below(ok.size())], b = ok[rng.below(ok.size())];
    const auto &ta = g.schema.tables[a.first], &tb = g.schema.tables[b.first];
    const Value v = cand.rows[a.first][rng.below(cand.rows[a.first].size())][a.second];
    if (a == b || v.is_null() || is_key(tb, b.second) || !fits(tb.columns[b.second], v)) return distinguish();
    set_rows(b.first, b.second, {pick_row(b.first)}, v, "the value of " + ta.name + "." + ta.columns[a.second].name);
    cand.mutations.push_back("a value of " + ta.name + "." + ta.columns[a.second].name + " shared with " + tb.name + "." +
                             tb.columns[b.second].name);
  }
  Value fresh_value(size_t t, size_t c, size_t row) {
    const Column& col = g.schema.tables[t].columns[c];
    if (!col.notnull && col.pk == 0 && rng.chance(10)) return Value::null();
    if (!g.constants.empty() && rng.chance(25)) {
      Value v = variant(g.constants[rng.below(g.constants.size())].value, rng);
      if (fits(col, v)) return v;
    }
    if (is_key(g.schema.tables[t], c)) return fresh_key(t, c, row);
    if (!col.domain.empty()) return col.domain[rng.below(col.domain.size())];
    return col.affinity == Affinity::Text ? Value::text("v" + std::to_string(rng.below(5)))
                                          : Value::integer(static_cast<int64_t>(rng.below(5)));
  }
  void fresh() {
    const auto& tabs = g.schema.tables;
    for (size_t t = 0; t < tabs.size(); ++t) {
      if (!g.used[t]) continue;
      for (size_t r = 0, n = 1 + rng.below(std::min<size_t>(g.rows_per_table, 5)); r < n; ++r) {
        Row row;
        for (size_t c = 0; c < tabs[t].columns.size(); ++c) row.push_back(fresh_value(t, c, r));
        for (const auto& fk : tabs[t].fks) {  // point at a generated parent row
          if (fk.parent == SIZE_MAX || cand.rows[fk.parent].empty()) continue;
          const Row& p = cand.rows[fk.parent][rng.below(cand.rows[fk.parent].size())];
          for (size_t k = 0; k < fk.columns.size(); ++k) row[fk.columns[k]] = p[fk.parent_columns[k]];
        }
        add(t, std::move(row), "generated (column domains, query constants, fresh keys)");
      }
    }
  }
};
}  // namespace

Candidate make_candidate(const GenContext& g, Rng& rng, size_t index) {
  // The targeted strategies come first and twice per cycle: on a pair that a comparison boundary, a
  // counted column or a join key separates, the first candidates find it.
  enum Strategy { kBoundary, kCounted, kDense, kJoins, kOriginal, kDuplicate, kNulls, kConstants, kTies, kFresh, kFreshMut };
  static const Strategy cycle[] = {kBoundary, kCounted, kDense, kJoins, kOriginal, kDuplicate, kBoundary,
                                   kNulls, kCounted, kDense, kConstants, kTies, kFresh, kFreshMut};
  static const char* names[] = {"boundary", "counted", "dense+mutations", "joins", "original-subset", "duplicate",
                                "nulls", "constants", "ties", "fresh", "fresh+mutations"};
  Builder b{g, rng, {}};
  b.cand.rows.resize(g.schema.tables.size());
  b.cand.src.resize(g.schema.tables.size());
  const Strategy k = cycle[index % (sizeof cycle / sizeof cycle[0])];
  b.cand.strategy = names[k];
  if (k == kFresh || k == kFreshMut) b.fresh();
  else b.original_subset(k == kBoundary || k == kCounted || k == kDense || k == kJoins);
  const size_t n_ops = k == kOriginal ? 0 : 1 + rng.below(3);
  for (size_t op = 0; op < n_ops; ++op) {
    switch (k) {
      case kBoundary: rng.chance(75) ? b.boundary() : b.distinguish(); break;
      case kCounted: b.counted(); break;
      case kJoins:
        if (b.can_share() && rng.chance(50)) b.share();
        else rng.chance(75) ? b.join_key() : b.distinguish();
        break;
      case kDuplicate: b.duplicate(); break;
      case kNulls: b.nulls(); break;
      case kConstants: b.constants(); break;
      case kTies: b.ties(); break;
      case kDense:
        switch (rng.below(7)) {
          case 0: b.boundary(); break;
          case 1: b.counted(); break;
          case 2: b.duplicate(true); break;
          case 3: b.join_key(); break;
          case 4: b.nulls(); break;
          case 5: b.distinguish(); break;
          default: b.constants(); break;
        }
        break;
      default:  // fresh: an emptied table or NULLs; fresh+mutations: any of the mutations
        switch (k == kFresh ? 5 : 1 + rng.below(6)) {
          case 1: b.duplicate(); break;
          case 2: b.nulls(); break;
          case 3: b.constants(); break;
          case 4: b.ties(); break;
          case 5: rng.chance(30) ? b.empty_table() : b.nulls(); break;
          default: b.boundary(); break;
        }
    }
  }
  return std::move(b.cand);
}

Candidate grow_candidate(const GenContext& g, Rng& rng, Candidate base) {
  Builder b{g, rng, std::move(base)};
  for (size_t op = 0, n = 1 + rng.below(3); op < n; ++op) {
    switch (rng.below(4)) {
      case 0: case 1: b.duplicate(); break;
      case 2: b.join_key(); break;
      default: b.counted(); break;
    }
  }
  if (b.cand.strategy.find("+tie-break") == std::string::npos) b.cand.strategy += "+tie-break";
  return std::move(b.cand);
}

}  // namespace sqlgrade::verify
