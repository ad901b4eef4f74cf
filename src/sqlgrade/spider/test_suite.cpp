// Test-suite execution accuracy: the comparison rule. Mirrors taoyds/test-suite-sql-eval @ e97acc5
// (2022-08-02) exec_eval.py — result_eq (multiset of rows up to a permutation of the prediction's
// columns, order only when the gold has ORDER BY), postprocess, remove_distinct, replace_cur_year;
// spec shared/spec/official-evaluators.md §2. The evaluator that runs the queries is
// exec_evaluator.cpp; differences from the official tool are in docs/spider-exec.md.
#include "sqlgrade/spider/test_suite.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "sqlgrade/py/equality.hpp"
#include "sqlgrade/py/repr.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/spider/sqlparse.hpp"

namespace sqlgrade::spider {

// ---------------------------------------------------------------------------------------------
// Python value semantics for result rows (py/equality.hpp): 1 == 1.0 (and they hash alike), '1' != 1,
// str != bytes, None == None.
namespace {

size_t mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

// unorder_row's sort key: str(x) + str(type(x)).
std::string sort_key(const Value& v) {
  static const char* const kType[] = {"<class 'NoneType'>", "<class 'int'>", "<class 'float'>", "<class 'str'>",
                                      "<class 'bytes'>"};
  return py::str(v) + kType[static_cast<int>(v.kind)];
}

using PRow = std::vector<const Value*>;

size_t prow_hash(const PRow& r) {
  size_t h = r.size();
  for (const Value* v : r) h = mix(h, py::hash(*v));
  return h;
}
bool prow_eq(const PRow& a, const PRow& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!py::equal(*a[k], *b[k])) return false;
  return true;
}

struct PRowHash {
  size_t operator()(const PRow& r) const { return prow_hash(r); }
};
struct PRowEq {
  bool operator()(const PRow& a, const PRow& b) const { return prow_eq(a, b); }
};

PRow unorder_row(const Row& row) {
  std::vector<std::pair<std::string, const Value*>> keyed;
  keyed.reserve(row.size());
  for (const Value& v : row) keyed.emplace_back(sort_key(v), &v);
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  PRow out;
  out.reserve(row.size());
  for (auto& kv : keyed) out.push_back(kv.second);
  return out;
}

struct PRowPtrHash {
  size_t operator()(const PRow* r) const { return prow_hash(*r); }
};
struct PRowPtrEq {
  bool operator()(const PRow* a, const PRow* b) const { return prow_eq(*a, *b); }
};

bool quick_rej(const std::vector<Row>& r1, const std::vector<Row>& r2, bool order_matters, DeadlineTicker& tick) {
  std::vector<PRow> s1, s2;
  s1.reserve(r1.size());
  s2.reserve(r2.size());
  for (auto& r : r1) s1.push_back(unorder_row(r)), tick.tick(r.size() + 1);
  for (auto& r : r2) s2.push_back(unorder_row(r)), tick.tick(r.size() + 1);
  if (order_matters) {
    if (s1.size() != s2.size()) return false;
    for (size_t i = 0; i < s1.size(); ++i)
      if (!prow_eq(s1[i], s2[i])) return false;
    return true;
  }
  // Sets of the sorted rows in place (pointers), not copies of them.
  using Set = std::unordered_set<const PRow*, PRowPtrHash, PRowPtrEq>;
  Set a, b;
  a.reserve(s1.size() + 1);
  b.reserve(s2.size() + 1);
  for (auto& x : s1) a.insert(&x), tick.tick(x.size() + 1);
  for (auto& x : s2) b.insert(&x), tick.tick(x.size() + 1);
  if (a.size() != b.size()) return false;
  for (const PRow* x : a) {
    tick.tick(x->size() + 1);
    if (!b.count(x)) return false;
  }
  return true;
}

// A column's fingerprint: two independent sums of its cells' hashes (the multiset, order ignored) or
// two running hashes (the list). Equal multisets (lists) have equal fingerprints, so a different
// fingerprint rules a column pairing out; 16 bytes a column where a sorted copy of every cell's hash
// cost 8 bytes a cell.
std::pair<uint64_t, uint64_t> column_fingerprint(const std::vector<Row>& rs, size_t c, bool order_matters, DeadlineTicker& tick) {
  uint64_t a = rs.size(), b = 0x9e3779b97f4a7c15ULL;
  for (const Row& r : rs) {
    const uint64_t h = py::hash(r[c]);
    const uint64_t h2 = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ULL;
    if (order_matters) {
      a = mix(a, h);
      b = (b ^ h2) * 0x100000001b3ULL;
    } else {
      a += h * 0xff51afd7ed558ccdULL;
      b += h2 ^ (h2 >> 29);
    }
    tick.tick();
  }
  return {a, b};
}

// For each gold column, the pred columns that may stand for it. The official code prunes pred column k
// as a candidate for gold column j only on sampled rows; here a stronger but still sound test is used
// (a bijection can only succeed if pred column k holds the same multiset — or, with order, the same
// list — of values as gold column j: the same fingerprint), so the outcome is the same and the search
// is never factorial in practice. False when some gold column has no candidate.
bool candidate_columns(const std::vector<Row>& r1, const std::vector<Row>& r2, size_t n, bool order_matters,
                       DeadlineTicker& tick, std::vector<std::vector<size_t>>& cand) {
  std::vector<std::pair<uint64_t, uint64_t>> gsig(n), psig(n);
  for (size_t c = 0; c < n; ++c) {
    gsig[c] = column_fingerprint(r1, c, order_matters, tick);
    psig[c] = column_fingerprint(r2, c, order_matters, tick);
  }
  cand.assign(n, {});
  for (size_t j = 0; j < n; ++j) {
    for (size_t k = 0; k < n; ++k)
      if (gsig[j] == psig[k]) cand[j].push_back(k);
    if (cand[j].empty()) return false;
  }
  return true;
}

// Identical pred columns are interchangeable: twin_of[k] is the lowest-index column equal to column k
// on every row (k itself when there is none).
std::vector<size_t> twin_columns(const std::vector<Row>& r2, size_t n, DeadlineTicker& tick) {
  std::vector<size_t> twin_of(n);
  for (size_t k = 0; k < n; ++k) {
    twin_of[k] = k;
    for (size_t m = 0; m < k; ++m) {
      if (twin_of[m] != m) continue;
      bool same = true;
      for (size_t i = 0; i < r2.size() && same; ++i) same = py::equal(r2[i][k], r2[i][m]), tick.tick();
      if (same) { twin_of[k] = m; break; }
    }
  }
  return twin_of;
}

// Whether the prediction with its columns permuted (gold column j = pred column perm[j]) equals the
// gold: row by row with order, else as multisets of rows (the gold's counted once).
class PermutedEqual {
 public:
  PermutedEqual(const std::vector<Row>& r1, const std::vector<Row>& r2, size_t n, bool order_matters, DeadlineTicker& tick)
      : r1_(r1), r2_(r2), n_(n), order_matters_(order_matters), tick_(tick) {
    if (order_matters) return;
    gold_count_.reserve(r1.size() + 1);
    for (auto& r : r1) {
      PRow p;
      p.reserve(n);
      for (auto& v : r) p.push_back(&v);
      ++gold_count_[p];
      tick.tick(n + 1);
    }
  }

