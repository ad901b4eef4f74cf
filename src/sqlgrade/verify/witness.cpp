// Degenerate and unrealistic witnesses (witness.hpp).
#include "sqlgrade/verify/witness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/py/repr.hpp"
#include "sqlgrade/spider/sqlparse.hpp"

namespace sqlgrade::verify {

namespace {
using spider::sqlparse::TokType;

// Keywords that end a FROM list at its own parenthesis depth.
bool ends_from(const std::string& w) {
  static const std::set<std::string> ends = {"where", "group by", "order by", "limit", "having", "union",
                                             "union all", "except", "intersect", "on", "using", "select",
                                             "window", "values"};
  return ends.count(w) > 0;
}

// Reads one query: the tables after FROM / JOIN / a FROM list's comma; every Name token; whether it
// selects * (a wildcard not inside count(...)).
void read_query(const std::string& sql, std::set<std::string>& tables, std::set<std::string>& words, bool& star) {
  const std::vector<SqlWord> toks = significant_words(sql);
  std::vector<bool> in_from(1, false);
  bool expect_table = false;
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& w = toks[i].lower;
    if (w == "(") {
      in_from.push_back(false);
      expect_table = false;
      continue;
    }
    if (w == ")") {
      if (in_from.size() > 1) in_from.pop_back();
      continue;
    }
    if (toks[i].type == TokType::Wildcard && !(i >= 2 && toks[i - 1].text == "(" &&
                                               toks[i - 2].lower == "count"))
      star = true;
    if (toks[i].type == TokType::Name || toks[i].type == TokType::StringSymbol ||
        (toks[i].type == TokType::Keyword && w.find(' ') == std::string::npos))
      words.insert(toks[i].name);
    if (expect_table) {
      tables.insert(toks[i].name);
      expect_table = false;
      continue;
    }
    if (w == "from") {
      in_from.back() = true;
      expect_table = true;
    } else if (w.size() >= 4 && w.compare(w.size() - 4, 4, "join") == 0) {
      expect_table = true;
    } else if (w == "," && in_from.back()) {
      expect_table = true;
    } else if (ends_from(w)) {
      in_from.back() = false;
    }
  }
}

std::string cell(const Value& v) { return py::repr(v); }

// A column reference on one side of `=`: its qualifier (a table or an alias, "" when none) and name.
struct ColumnWord {
  std::string qual, name;
};

// Every `[q.]x = [q.]y` of one query whose two sides are column references.
void equalities(const std::string& sql, std::vector<std::pair<ColumnWord, ColumnWord>>& out) {
  const std::vector<SqlWord> toks = significant_words(sql);
  for (size_t i = 1; i + 1 < toks.size(); ++i) {
    if (toks[i].type != TokType::Comparison || toks[i].text != "=") continue;
    if (!toks[i - 1].is_word() || !toks[i + 1].is_word()) continue;
    ColumnWord l{"", toks[i - 1].name}, r{"", toks[i + 1].name};
    if (i >= 3 && toks[i - 2].text == "." && toks[i - 3].is_word()) l.qual = toks[i - 3].name;
    if (i + 3 < toks.size() && toks[i + 2].text == "." && toks[i + 3].is_word()) {
      r.qual = r.name;
      r.name = toks[i + 3].name;
    }
    out.emplace_back(std::move(l), std::move(r));
  }
}

// The read tables' columns a reference may name: a qualifier that is a table's name picks that table;
// an alias (or none) leaves every read table with a column of that name.
std::vector<QueryFacts::ColumnRef> resolve(const Schema& s, const std::vector<size_t>& read, const ColumnWord& w) {
  bool qual_is_table = false;
  for (size_t t : read) qual_is_table = qual_is_table || to_lower(s.tables[t].name) == w.qual;
  std::vector<QueryFacts::ColumnRef> out;
  for (size_t t : read) {
    if (qual_is_table && to_lower(s.tables[t].name) != w.qual) continue;
    for (size_t k = 0; k < s.tables[t].columns.size(); ++k)
      if (to_lower(s.tables[t].columns[k].name) == w.name) out.push_back({t, k});
  }
  return out;
}

// A value as a comparison of stored values sees it: texts as they are, numbers in their text form
// (a TEXT column stores the integer 10 as '10').
std::string loose_key(const Value& v) {
  if (v.kind == Kind::Text) return v.s;
  if (v.kind == Kind::Int) return std::to_string(v.i);
  if (v.kind == Kind::Real && std::isfinite(v.r) && v.r == std::floor(v.r) && std::fabs(v.r) < 1e15)
    return std::to_string(static_cast<long long>(v.r));
  return cell(v);
}

// Reals rounded to kFloatDigits significant digits (texts and integers unchanged).
Table rounded(const Table& t) {
  Table out = t;
  for (Row& r : out.rows)
    for (Value& v : r)
      if (v.kind == Kind::Real && std::isfinite(v.r)) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.*g", kFloatDigits, v.r);
        v.r = std::strtod(buf, nullptr);
      }
  return out;
}

