// Where the queries point the search (candidate.hpp QueryTargets, Seeds): the columns compared with
// literals and their boundary values, the columns aggregates read, join keys, the columns the result
// shows; and the rows of the benchmark database that the queries' own filters select.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/py/number.hpp"
#include "sqlgrade/py/repr.hpp"
#include "sqlgrade/spider/sqlparse.hpp"
#include "sqlgrade/verify/candidate.hpp"

namespace sqlgrade::verify {

using spider::sqlparse::TokType;
namespace {
using Tok = SqlWord;

// A literal token as a Value (numbers, '...' strings), or NULL when it is not one.
Value literal_value(const Tok& t) {
  if (t.type == TokType::Number) {
    if (auto i = py::parse_int(t.text)) return Value::integer(*i);
    if (auto d = py::parse_float(t.text)) return Value::real(*d);
  }
  if (t.type == TokType::StringSingle && t.text.size() >= 2)
    return Value::text(replace_all(t.text.substr(1, t.text.size() - 2), "''", "'"));
  return Value::null();
}

// The literal converted as the column's affinity converts it on comparison/insert.
Value as_column(const Column& c, const Value& v) {
  if (v.kind == Kind::Text && (c.affinity == Affinity::Integer || c.affinity == Affinity::Real || c.affinity == Affinity::Numeric)) {
    if (auto i = py::parse_int(v.s)) return Value::integer(*i);
    if (auto d = py::parse_float(v.s)) return Value::real(*d);
    return v;
  }
  if (v.is_number() && c.affinity == Affinity::Text)
    return Value::text(v.kind == Kind::Int ? std::to_string(v.i) : py::repr(v));
  return v;
}

// The values at the boundary of a comparison with literal v in column c.
std::vector<Value> boundary_values(const Column& c, const Value& lit, bool like) {
  std::vector<Value> out;
  auto add = [&](Value x) {
    x = as_column(c, x);
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(std::move(x));
  };
  const Value v = as_column(c, lit);
  add(v);
  if (v.kind == Kind::Int) {
    add(Value::integer(v.i - 1));
    add(Value::integer(v.i + 1));
    if (c.affinity != Affinity::Integer) add(Value::real(v.i - 0.5)), add(Value::real(v.i + 0.5));
  } else if (v.kind == Kind::Real) {
    for (double d : {-0.01, 0.01, -1.0, 1.0}) add(Value::real(v.r + d));
  } else if (v.kind == Kind::Text && like) {
    std::string bare;
    for (char ch : v.s)
      if (ch != '%' && ch != '_') bare += ch;
    if (!bare.empty()) add(Value::text(bare));
  }
  return out;
}

std::string quote_ident(const std::string& n) { return "\"" + replace_all(n, "\"", "\"\"") + "\""; }
std::string sql_literal(const Value& v) {
  if (v.kind == Kind::Text) return "'" + replace_all(v.s, "'", "''") + "'";
  return v.kind == Kind::Int ? std::to_string(v.i) : py::repr(v);
}

struct TargetReader {
  const Schema& s;
  const std::vector<bool>& used;
  QueryTargets out;