  bool operator()(const std::vector<size_t>& perm) const {
    if (order_matters_) {
      for (size_t i = 0; i < r1_.size(); ++i) {
        tick_.tick(n_);
        for (size_t j = 0; j < n_; ++j)
          if (!py::equal(r1_[i][j], r2_[i][perm[j]])) return false;
      }
      return true;
    }
    Counts left = gold_count_;
    PRow p(n_);
    for (auto& r : r2_) {
      tick_.tick(n_ + 1);
      for (size_t j = 0; j < n_; ++j) p[j] = &r[perm[j]];
      auto it = left.find(p);
      if (it == left.end() || it->second == 0) return false;
      --it->second;
    }
    return true;
  }

 private:
  using Counts = std::unordered_map<PRow, long, PRowHash, PRowEq>;
  const std::vector<Row>& r1_;
  const std::vector<Row>& r2_;
  size_t n_;
  bool order_matters_;
  DeadlineTicker& tick_;
  Counts gold_count_;
};

}  // namespace

bool result_eq(const Table& gold, const Table& pred, bool order_matters, const Deadline& deadline) {
  const auto& r1 = gold.rows;
  const auto& r2 = pred.rows;
  if (r1.empty() && r2.empty()) return true;
  if (r1.size() != r2.size()) return false;
  const size_t n = r1[0].size();
  if (r2[0].size() != n) return false;
  DeadlineTicker tick(deadline);
  if (!quick_rej(r1, r2, order_matters, tick)) return false;

  // Column-permutation search over the candidates, one twin of a group of identical columns at a time.
  std::vector<std::vector<size_t>> cand;
  if (!candidate_columns(r1, r2, n, order_matters, tick, cand)) return false;
  const std::vector<size_t> twin_of = twin_columns(r2, n, tick);
  const PermutedEqual check(r1, r2, n, order_matters, tick);
  std::vector<size_t> perm(n);
  std::vector<char> used(n, 0);
  std::function<bool(size_t)> search = [&](size_t j) -> bool {
    if (j == n) return check(perm);
    for (size_t k : cand[j]) {
      if (used[k]) continue;
      bool skip = false;  // an unused identical twin with a lower index is tried instead
      for (size_t m = 0; m < k && !skip; ++m)
        if (!used[m] && twin_of[m] == twin_of[k] && std::find(cand[j].begin(), cand[j].end(), m) != cand[j].end())
          skip = true;
      if (skip) continue;
      used[k] = 1;
      perm[j] = k;
      if (search(j + 1)) return true;
      used[k] = 0;
    }
    return false;
  };
  return search(0);
}