bool is_zero(const Value& v) { return v.is_null() || (v.kind == Kind::Int && v.i == 0) || (v.kind == Kind::Real && v.r == 0); }

// A text value that is a case or substring variant of one of the queries' text constants (and not the
// constant itself).
const Constant* variant_of(const Value& v, const std::vector<Constant>& cs) {
  if (v.kind != Kind::Text || v.s.empty()) return nullptr;
  const std::string lv = to_lower(v.s);
  for (const auto& c : cs) {
    if (c.value.kind != Kind::Text || c.value.s == v.s || c.value.s.size() < 2) continue;
    std::string lc = to_lower(c.value.s);
    std::string bare;
    for (char ch : lc)
      if (ch != '%' && ch != '_') bare += ch;
    if (bare.size() < 2) continue;  // a one-letter code ('M', 'F') is inside every text
    if (lc == lv || bare == lv || lv.find(bare) != std::string::npos || bare.find(lv) != std::string::npos) return &c;
  }
  return nullptr;
}

std::string quote_ident(const std::string& s) { return "\"" + replace_all(s, "\"", "\"\"") + "\""; }
std::string quote_text(const std::string& s) { return "'" + replace_all(s, "'", "''") + "'"; }
}  // namespace

QueryFacts query_facts(const Schema& s, const std::string& gold_sql, const std::string& pred_sql) {
  QueryFacts f;
  std::set<std::string> tables, words, starred;  // starred: tables of a query that selects *
  for (const std::string* q : {&gold_sql, &pred_sql}) {
    std::set<std::string> mine;
    bool star = false;
    read_query(*q, mine, words, star);
    tables.insert(mine.begin(), mine.end());
    if (star) starred.insert(mine.begin(), mine.end());
  }
  f.named.resize(s.tables.size());
  for (size_t t = 0; t < s.tables.size(); ++t) {
    const std::string name = to_lower(s.tables[t].name);
    if (tables.count(name)) f.read_tables.push_back(t);
    for (const auto& c : s.tables[t].columns) f.named[t].push_back(starred.count(name) || words.count(to_lower(c.name)));
  }
  f.constants = query_constants(gold_sql, pred_sql);
  std::vector<std::pair<ColumnWord, ColumnWord>> eqs;
  equalities(gold_sql, eqs);
  equalities(pred_sql, eqs);
  std::set<std::pair<size_t, size_t>> seen;
  for (const auto& [l, r] : eqs)
    for (const auto& a : resolve(s, f.read_tables, l))
      for (const auto& b : resolve(s, f.read_tables, r)) {
        const size_t ka = a.table * 100000 + a.column, kb = b.table * 100000 + b.column;
        const std::pair<size_t, size_t> key{std::min(ka, kb), std::max(ka, kb)};
        if (a.table != b.table && seen.insert(key).second) f.equated.emplace_back(a, b);
      }
  return f;
}

bool vacuous(const Table& t) {
  if (t.rows.empty()) return true;
  if (t.rows.size() != 1) return false;
  return std::all_of(t.rows[0].begin(), t.rows[0].end(), is_zero);
}

bool float_noise(const RuleSpec& rule, const Table& gold, const Table& pred) {
  auto has_real = [](const Table& t) {
    for (const Row& r : t.rows)
      for (const Value& v : r)
        if (v.kind == Kind::Real) return true;
    return false;
  };
  if (!has_real(gold) && !has_real(pred)) return false;
  return !same_result(rule, gold, pred) && same_result(rule, rounded(gold), rounded(pred));
}

