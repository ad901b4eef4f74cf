// Gold-suspect refutations (suspect.hpp): the key rule read from both queries with the project's
// lexer (spider/sqlparse.hpp) and the witness's rows; the peer rule on the witness rebuilt in memory.
#include "sqlgrade/verify/suspect.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/spider/sqlparse.hpp"
#include "sqlgrade/verify/candidate.hpp"
#include "sqlgrade/verify/scratch_db.hpp"
#include "sqlgrade/verify/ties.hpp"

namespace sqlgrade::verify {

using spider::sqlparse::TokType;

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

using ColRef = std::pair<size_t, size_t>;  // (table, column) of the Schema

// A query's column references resolved against the schema through its FROM/JOIN aliases.
struct QueryKeys {
  const Schema& s;
  std::vector<SqlWord> toks;
  std::map<std::string, size_t> alias;  // alias or table name -> table
  std::vector<size_t> tables;           // tables the query names after FROM / JOIN / a FROM list's comma

  QueryKeys(const Schema& schema, const std::string& sql) : s(schema), toks(significant_words(sql)) {
    for (size_t i = 0; i + 1 < toks.size(); ++i) {
      const bool from = toks[i].lower == "from" || toks[i].lower == "join" || ends_with(toks[i].lower, " join") ||
                        (toks[i].lower == "," && in_from(i));
      if (!from || !toks[i + 1].is_word()) continue;
      const size_t t = table_named(toks[i + 1].name);
      if (t == SIZE_MAX) continue;
      tables.push_back(t);
      alias[toks[i + 1].name] = t;
      size_t a = i + 2;
      if (a < toks.size() && toks[a].lower == "as") ++a;
      if (a < toks.size() && toks[a].type == TokType::Name) alias[toks[a].name] = t;
    }
  }
  // The comma at i separates FROM items: the nearest FROM/WHERE/... keyword before it is FROM.
  bool in_from(size_t i) const {
    for (size_t k = i; k-- > 0;) {
      const std::string& w = toks[k].lower;
      if (w == "from") return true;
      if (w == "select" || w == "where" || w == "group by" || w == "order by" || w == "on" || w == "(" || w == ")") return false;
    }
    return false;
  }
  size_t table_named(const std::string& n) const {
    for (size_t t = 0; t < s.tables.size(); ++t)
      if (to_lower(s.tables[t].name) == n) return t;
    return SIZE_MAX;
  }
  // The column reference starting at token i ("q.col" or "col"), resolved; *end = the token after it.
  std::vector<ColRef> column_at(size_t i, size_t* end) const {
    std::vector<ColRef> out;
    *end = i;
    if (i >= toks.size() || !toks[i].is_word()) return out;
    std::string qual, col = toks[i].name;
    *end = i + 1;
    if (i + 2 < toks.size() && toks[i + 1].lower == "." && toks[i + 2].is_word()) qual = col, col = toks[i + 2].name, *end = i + 3;
    std::vector<size_t> where;
    if (!qual.empty()) {
      auto a = alias.find(qual);
      if (a != alias.end()) where.push_back(a->second);
    } else {
      where = tables;
    }
    for (size_t t : where)
      for (size_t c = 0; c < s.tables[t].columns.size(); ++c)
        if (to_lower(s.tables[t].columns[c].name) == col && std::find(out.begin(), out.end(), ColRef{t, c}) == out.end())
          out.push_back({t, c});
    return out;
  }
  // A list of plain column references from token i to the first token at depth 0 that ends it; each
  // item that is not a plain column reference gives an empty entry.
  std::vector<std::vector<ColRef>> column_list(size_t i) const {
    std::vector<std::vector<ColRef>> items;
    if (i < toks.size() && toks[i].lower == "distinct") ++i;
    while (i < toks.size()) {
      size_t end = i;
      std::vector<ColRef> c = column_at(i, &end);
      if (end < toks.size() && toks[end].lower != "," && !ends_list(toks[end].lower)) c.clear();
      items.push_back(std::move(c));
      int depth = 0;  // skip to the next comma of this list
      for (i = end; i < toks.size(); ++i) {
        const std::string& w = toks[i].lower;
        if (w == "(") ++depth;
        if (w == ")" && depth-- == 0) return items;
        if (depth == 0 && (w == "," || ends_list(w))) break;
      }
      if (i >= toks.size() || toks[i].lower != ",") return items;
      ++i;
    }
    return items;
  }
  static bool ends_list(const std::string& w) {
    return w == "from" || w == "having" || w == "order by" || w == "limit" || w == "union" || w == "union all" ||
           w == "except" || w == "intersect" || w == ")" || w == ";" || w == "where";
  }
  // Every key the query merges rows by: each GROUP BY list, the select list of a compound EXCEPT /
  // INTERSECT, the column left of [NOT] IN (SELECT ...). One entry per key, its columns per item.
  std::vector<std::vector<std::vector<ColRef>>> keys() const {
    std::vector<std::vector<std::vector<ColRef>>> out;
    int depth = 0;
    bool compound = false;
    for (size_t i = 0; i < toks.size(); ++i) {
      const std::string& w = toks[i].lower;
      depth += w == "(" ? 1 : w == ")" ? -1 : 0;
      if (w == "group by") out.push_back(column_list(i + 1));
      if (depth == 0 && (w == "except" || w == "intersect")) compound = true;
      if ((w == "in" || w == "not in") && i + 2 < toks.size() && toks[i + 1].lower == "(" && toks[i + 2].lower == "select") {
        for (size_t back : {size_t{3}, size_t{1}})  // "q . col IN" or "col IN"
          if (i >= back) {
            size_t end = 0;
            auto c = column_at(i - back, &end);
            if (end == i && !c.empty()) {
              out.push_back({c});
              break;
            }
          }
      }
    }
    if (compound)
      for (size_t i = 0; i < toks.size(); ++i)
        if (toks[i].lower == "select") {
          out.push_back(column_list(i + 1));
          break;
        }
    return out;
  }
};

std::string col_name(const Schema& s, ColRef c) { return s.tables[c.first].name + "." + s.tables[c.first].columns[c.second].name; }

// A declared key of table t: the column alone is PRIMARY KEY / UNIQUE in t, or it is a foreign key
// column (anywhere) that references such a column of t.
bool declared_key_of(const Schema& s, ColRef c, size_t t) {
  if (c.first == t) return s.tables[t].columns[c.second].single_unique;
  for (const ForeignKey& fk : s.tables[c.first].fks)
    if (fk.parent == t && fk.columns.size() == 1 && fk.columns[0] == c.second && !fk.parent_columns.empty() &&
        s.tables[t].columns[fk.parent_columns[0]].single_unique)
      return true;
  return false;
}

// The columns of one table that a key's items name (every item a plain column of table t), or empty.
std::vector<size_t> key_columns(const std::vector<std::vector<ColRef>>& key, size_t* table) {
  std::vector<size_t> cols;
  *table = SIZE_MAX;
  for (const auto& item : key) {
    if (item.size() != 1) return {};
    if (*table != SIZE_MAX && item[0].first != *table) return {};
    *table = item[0].first;
    cols.push_back(item[0].second);
  }
  return cols;
}

// How many rows of table t in the witness share their values of `cols` with another row (non-NULL).
size_t repeated_rows(const Counterexample& c, const TableInfo& ti, const std::vector<size_t>& cols) {
  std::map<std::vector<std::string>, size_t> seen;
  for (const CexRow& r : c.rows) {
    if (r.table != ti.name) continue;
    std::vector<std::string> k;
    bool null = false;
    for (size_t col : cols) {
      if (col >= r.values.size() || r.values[col].kind == Kind::Null) null = true;
      else k.push_back(r.values[col].is_number() ? std::to_string(r.values[col].as_double()) : r.values[col].s);
    }
    if (!null) ++seen[k];
  }
  size_t n = 0;
  for (const auto& [k, count] : seen) n += count > 1 ? count : 0;
  return n;
}

// A key that names entities in practice: a column of it is name-like, no column of it is declared a
// key or a foreign key, and the benchmark data's sample of the table has at least 3 rows with the key,
// at least kNearlyUnique of them distinct (names, titles: what two entities rarely share, yet can).
constexpr double kNearlyUnique = 0.8;
bool names_entities(const TableInfo& ti, const std::vector<size_t>& cols) {
  bool named = false;
  for (size_t col : cols) named |= name_like(ti, ti.columns[col]);
  if (!named) return false;
  for (size_t col : cols) {
    if (ti.columns[col].single_unique || ti.columns[col].pk > 0) return false;
    for (const ForeignKey& fk : ti.fks)
      if (std::find(fk.columns.begin(), fk.columns.end(), col) != fk.columns.end()) return false;
  }
  std::set<std::vector<std::string>> distinct;
  size_t rows = 0;
  for (const Row& r : ti.sample) {
    std::vector<std::string> k;
    for (size_t col : cols)
      if (col < r.size() && r[col].kind != Kind::Null) k.push_back(r[col].is_number() ? std::to_string(r[col].as_double()) : r[col].s);
    if (k.size() != cols.size()) continue;
    ++rows;
    distinct.insert(std::move(k));
  }
  return rows >= 3 && static_cast<double>(distinct.size()) >= kNearlyUnique * static_cast<double>(rows);
}

}  // namespace