// ---------------------------------------------------------------------------------------------
// Query rewriting done by exec_eval before executing.

std::string postprocess_sql(const std::string& sql) {
  std::string s = sql;
  auto rep = [&](const char* from, const char* to) {
    std::string out;
    size_t pos = 0, n = std::strlen(from);
    while (true) {
      size_t f = s.find(from, pos);
      if (f == std::string::npos) break;
      out.append(s, pos, f - pos);
      out += to;
      pos = f + n;
    }
    out.append(s, pos, std::string::npos);
    s = std::move(out);
  };
  rep("> =", ">=");
  rep("< =", "<=");
  rep("! =", "!=");
  return s;
}

std::string remove_distinct(const std::string& sql) { return sqlparse::remove_distinct(sql); }

ExecQueries prepare_exec_queries(const std::string& gold, const std::string& pred, bool test_suite, bool keep_distinct) {
  ExecQueries q;
  q.gold = gold;
  q.pred = pred;
  auto fail = [&](bool gold_side) {
    q.gold_error = gold_side;
    q.error = gold_side ? "gold SQL is empty" : "prediction is empty";
    return q;
  };
  if (test_suite) {
    q.gold = postprocess_sql(q.gold);
    q.pred = postprocess_sql(q.pred);
    if (!keep_distinct) {
      bool fg = false, fp = false;
      q.gold = sqlparse::remove_distinct(q.gold, &fg);
      q.pred = sqlparse::remove_distinct(q.pred, &fp);
      if (!fg) return fail(true);
      if (!fp) return fail(false);
    }
  }
  if (py::strip(q.gold).empty()) return fail(true);
  if (py::strip(q.pred).empty()) return fail(false);
  std::string gl = q.gold;
  for (char& c : gl)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  q.order_matters = gl.find("order by") != std::string::npos;
  return q;
}

std::string replace_cur_year(const std::string& sql) {
  // re.sub(r"YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*", "2020", q, flags=re.IGNORECASE)
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  auto lit = [&](size_t i, const char* w) -> size_t {
    size_t n = std::strlen(w);
    if (i + n > sql.size()) return std::string::npos;
    for (size_t k = 0; k < n; ++k) {
      char a = sql[i + k];
      if (a >= 'a' && a <= 'z') a = static_cast<char>(a - 32);
      if (a != w[k]) return std::string::npos;
    }
    return i + n;
  };
  auto skip = [&](size_t i) {
    while (i < sql.size() && ws(sql[i])) ++i;
    return i;
  };
  std::string out;
  size_t i = 0;
  while (i < sql.size()) {
    size_t p = lit(i, "YEAR");
    if (p != std::string::npos) {
      p = skip(p);
      if (p < sql.size() && sql[p] == '(') {
        size_t q = lit(skip(p + 1), "CURDATE");
        if (q != std::string::npos) {
          q = skip(q);
          if (q < sql.size() && sql[q] == '(') {
            q = skip(q + 1);
            if (q < sql.size() && sql[q] == ')') {
              q = skip(q + 1);
              if (q < sql.size() && sql[q] == ')') {
                out += "2020";
                i = skip(q + 1);
                continue;
              }
            }
          }
        }
      }
    }
    out += sql[i++];
  }
  return out;
}

}  // namespace sqlgrade::spider
