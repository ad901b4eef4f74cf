// Which differences a tie-break makes (ties.hpp): the tie-break variants of a query, read with the
// project's lexer, and the verdict on a database from the variants' results.
#include "sqlgrade/verify/ties.hpp"

#include <algorithm>
#include <cstdlib>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/equality.hpp"
#include "sqlgrade/py/number.hpp"
#include "sqlgrade/spider/sqlparse.hpp"
#include "sqlgrade/verify/candidate.hpp"

namespace sqlgrade::verify {

namespace {

using spider::sqlparse::TokType;

// A place where a tie-break is inserted: after an ORDER BY clause's last key (`, 1, 2`), or before a
// LIMIT that has no ORDER BY (` ORDER BY 1, 2 `).
struct Cut {
  size_t at = 0;
  bool bare_limit = false;
  size_t columns = 0;  // the SELECT's output columns (from the probe); 0 = not a sort SQLite reads
};

struct Frame {
  bool order_seen = false;     // an ORDER BY since this level's last SELECT
  size_t open = SIZE_MAX;      // the ORDER BY clause still being read (index into cuts)
  size_t begin = 0;            // just after the "(" that opened this level
  bool first = true;           // no significant token read at this level yet
  bool query = false;          // this level is a subquery: its first token is SELECT
};

// A parenthesised subquery [begin, end) of the statement.
struct Span {
  size_t begin = 0, end = 0;
};

bool is_blank(TokType t) {
  return t == TokType::Whitespace || t == TokType::Newline || t == TokType::CommentSingle ||
         t == TokType::CommentMultiline;
}

// Every ORDER BY clause and every LIMIT without ORDER BY, at any depth; `top_order` when an ORDER BY
// stands outside every parenthesis.
std::vector<Cut> find_cuts(const std::string& sql, bool* top_order, std::vector<Span>* subqueries) {
  std::vector<Cut> cuts;
  std::vector<Frame> stack(1);
  size_t last_end = 0;  // end of the last significant token
  auto close = [&](Frame& f) {
    if (f.open != SIZE_MAX) cuts[f.open].at = last_end, f.open = SIZE_MAX;
  };
  for (const auto& tok : spider::sqlparse::tokenize(sql)) {
    if (is_blank(tok.type)) continue;
    const size_t at = static_cast<size_t>(tok.ptr - sql.data());
    const bool word = tok.type == TokType::Keyword || tok.type == TokType::Name || tok.type == TokType::Punctuation;
    const std::string t = word ? to_lower(collapse_ws(tok.text())) : std::string();
    Frame& f = stack.back();
    if (f.first && t != ")") f.query = t == "select", f.first = false;
    if (t == "limit" || t == ";" || t == "rows" || t == "range" || t == "groups" || t == "union" ||
        t == "intersect" || t == "except" || t == "union all" || t == "window")
      close(f);
    if (t == "(") {
      stack.emplace_back().begin = at + 1;
    } else if (t == ")") {
      close(f);
      if (f.query && stack.size() > 1) subqueries->push_back({f.begin, at});
      if (stack.size() > 1) stack.pop_back();
    } else if (t == "select") {
      f.order_seen = false;
    } else if (t == "order by") {
      close(f);
      f.order_seen = true;
      f.open = cuts.size();
      cuts.push_back({});
      if (stack.size() == 1) *top_order = true;
    } else if (t == "limit" && !f.order_seen) {
      cuts.push_back({at, true, 0});
    }
    last_end = at + tok.len;
  }
  for (auto& f : stack) close(f);  // the end of the statement ends every clause still open
  return cuts;
}

std::string breaker(const Cut& c, bool desc, size_t probe_column = 0) {
  std::string s = c.bare_limit ? "ORDER BY " : ", ";  // a bare LIMIT: inserted at the LIMIT
  if (probe_column) return s + std::to_string(probe_column) + (c.bare_limit ? " " : "");
  for (size_t i = 1; i <= c.columns; ++i) s += (i > 1 ? ", " : "") + std::to_string(i) + (desc ? " DESC" : "");
  return c.bare_limit ? s + " " : s;
}

// `sql` with each cut's text inserted (from the last cut back, so offsets stay valid).
std::string with_breakers(const std::string& sql, std::vector<std::pair<size_t, std::string>> ins) {
  std::sort(ins.begin(), ins.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out = sql;
  for (const auto& [at, text] : ins) out.insert(std::min(at, out.size()), text);
  return out;
}

// The N of SQLite's "... ORDER BY term out of range - should be between 1 and N", else 0.
size_t columns_from_error(const std::string& err) {
  const std::string key = "should be between 1 and ";
  const size_t p = err.find(key);
  if (p == std::string::npos || err.find("ORDER BY term out of range") == std::string::npos) return 0;
  return static_cast<size_t>(std::strtoul(err.c_str() + p + key.size(), nullptr, 10));
}

constexpr size_t kProbeColumn = 9999;  // beyond SQLite's column limit: always out of range

}  // namespace

TieVariants tie_variants(const std::string& sql, const RunSql& run) {
  TieVariants v;
  std::vector<Span> subqueries;
  std::vector<Cut> cuts = find_cuts(sql, &v.top_order, &subqueries);
  std::vector<std::pair<size_t, std::string>> asc, desc;
  for (Cut& c : cuts) {
    ExecResult r = run(with_breakers(sql, {{c.at, breaker(c, false, kProbeColumn)}}));
    c.columns = r.ok() ? 0 : columns_from_error(r.error);
    if (c.columns == 0) continue;  // a window's or an aggregate's ORDER BY, or a text we misread
    asc.emplace_back(c.at, breaker(c, false));
    desc.emplace_back(c.at, breaker(c, true));
  }
  if (!asc.empty()) v.asc = with_breakers(sql, asc), v.desc = with_breakers(sql, desc);
  v.cuts = asc.size();
  // Each subquery with a cut of its own, alone, both ways (its tie-breaks shifted into its text).
  for (const Span& q : subqueries) {
    std::vector<std::pair<size_t, std::string>> a, d;
    for (size_t k = 0; k < asc.size(); ++k)
      if (asc[k].first >= q.begin && asc[k].first <= q.end)
        a.emplace_back(asc[k].first - q.begin, asc[k].second), d.emplace_back(desc[k].first - q.begin, desc[k].second);
    if (a.empty()) continue;
    const std::string text = sql.substr(q.begin, q.end - q.begin);
    v.subqueries.emplace_back(with_breakers(text, a), with_breakers(text, d));
  }
  return v;
}

RuleSpec order_free(const RuleSpec& rule) {
  RuleSpec r = rule;
  r.order_matters = false;
  r.ignore_order = true;
  return r;
}

std::vector<const Table*> QueryRuns::all() const {
  std::vector<const Table*> out{&base, &reversed};
  if (asc) out.push_back(&*asc);
  if (desc) out.push_back(&*desc);
  return out;
}

namespace {

// Every variant gives `runs.base` under `rule` (the base plays the gold's part of the rule).
bool determined(const RuleSpec& rule, const QueryRuns& runs) {
  for (const Table* t : runs.all())
    if (!same_result(rule, runs.base, *t)) return false;
  return true;
}

// The size the rule sees: rows, or distinct rows under BIRD's set rule.
size_t rule_size(const RuleSpec& rule, const Table& t) {
  return rule.rule == Rule::BirdSet ? py::unique_rows(t.rows).size() : t.rows.size();
}

// Every variant of `a` has one size, and every variant of `b` another: no tie-break of one gives a
// result of the other (a LIMIT n query keeps n rows whichever they are; the other returns all of the
// tied ones).
bool size_differs_always(const RuleSpec& rule, const QueryRuns& a, const QueryRuns& b) {
  const size_t n = rule_size(rule, a.base);
  for (const Table* t : a.all())
    if (rule_size(rule, *t) != n) return false;
  for (const Table* t : b.all())
    if (rule_size(rule, *t) == n) return false;
  return true;
}

bool order_sensitive(const RuleSpec& rule) {
  return (rule.rule == Rule::SpiderTestSuite && rule.order_matters) ||
         (rule.rule == Rule::Spider2Columns && !rule.ignore_order);
}

}  // namespace

TieVerdict judge_ties(const RuleSpec& rule, const QueryRuns& gold, const QueryRuns& pred, const Membership& gold_could_give_pred,
                      const Membership& pred_could_give_gold) {
  if (same_result(rule, gold.base, pred.base)) return TieVerdict::Same;
  if (gold.inner_tie) return TieVerdict::Tie;  // the witness asks the gold what it answers arbitrarily
  for (const Table* g : gold.all())
    for (const Table* p : pred.all())
      if (same_result(rule, *g, *p)) return TieVerdict::Tie;  // a tie-break makes them agree
  const RuleSpec free = order_free(rule);
  if (order_sensitive(rule) && same_result(free, gold.base, pred.base)) {
    // Only the order differs: it counts when the gold sorts its result and every tie-break of the gold
    // gives the same order, and the prediction's own ORDER BY (if any) leaves no choice either.
    const bool gold_order = gold.top_order && determined(rule, gold);
    const bool pred_order = !pred.top_order || determined(rule, pred);
    return gold_order && pred_order ? TieVerdict::Differs : TieVerdict::Tie;
  }
  auto none = [](const Membership& m) { return m && m() == std::optional<bool>(false); };
  if (!determined(free, gold) && !size_differs_always(free, gold, pred) && !none(gold_could_give_pred))
    return TieVerdict::Tie;  // the prediction's result may be one of the gold's answers
  if (!determined(free, pred) && !size_differs_always(free, pred, gold) && !none(pred_could_give_gold))
    return TieVerdict::Tie;  // another tie-break of the prediction may give the gold's answer
  return TieVerdict::Differs;
}

namespace {
// Where a query's top-level `ORDER BY keys LIMIT n` lies (one SELECT, no DISTINCT, no compound, a plain
// LIMIT n): byte offsets of its FROM, of the keys (SIZE_MAX: no ORDER BY) and of LIMIT.
struct TopCut {
  size_t from = SIZE_MAX, keys_begin = SIZE_MAX, limit = SIZE_MAX, n = 0;
};
std::optional<TopCut> top_cut(const std::string& sql) {
  const auto toks = spider::sqlparse::tokenize(sql);
  int depth = 0;
  size_t selects = 0;
  TopCut c;
  std::vector<std::string> limit_words;
  bool distinct_next = false;
  for (const auto& tok : toks) {
    if (is_blank(tok.type)) continue;
    const size_t at = static_cast<size_t>(tok.ptr - sql.data());
    const std::string t = to_lower(collapse_ws(tok.text()));
    if (t == "(") ++depth;
    if (t == ")") --depth;
    if (depth != 0 || t == ")") {
      distinct_next = false;
      continue;
    }
    if (c.limit != SIZE_MAX) {
      if (t != ";") limit_words.push_back(t);
      continue;
    }
    if (distinct_next && (t == "distinct" || t == "all")) return std::nullopt;
    distinct_next = false;
    if (t == "union" || t == "union all" || t == "intersect" || t == "except" || t == "with") return std::nullopt;
    if (t == "select") ++selects, distinct_next = true;
    if (t == "from" && c.from == SIZE_MAX) c.from = at;
    if (t == "order by") c.keys_begin = at + tok.len;
    if (t == "limit") c.limit = at;
  }
  if (selects != 1 || c.from == SIZE_MAX || c.limit == SIZE_MAX || limit_words.size() != 1) return std::nullopt;
  const auto n = py::parse_int(limit_words[0]);
  if (!n || *n <= 0) return std::nullopt;
  c.n = static_cast<size_t>(*n);
  return c;
}
}  // namespace

std::optional<RankedQuery> ranked_query(const std::string& sql) {
  const std::optional<TopCut> c = top_cut(sql);
  if (!c) return std::nullopt;
  RankedQuery r;
  r.limit = c->n;
  if (c->keys_begin == SIZE_MAX) {  // LIMIT without ORDER BY: every row is tied
    r.sql = sql.substr(0, c->from) + ", 0 " + sql.substr(c->from, c->limit - c->from);
    return r;
  }
  const std::string keys = sql.substr(c->keys_begin, c->limit - c->keys_begin);
  r.sql = sql.substr(0, c->from) + ", RANK() OVER (ORDER BY " + trim(keys) + ") " + sql.substr(c->from, c->limit - c->from);
  return r;
}

std::optional<NullsLast> nulls_last(const std::string& sql) {
  const std::optional<TopCut> c = top_cut(sql);
  if (!c || c->keys_begin == SIZE_MAX) return std::nullopt;
  const std::string keys = sql.substr(c->keys_begin, c->limit - c->keys_begin);
  std::vector<std::string> terms(1);  // the keys split at their top-level commas
  int depth = 0;
  for (const auto& tok : spider::sqlparse::tokenize(keys)) {
    const std::string t(tok.text());
    depth += t == "(" ? 1 : t == ")" ? -1 : 0;
    if (t == "," && depth == 0) terms.emplace_back();
    else terms.back() += t;
  }
  std::string out, nulls;
  for (const std::string& term : terms) {
    const std::vector<SqlWord> w = significant_words(term);
    const bool asc = !w.empty() && w.back().lower != "desc" &&
                     std::none_of(w.begin(), w.end(), [](const SqlWord& x) { return x.lower == "nulls"; });
    out += (out.empty() ? "" : ", ") + trim(term) + (asc ? " NULLS LAST" : "");
    if (!asc) continue;
    std::string expr = trim(term);
    if (w.back().lower == "asc") expr = trim(expr.substr(0, expr.size() - w.back().text.size()));
    nulls += (nulls.empty() ? "(" : " OR (") + expr + ") IS NULL";
  }
  if (nulls.empty()) return std::nullopt;
  NullsLast r;
  r.limit = c->n;
  r.sql = sql.substr(0, c->keys_begin) + " " + out + " " + sql.substr(c->limit);
  r.flagged = sql.substr(0, c->from) + ", (" + nulls + ") " + sql.substr(c->from, c->keys_begin - c->from) + " " + out;
  return r;
}

namespace {
// Calls `f` with every k-subset of {0..n-1} (indices ascending) until it returns true.
bool any_subset(size_t n, size_t k, std::vector<size_t>& pick, const std::function<bool(const std::vector<size_t>&)>& f) {
  if (pick.size() == k) return f(pick);
  for (size_t i = pick.empty() ? 0 : pick.back() + 1; i + (k - pick.size()) <= n; ++i) {
    pick.push_back(i);
    if (any_subset(n, k, pick, f)) return true;
    pick.pop_back();
  }
  return false;
}

double choose(size_t n, size_t k) {
  double c = 1;
  for (size_t i = 0; i < k; ++i) c = c * static_cast<double>(n - i) / static_cast<double>(i + 1);
  return c;
}
}  // namespace

std::optional<bool> cut_could_give(const RuleSpec& rule, const Table& ranked, size_t limit, const Table& other) {
  const size_t w = ranked.width();
  if (w < 2 || ranked.rows.size() <= limit || limit == 0) return std::nullopt;
  const Value& cut_rank = ranked.rows[limit - 1][w - 1];
  if (!(ranked.rows[limit][w - 1] == cut_rank)) return std::nullopt;  // the cut is not inside a tie
  Table fixed{std::vector<std::string>(ranked.columns.begin(), ranked.columns.end() - 1), {}};
  std::vector<Row> tied;
  for (const Row& r : ranked.rows) {
    Row out(r.begin(), r.end() - 1);
    if (r[w - 1] == cut_rank) tied.push_back(std::move(out));
    else if (tied.empty()) fixed.rows.push_back(std::move(out));  // sorted: ranked before the tie
  }
  if (fixed.rows.size() >= limit) return std::nullopt;
  const size_t k = limit - fixed.rows.size();
  if (k > tied.size() || choose(tied.size(), k) > static_cast<double>(kMaxTieChoices)) return std::nullopt;
  const RuleSpec free = order_free(rule);
  std::vector<size_t> pick;
  return any_subset(tied.size(), k, pick, [&](const std::vector<size_t>& p) {
    Table t = fixed;
    for (size_t i : p) t.rows.push_back(tied[i]);
    return same_result(free, t, other);
  });
}

}  // namespace sqlgrade::verify