  std::vector<std::pair<size_t, size_t>> resolve(const std::string& name) const {
    std::vector<std::pair<size_t, size_t>> r;
    for (size_t t = 0; t < s.tables.size(); ++t) {
      if (!used[t]) continue;
      for (size_t c = 0; c < s.tables[t].columns.size(); ++c)
        if (to_lower(s.tables[t].columns[c].name) == name) r.push_back({t, c});
    }
    return r;
  }
  // A comparison of column `name` with literals: its boundary values, and the filter as SQL (for the
  // seed rows of the original database).
  void boundary(const std::string& name, const std::vector<Value>& lits, const std::string& filter_tail,
                bool like, const std::string& from) {
    for (auto [t, c] : resolve(name)) {
      std::vector<Value> vals;
      for (const Value& l : lits)
        for (Value& v : boundary_values(s.tables[t].columns[c], l, like)) vals.push_back(std::move(v));
      add_boundary(t, c, vals, quote_ident(s.tables[t].columns[c].name) + " " + filter_tail, from);
    }
  }
  void add_boundary(size_t t, size_t c, std::vector<Value> vals, const std::string& filter, const std::string& from) {
    Boundary* b = nullptr;
    for (auto& x : out.boundaries)
      if (x.table == t && x.column == c) b = &x;
    if (!b) {
      out.boundaries.push_back({t, c, {}, from, {}});
      b = &out.boundaries.back();
    } else if (b->from != from) {
      b->from = "both";
    }
    for (Value& v : vals)
      if (std::find(b->values.begin(), b->values.end(), v) == b->values.end()) b->values.push_back(std::move(v));
    if (!filter.empty() && std::find(b->filters.begin(), b->filters.end(), filter) == b->filters.end())
      b->filters.push_back(filter);
  }
  void add_unique(std::vector<std::pair<size_t, size_t>>& v, const std::string& name) {
    for (auto tc : resolve(name))
      if (std::find(v.begin(), v.end(), tc) == v.end()) v.push_back(tc);
  }
  // The column name whose last token is at i (`name` or `qual . name`), "" when tok[i] is no name.
  static std::string column_at(const std::vector<Tok>& k, size_t i) {
    if (i >= k.size() || !k[i].is_word() || k[i].type == TokType::StringSingle) return "";
    return k[i].name;
  }
  // The column name starting at i (`name` or `qual . name`), "" when none.
  static std::string column_from(const std::vector<Tok>& k, size_t i) {
    if (i + 2 < k.size() && k[i + 1].text == ".") return column_at(k, i + 2);
    return column_at(k, i);
  }
  // `SUBSTR(T2.date, 1, 4) = '2012'`, `STRFTIME('%Y', dob) < '1985'`: a function of the columns of one
  // table compared with literals becomes a seed filter of that table (qualifiers dropped); when it reads
  // one column, that column's boundary values are the literals themselves (a prefix is its own
  // SUBSTR), a year or month spelled as a date ('2012' -> '2012-01-01', '2012-06-15 12:00:00') and NULL
  // (every comparison with it is unknown).
  void expression_filter(const std::vector<Tok>& k, size_t close_at, const std::string& tail,
                         const std::vector<Value>& lits, const std::string& from) {
    size_t j = close_at, depth = 0;
    for (;; --j) {
      if (k[j].text == ")") ++depth;
      if (k[j].text == "(" && --depth == 0) break;
      if (j == 0) return;
    }
    if (j == 0 || k[j - 1].type != TokType::Name) return;
    std::string text;
    std::vector<std::string> names;
    for (size_t x = j - 1; x <= close_at; ++x) {
      if (x + 1 <= close_at && k[x + 1].text == "." && k[x].is_word()) {
        ++x;  // a qualifier and its dot
        continue;
      }
      if (x > j && k[x].is_word() && k[x].type != TokType::Keyword && !(x + 1 <= close_at && k[x + 1].text == "(") &&
          !resolve(k[x].name).empty()) {
        if (std::find(names.begin(), names.end(), k[x].name) == names.end()) names.push_back(k[x].name);
        text += quote_ident(k[x].name);
      } else {
        text += k[x].text;
      }
      text += ' ';
    }
    if (names.empty()) return;
    for (auto [t, c] : resolve(names[0])) {
      bool all = true;
      for (const auto& n : names) {
        bool here = false;
        for (const auto& col : s.tables[t].columns) here = here || to_lower(col.name) == n;
        all = all && here;
      }
      if (!all) continue;
      const std::string f = text + tail;
      if (names.size() > 1) {
        if (std::find(out.filters.begin(), out.filters.end(), std::make_pair(t, f)) == out.filters.end())
          out.filters.push_back({t, f});
        continue;
      }
      std::vector<Value> vals;
      for (const Value& l : lits) {
        vals.push_back(l);
        if (l.kind != Kind::Text) continue;
        const bool digits4 =
            l.s.size() == 4 && std::all_of(l.s.begin(), l.s.end(), [](unsigned char ch) { return std::isdigit(ch); });
        if (digits4) vals.push_back(Value::text(l.s + "-01-01")), vals.push_back(Value::text(l.s + "-06-15 12:00:00"));
        if (l.s.size() == 7 && l.s[4] == '-') vals.push_back(Value::text(l.s + "-01"));
      }
      if (!s.tables[t].columns[c].notnull) vals.push_back(Value::null());
      add_boundary(t, c, vals, f, from);
    }
  }
  void comparison(const std::vector<Tok>& k, size_t i, const std::string& from) {
    const std::string op = k[i].lower;
    const bool like = op.find("like") != std::string::npos || op.find("glob") != std::string::npos;
    const Value right = i + 1 < k.size() ? literal_value(k[i + 1]) : Value::null();
    const Value left = i > 0 ? literal_value(k[i - 1]) : Value::null();
    if (!right.is_null() && i > 0 && k[i - 1].text == ")") {  // f(... column ...) OP literal
      expression_filter(k, i - 1, op + " " + sql_literal(right), {right}, from);
    } else if (!right.is_null() && i > 0) {  // column OP literal ("- 5" is one Number token)
      std::string n = column_at(k, i - 1);
      if (!n.empty()) boundary(n, {right}, op + " " + sql_literal(right), like, from);
    } else if (!left.is_null()) {  // literal OP column
      static const std::map<std::string, std::string> flip = {{"<", ">"}, {">", "<"}, {"<=", ">="}, {">=", "<="}};
      auto f = flip.find(op);
      std::string n = column_from(k, i + 1);
      if (!n.empty() && !like) boundary(n, {left}, (f == flip.end() ? op : f->second) + " " + sql_literal(left), false, from);
    } else if (op == "=" && i > 0) {  // column = column: a join key on both sides
      std::string a = column_at(k, i - 1), b = column_from(k, i + 1);
      if (!a.empty() && !b.empty()) add_unique(out.joins, a), add_unique(out.joins, b);
    }
  }
  // The bare column names of the SELECT list that starts at k[at] ("select"), up to its FROM.
  void select_list(const std::vector<Tok>& k, size_t at, std::vector<std::pair<size_t, size_t>>& v) {
    for (size_t i = at + 1, depth = 0; i < k.size(); ++i) {
      if (k[i].text == "(") ++depth;
      if (k[i].text == ")" && depth) --depth;
      if (depth == 0 && k[i].lower == "from") break;
      if (k[i].is_word() && k[i].type != TokType::Keyword && !(i + 1 < k.size() && (k[i + 1].text == "." || k[i + 1].text == "(")))
        add_unique(v, k[i].name);
    }
  }
  // QueryTargets::shared: the parts of a set operation and the two sides of IN (SELECT ...).
  void set_compared(const std::vector<Tok>& k) {
    bool compound = false;
    for (size_t i = 0; i + 1 < k.size(); ++i) {
      const bool part = k[i].lower.rfind("union", 0) == 0 || k[i].lower == "except" || k[i].lower == "intersect";
      const bool in_sub = (k[i].lower == "in" || k[i].lower == "not in") && k[i + 1].text == "(" && i + 2 < k.size() &&
                          k[i + 2].lower == "select";
      if (in_sub && i > 0) {
        const std::string n = column_at(k, i - 1);
        if (!n.empty()) add_unique(out.shared, n);
      }
      const size_t at = part ? i + 1 : in_sub ? i + 2 : k.size();
      if (at < k.size() && k[at].lower == "select") select_list(k, at, out.shared);
      compound = compound || part;
    }
    if (compound && !k.empty() && k[0].lower == "select") select_list(k, 0, out.shared);
  }
  void read(const std::string& sql, const std::string& from) {
    const std::vector<Tok> k = significant_words(sql);
    // The columns of the outermost SELECT list (what the result shows).
    if (!k.empty() && k[0].lower == "select") select_list(k, 0, out.selected);
    set_compared(k);
    static const std::set<std::string> aggregates = {"count", "sum", "avg", "min", "max", "total", "group_concat"};
    for (size_t i = 0; i < k.size(); ++i) {
      const Tok& t = k[i];
      if (t.type == TokType::Comparison && t.lower != "in" && t.lower != "not in") {
        comparison(k, i, from);
      } else if (t.lower == "between" && i > 0 && i + 3 < k.size() && k[i + 2].lower == "and" &&
                 k[i - 1].text == ")") {
        Value lo = literal_value(k[i + 1]), hi = literal_value(k[i + 3]);
        if (!lo.is_null() && !hi.is_null())
          expression_filter(k, i - 1, "BETWEEN " + sql_literal(lo) + " AND " + sql_literal(hi), {lo, hi}, from);
      } else if (t.lower == "between" && i > 0 && i + 3 < k.size() && k[i + 2].lower == "and") {
        const bool negated = k[i - 1].lower == "not" && i > 1;
        std::string n = column_at(k, i - (negated ? 2 : 1));
        Value lo = literal_value(k[i + 1]), hi = literal_value(k[i + 3]);
        if (!n.empty() && !lo.is_null() && !hi.is_null())
          boundary(n, {lo, hi}, std::string(negated ? "NOT " : "") + "BETWEEN " + sql_literal(lo) + " AND " + sql_literal(hi),
                   false, from);
      } else if ((t.lower == "in" || t.lower == "not in") && i > 0 && i + 1 < k.size() && k[i + 1].text == "(") {
        std::vector<Value> lits;
        std::string list;
        for (size_t j = i + 2; j < k.size() && k[j].text != ")"; ++j) {
          Value v = literal_value(k[j]);
          if (!v.is_null()) {
            list += (list.empty() ? "" : ", ") + sql_literal(v);
            lits.push_back(std::move(v));
          } else if (k[j].text != ",") {
            lits.clear();
            break;
          }
        }
        std::string n = column_at(k, i - 1);
        if (!n.empty() && !lits.empty()) boundary(n, lits, "IN (" + list + ")", false, from);
      } else if (aggregates.count(t.lower) && i + 1 < k.size() && k[i + 1].text == "(") {
        size_t j = i + 2;
        if (j < k.size() && k[j].lower == "distinct") ++j;
        if (j + 2 < k.size() && k[j + 1].text == ".") j += 2;
        if (j + 1 < k.size() && k[j + 1].text == ")") add_unique(out.counted, column_at(k, j));
      }
    }
  }
};
}  // namespace

QueryTargets query_targets(const Schema& s, const std::vector<bool>& used, const std::string& gold_sql,
                           const std::string& pred_sql) {
  TargetReader r{s, used, {}};
  r.read(gold_sql, "gold");
  r.read(pred_sql, "pred");
  // A boundary on a key is also a boundary on the foreign keys that point at it (`T2.id = 7` with
  // T1.colour_id = T2.id: a row of T1 with colour_id 7).
  const size_t n = r.out.boundaries.size();
  for (size_t i = 0; i < n; ++i) {
    const Boundary b = r.out.boundaries[i];
    for (size_t t = 0; t < s.tables.size(); ++t) {
      if (!used[t]) continue;
      for (const auto& fk : s.tables[t].fks)
        for (size_t k = 0; k < fk.columns.size(); ++k)
          if (fk.parent == b.table && fk.parent_columns[k] == b.column)
            r.add_boundary(t, fk.columns[k], b.values, "", b.from);
    }
  }
  return std::move(r.out);
}

namespace {
struct SeedReader {
  const Schema& s;
  const std::vector<bool>& used;
  SqliteDb db;
  Seeds out;
  std::chrono::steady_clock::time_point until;