std::string key_suspect(const Schema& s, const Item& item, const Counterexample& c) {
  const QueryKeys gold(s, item.gold_sql), pred(s, item.pred_sql);
  const auto pred_keys = pred.keys();
  for (const auto& key : gold.keys()) {
    size_t t = SIZE_MAX;
    const std::vector<size_t> cols = key_columns(key, &t);
    if (cols.empty() || !names_entities(s.tables[t], cols)) continue;
    const size_t repeated = repeated_rows(c, s.tables[t], cols);
    if (repeated < 2) continue;
    for (const auto& pk : pred_keys)
      for (const auto& pitem : pk)
        for (ColRef pc : pitem) {
          if (!declared_key_of(s, pc, t)) continue;
          std::string names;
          for (size_t col : cols) names += (names.empty() ? "" : ", ") + col_name(s, {t, col});
          return "the gold merges rows by " + names + " (nearly unique in the data), repeated in " +
                 std::to_string(repeated) + " rows of the witness; the prediction keys them by the declared key " +
                 col_name(s, pc);
        }
  }
  return "";
}

std::string tie_cut_reason(const RuleSpec& rule, const RankedQuery& rq, const Table& ranked, const Table& pred) {
  const std::vector<Row>& rows = ranked.rows;
  if (rq.limit == 0 || rows.size() <= rq.limit || rows[rq.limit - 1].empty()) return "";
  const Value& cut = rows[rq.limit - 1].back();  // the rank of the last row kept
  if (!(rows[rq.limit].back() == cut)) return "";  // the first row left out ranks after it: no tie at the cut
  // The gold with its cut widened to the whole tie group (every row ranked up to the cut's rank): a
  // prediction that returns exactly that is the one a LIMIT taken at its word cannot tell apart.
  Table widened;
  widened.columns.assign(ranked.columns.begin(), ranked.columns.end() - (ranked.columns.empty() ? 0 : 1));
  size_t tied = 0, kept = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const bool at_cut = !rows[i].empty() && rows[i].back() == cut;
    tied += at_cut, kept += at_cut && i < rq.limit;
    if (i < rq.limit || at_cut) widened.rows.emplace_back(rows[i].begin(), rows[i].end() - 1);
  }
  if (!same_result(order_free(rule), widened, pred)) return "";
  return "the gold's LIMIT " + std::to_string(rq.limit) + " keeps " + std::to_string(kept) + " of the " +
         std::to_string(tied) + " rows tied on its sort keys on the witness (an arbitrary choice); the prediction "
         "returns every one of them";
}