std::string degenerate(const QueryFacts& f, const RuleSpec& rule, const Candidate& c, const Table& gold,
                       const Table& pred) {
  for (size_t t : f.read_tables)
    if (t < c.rows.size() && c.rows[t].empty()) return "a table the queries read is empty";
  if (vacuous(gold) && vacuous(pred)) return "both results are vacuous (an aggregate over no row)";
  if (float_noise(rule, gold, pred)) return "the results differ only by floating-point noise";
  return "";
}

namespace {
// A column that names an entity by text: declared unique or unique in the data, text in the data.
bool text_identity(const Column& c) {
  if (!(c.single_unique || c.data_unique)) return false;
  for (const auto& d : c.domain)
    if (d.kind == Kind::Text) return true;
  return false;
}

// The benchmark database, opened read-only on first use (a witness rarely needs it).
struct DataLookup {
  const std::string& path;
  std::unique_ptr<SqliteDb> db;
  // The first value of `col` in the data's rows of `table` where `key` = v; nullopt when none.
  std::optional<Value> find(const std::string& table, const std::string& key, const Value& v, const std::string& col) {
    if (!db) db = std::make_unique<SqliteDb>(path);
    ExecResult e = db->execute("SELECT " + quote_ident(col) + " FROM " + quote_ident(table) + " WHERE " + quote_ident(key) +
                                   " = " + quote_text(v.s) + " LIMIT 1",
                               Limits{5, 1, 1u << 20});
    if (!e.ok() || e.table.rows.empty()) return std::nullopt;
    return e.table.rows[0][0];
  }
  // The data's rows of child joined to parent on child.cc = parent.pc always agree on child.ca =
  // parent.pb: at least 3 joined rows, at least 2 distinct values, no pair that differs.
  bool always_agree(const std::string& ct, const std::string& cc, const std::string& ca, const std::string& pt,
                    const std::string& pc, const std::string& pb) {
    if (!db) db = std::make_unique<SqliteDb>(path);
    ExecResult e = db->execute("SELECT count(*), count(DISTINCT a), sum(CASE WHEN a IS b THEN 0 ELSE 1 END) FROM (SELECT c." +
                                   quote_ident(ca) + " AS a, p." + quote_ident(pb) + " AS b FROM " + quote_ident(ct) +
                                   " AS c JOIN " + quote_ident(pt) + " AS p ON c." + quote_ident(cc) + " = p." +
                                   quote_ident(pc) + " LIMIT " + std::to_string(kMinedRows) + ")",
                               Limits{5, 1, 1u << 20});
    if (!e.ok() || e.table.rows.size() != 1 || e.table.rows[0][0].kind != Kind::Int) return false;
    const Row& r = e.table.rows[0];
    return r[0].i >= 3 && r[1].kind == Kind::Int && r[1].i >= 2 && r[2].kind == Kind::Int && r[2].i == 0;
  }
  // The data keeps child.cc inside parent.pc: at least 3 non-NULL child values (over the first
  // kMinedRows) and each of them a parent value. False when the data cannot say in time.
  bool included(const std::string& ct, const std::string& cc, const std::string& pt, const std::string& pc) {
    if (!db) db = std::make_unique<SqliteDb>(path);
    ExecResult e = db->execute("SELECT count(*), sum(CASE WHEN v IN (SELECT " + quote_ident(pc) + " FROM " + quote_ident(pt) +
                                   ") THEN 0 ELSE 1 END) FROM (SELECT " + quote_ident(cc) + " AS v FROM " + quote_ident(ct) +
                                   " WHERE " + quote_ident(cc) + " IS NOT NULL LIMIT " + std::to_string(kMinedRows) + ")",
                               Limits{5, 1, 1u << 20});
    if (!e.ok() || e.table.rows.size() != 1 || e.table.rows[0][0].kind != Kind::Int) return false;
    const Row& r = e.table.rows[0];
    return r[0].i >= 3 && r[1].kind == Kind::Int && r[1].i == 0;
  }
};

bool unique_in_practice(const Column& c) { return c.single_unique || c.data_unique; }

// A row of `child` whose value of the equated column has no row of `parent` in the witness, where the
// data always has one (Spider dev 233: a flight of an airline missing from airlines).
void dangling(const QueryFacts& f, const Schema& s, const Candidate& c, DataLookup& data, std::vector<std::string>& out) {
  for (const auto& [x, y] : f.equated)
    for (const auto& [child, parent] : {std::pair{x, y}, std::pair{y, x}}) {
      const Column& pcol = s.tables[parent.table].columns[parent.column];
      if (!unique_in_practice(pcol) || child.table >= c.rows.size() || parent.table >= c.rows.size()) continue;
      std::set<std::string> targets;
      for (const Row& r : c.rows[parent.table])
        if (!r[parent.column].is_null()) targets.insert(loose_key(r[parent.column]));
      for (const Row& r : c.rows[child.table]) {
        const Value& v = r[child.column];
        if (v.is_null() || targets.count(loose_key(v))) continue;
        const TableInfo &ct = s.tables[child.table], &pt = s.tables[parent.table];
        const std::string cname = ct.name + "." + ct.columns[child.column].name, pname = pt.name + "." + pcol.name;
        if (data.included(ct.name, ct.columns[child.column].name, pt.name, pcol.name))
          out.push_back(cname + " = " + cell(v) + " with no " + pname + " to match (every " + cname + " is a " + pname +
                        " in the data)");
        break;
      }
    }
}

// A row of `child` and the `parent` row it references (an equated pair, the parent's side unique)
// that disagree on two columns the data always agrees on across that reference — a copy of the
// parent's value kept in the child (Spider dev 485: matches.winner_hand is players.hand of the
// winner in every row of the data).
void inconsistent_copy(const QueryFacts& f, const Schema& s, const Candidate& c, DataLookup& data,
                       std::vector<std::string>& out) {
  for (const auto& [x, y] : f.equated)
    for (const auto& [child, parent] : {std::pair{x, y}, std::pair{y, x}}) {
      const TableInfo &ct = s.tables[child.table], &pt = s.tables[parent.table];
      if (!unique_in_practice(pt.columns[parent.column]) || child.table >= c.rows.size() || parent.table >= c.rows.size()) continue;
      for (size_t a = 0; a < ct.columns.size(); ++a)
        for (size_t b = 0; b < pt.columns.size(); ++b) {
          if (a == child.column || b == parent.column || !f.named[child.table][a] || !f.named[parent.table][b]) continue;
          const Row* differing = nullptr;
          for (const Row& cr : c.rows[child.table])
            for (const Row& pr : c.rows[parent.table])
              if (!differing && !cr[child.column].is_null() && loose_key(cr[child.column]) == loose_key(pr[parent.column]) &&
                  !(cr[a].is_null() && pr[b].is_null()) && (cr[a].is_null() || pr[b].is_null() || loose_key(cr[a]) != loose_key(pr[b])))
                differing = &cr;
          if (!differing || !data.always_agree(ct.name, ct.columns[child.column].name, ct.columns[a].name, pt.name,
                                               pt.columns[parent.column].name, pt.columns[b].name))
            continue;
          out.push_back(ct.name + "." + ct.columns[a].name + " = " + cell((*differing)[a]) + " where its " + pt.name + "." +
                        pt.columns[b].name + " differs (the data keeps them equal across " + ct.name + "." +
                        ct.columns[child.column].name + " = " + pt.name + "." + pt.columns[parent.column].name + ")");
          return;
        }
    }
}

// A text value outside a category's few values in the data (Spider dev 980: abandoned_yn = 'Y' where
// the data has only '0' and '1').
std::string outside_category(const Column& col, const std::string& where, const Value& v) {
  if (!col.data_closed || v.is_null()) return "";
  std::string values;
  for (const Value& d : col.domain) {
    if (loose_key(d) == loose_key(v)) return "";
    values += (values.empty() ? "" : ", ") + cell(d);
  }
  return where + " = " + cell(v) + ", a value the data never has there (only " + values + ")";
}

// Rows that re-label an entity: two identity columns of one table (a code and a name) paired in the
// witness otherwise than in the data (Spider dev 736: country 'Aruba' with a code other than 'ABW').
void relabelled(const QueryFacts& f, const TableInfo& ti, size_t t, const std::vector<Row>& rows, DataLookup& data,
                std::vector<std::string>& out) {
  std::vector<size_t> ids;
  for (size_t k = 0; k < ti.columns.size(); ++k)
    if (f.named[t][k] && text_identity(ti.columns[k])) ids.push_back(k);
  for (size_t a : ids)
    for (size_t b : ids) {
      if (a == b) continue;
      for (const Row& r : rows) {
        if (r[a].kind != Kind::Text) continue;
        auto in_data = data.find(ti.name, ti.columns[a].name, r[a], ti.columns[b].name);
        if (!in_data || *in_data == r[b]) continue;
        out.push_back(ti.name + "." + ti.columns[a].name + " = " + py::repr(r[a]) + " with " + ti.columns[b].name + " = " +
                      py::repr(r[b]) + " (the data pairs it with " + py::repr(*in_data) + ")");
        break;
      }
    }
}
}  // namespace