  bool has(size_t t, const Row& r) const {
    return std::find(out.rows[t].begin(), out.rows[t].end(), r) != out.rows[t].end();
  }
  // Rows of table t matching `where`, added (at most `limit` new ones); returns the new ones.
  std::vector<Row> fetch(size_t t, const std::string& where, size_t limit, const std::string& why) {
    std::vector<Row> fresh;
    if (std::chrono::steady_clock::now() > until || out.rows[t].size() >= kSeedRows) return fresh;
    const TableInfo& ti = s.tables[t];
    std::string cols;
    for (size_t k = 0; k < ti.columns.size(); ++k) cols += (k ? "," : "") + quote_ident(ti.columns[k].name);
    ExecResult r = db.execute("SELECT " + cols + " FROM " + quote_ident(ti.name) + " WHERE " + where + " LIMIT " +
                                  std::to_string(limit + out.rows[t].size()),
                              Limits{0.25, 64, 8u << 20});
    if (!r.ok()) return fresh;
    for (Row& row : r.table.rows) {
      if (fresh.size() >= limit || out.rows[t].size() >= kSeedRows || has(t, row)) continue;
      out.rows[t].push_back(row);
      out.src[t].push_back("original row where " + why);
      fresh.push_back(std::move(row));
    }
    return fresh;
  }
  static std::string key_match(const TableInfo& ti, const std::vector<size_t>& cols, const Row& src_row,
                               const std::vector<size_t>& src_cols, std::string* why) {
    std::string where;
    for (size_t k = 0; k < cols.size(); ++k) {
      const Value& v = src_row[src_cols[k]];
      if (v.is_null()) return "";
      where += (k ? " AND " : "") + quote_ident(ti.columns[cols[k]].name) + " = " + sql_literal(v);
    }
    *why = where;
    return where;
  }
  // The parent rows that the rows of table t point to, and the child rows (of used tables) that point
  // to them.
  void neighbours(size_t t, const std::vector<Row>& rows, bool children) {
    for (const Row& row : rows) {
      for (const auto& fk : s.tables[t].fks) {
        if (fk.parent == SIZE_MAX || !used[fk.parent]) continue;
        std::string why, w = key_match(s.tables[fk.parent], fk.parent_columns, row, fk.columns, &why);
        if (!w.empty()) neighbours(fk.parent, fetch(fk.parent, w, 1, why), false);
      }
      if (!children) continue;
      for (size_t c = 0; c < s.tables.size(); ++c) {
        if (!used[c]) continue;
        for (const auto& fk : s.tables[c].fks) {
          if (fk.parent != t) continue;
          std::string why, w = key_match(s.tables[c], fk.columns, row, fk.parent_columns, &why);
          if (!w.empty()) neighbours(c, fetch(c, w, 6, why), false);
        }
      }
    }
  }
};
}  // namespace

Seeds seed_rows(const Schema& s, const std::vector<bool>& used, const QueryTargets& targets, const std::string& db_path) {
  Seeds empty;
  empty.rows.resize(s.tables.size());
  empty.src.resize(s.tables.size());
  try {
    SeedReader r{s, used, SqliteDb(db_path), empty, std::chrono::steady_clock::now() + std::chrono::milliseconds(300)};
    for (size_t t = 0; t < s.tables.size(); ++t) {
      std::vector<std::string> filters;
      for (const auto& b : targets.boundaries)
        if (b.table == t) filters.insert(filters.end(), b.filters.begin(), b.filters.end());
      for (const auto& [ft, f] : targets.filters)
        if (ft == t) filters.push_back(f);
      if (filters.empty()) continue;
      std::vector<Row> found;
      if (filters.size() > 1) {
        std::string all;
        for (const auto& f : filters) all += (all.empty() ? "" : " AND ") + f;
        found = r.fetch(t, all, 4, all);
      }
      for (const auto& f : filters)
        for (Row& row : r.fetch(t, f, 4, f)) found.push_back(std::move(row));
      r.neighbours(t, found, true);
    }
    return std::move(r.out);
  } catch (const std::exception&) {
    return empty;  // the database cannot be read here: no seeds (the search still has its sample)
  }
}

}  // namespace sqlgrade::verify