std::string tie_cut_suspect(const Schema& s, const Item& item, const Counterexample& c, double query_timeout_s) {
  const std::optional<RankedQuery> rq = ranked_query(item.gold_sql);
  if (!rq) return "";
  ScratchDb db;
  if (!build_witness(s, c, db).empty()) return "";
  ExecResult r = db.run(rq->sql, Limits{query_timeout_s, 100'000, 64u << 20});
  return r.ok() ? tie_cut_reason(item.rule, *rq, r.table, c.pred_result) : "";
}

std::string nulls_first_suspect(const Schema& s, const Item& item, const Counterexample& c, double query_timeout_s) {
  const std::optional<NullsLast> nl = nulls_last(item.gold_sql);
  if (!nl) return "";
  ScratchDb db;
  if (!build_witness(s, c, db).empty()) return "";
  const Limits lim{query_timeout_s, 100'000, 64u << 20};
  ExecResult flagged = db.run(nl->flagged, lim);
  if (!flagged.ok()) return "";
  // The gold's kept rows that have a value to rank by: its first `limit` rows with NULLs last, those
  // whose ascending key is NULL left out.
  Table valued;
  valued.columns.assign(flagged.table.columns.begin(), flagged.table.columns.end() - (flagged.table.columns.empty() ? 0 : 1));
  for (size_t i = 0; i < flagged.table.rows.size() && i < nl->limit; ++i) {
    const Row& r = flagged.table.rows[i];
    if (!r.empty() && !(r.back().is_number() && r.back().as_double() != 0)) valued.rows.emplace_back(r.begin(), r.end() - 1);
  }
  if (same_result(item.rule, c.gold_result, valued)) return "";  // the NULLs change nothing
  const std::string why = "the gold's ascending ORDER BY ... LIMIT ranks NULL first, as the smallest value, on the "
                          "witness; ranking only the rows that have a value gives ";
  if (same_result(item.rule, valued, c.pred_result)) return why + "the prediction's result";
  const std::optional<RankedQuery> rq = ranked_query(nl->sql);
  if (!rq) return "";
  ExecResult ranked = db.run(rq->sql, lim);
  if (!ranked.ok() || tie_cut_reason(item.rule, *rq, ranked.table, c.pred_result).empty()) return "";
  return why + "one of the rows tied at its cut, and the prediction returns every one of them";
}

std::string judge_peers(const Item& item, const std::vector<std::string>& peers, double query_timeout_s, Counterexample* c) {
  size_t with_pred = 0, with_gold = 0, neither = 0, failed = 0, systems = 0;
  std::shared_ptr<const Schema> schema;
  try {
    schema = schema_of(item.db_path);
  } catch (const std::exception&) {
    return "";
  }
  ScratchDb db;
  if (!build_witness(*schema, *c, db).empty()) return "";
  const Limits lim{query_timeout_s, 100'000, 64u << 20};
  for (const std::string& sql : peers) {
    if (trim(sql).empty()) continue;
    ++systems;
    ExecResult r = db.run(sql, lim);
    if (!r.ok()) {
      ++failed;
      continue;
    }
    const bool g = same_result(item.rule, c->gold_result, r.table), p = same_result(item.rule, c->pred_result, r.table);
    (g == p ? neither : p ? with_pred : with_gold)++;
  }
  if (systems == 0) return "";
  c->peers = {{"systems", systems}, {"with_prediction", with_pred}, {"with_gold", with_gold}, {"neither", neither}, {"failed", failed}};
  const size_t ran = systems - failed;
  if (with_gold > 0 || !(with_pred >= kMinPeers || (with_pred >= 2 && with_pred == ran))) return "";
  // Systems copy the question's words; the gold's literal is the data's. A prediction that compares
  // with a text the gold does not use is judged by the gold alone (Spider dev 521: 'engineering' in
  // all five systems, 'engineer' in the gold and the data).
  for (const Constant& k : query_constants(item.gold_sql, item.pred_sql))
    if (k.from == "pred" && k.value.kind == Kind::Text) {
      c->peers["not_applied"] = "the prediction compares with the text " + k.value.s + ", which the gold does not";
      return "";
    }
  return std::to_string(with_pred) + " of the " + std::to_string(systems) +
         " other systems' predictions give this prediction's result on the witness, " + std::to_string(with_gold) +
         " the gold's";
}

}  // namespace sqlgrade::verify