std::vector<std::string> broken_properties(const QueryFacts& f, const Schema& s, const Candidate& c,
                                           const std::string& db_path) {
  std::vector<std::string> out;
  DataLookup data{db_path, nullptr};
  for (size_t t = 0; t < s.tables.size() && t < c.rows.size(); ++t) {
    relabelled(f, s.tables[t], t, c.rows[t], data, out);
    const TableInfo& ti = s.tables[t];
    for (size_t k = 0; k < ti.columns.size(); ++k) {
      if (!f.named[t][k]) continue;
      const Column& col = ti.columns[k];
      const std::string where = ti.name + "." + col.name;
      std::map<std::string, size_t> seen;
      bool null_reported = false, category_reported = false;
      for (const Row& r : c.rows[t]) {
        const Value& v = r[k];
        if (std::string o = outside_category(col, where, v); !o.empty() && !category_reported) {
          out.push_back(std::move(o));
          category_reported = true;
        }
        if (v.is_null()) {
          if (col.data_never_null && !null_reported) out.push_back("NULL in " + where + " (never NULL in the data)");
          null_reported = true;
          continue;
        }
        if (col.data_unique && ++seen[std::to_string(int(v.kind)) + cell(v)] == 2)
          out.push_back(where + " = " + cell(v) + " twice (its values are all distinct in the data)");
        if (const Constant* k0 = variant_of(v, f.constants)) {
          if (!data.find(ti.name, col.name, v, col.name))
            out.push_back(where + " = " + cell(v) + ", a variant of the constant " + cell(k0->value) +
                          " that is not a value of the data");
        }
      }
    }
  }
  dangling(f, s, c, data, out);
  inconsistent_copy(f, s, c, data, out);
  return out;
}

void classify_witness(const QueryFacts& f, const Schema& s, const Item& item, const Candidate& c,
                      Counterexample* cex) {
  cex->degenerate = degenerate(f, item.rule, c, cex->gold_result, cex->pred_result);
  try {
    cex->breaks = broken_properties(f, s, c, item.db_path);
  } catch (const std::exception&) {
    cex->breaks.clear();  // the benchmark database became unreadable: no claim either way
  }
}

nlohmann::json witness_json(const Counterexample& c) {
  nlohmann::json j{{"witness_rows", c.rows.size()}};
  if (!c.degenerate.empty()) j["degenerate"] = c.degenerate;
  if (!c.breaks.empty()) j["breaks"] = c.breaks;
  return j;
}

nlohmann::json witness_size_distribution(const std::vector<size_t>& rows) {
  if (rows.empty()) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::object();
  for (size_t n = 0; n <= 5; ++n) j[std::to_string(n)] = 0;
  j["6+"] = 0;
  for (size_t n : rows) j[n >= 6 ? std::string("6+") : std::to_string(n)] = j[n >= 6 ? std::string("6+") : std::to_string(n)].get<size_t>() + 1;
  std::vector<size_t> v = rows;
  std::sort(v.begin(), v.end());
  j["median"] = v.size() % 2 ? double(v[v.size() / 2]) : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2.0;
  j["max"] = v.back();
  return j;
}

}  // namespace sqlgrade::verify
