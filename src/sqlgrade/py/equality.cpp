// Python equality and hashing of sqlite3 values and tuples — see equality.hpp.
#include "sqlgrade/py/equality.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>

namespace sqlgrade::py {

namespace {

// A finite integral double that fits in int64, as that int64.
bool integral_double(double r, int64_t& out) {
  if (!std::isfinite(r) || r != std::floor(r)) return false;
  // [-2^63, 2^63): both bounds are exact doubles.
  if (r < -9223372036854775808.0 || r >= 9223372036854775808.0) return false;
  out = static_cast<int64_t>(r);
  return true;
}

struct RowPtrHash {
  size_t operator()(const Row* r) const { return row_hash(*r); }
};
struct RowPtrEq {
  bool operator()(const Row* a, const Row* b) const { return rows_equal(*a, *b); }
};
using RowSet = std::unordered_set<const Row*, RowPtrHash, RowPtrEq>;

RowSet make_set(const std::vector<Row>& rows, DeadlineTicker& tick) {
  RowSet s;
  s.reserve(rows.size() + 1);
  for (const Row& r : rows) {
    s.insert(&r);
    tick.tick(r.size() + 1);
  }
  return s;
}

}  // namespace

bool equal(const Value& a, const Value& b) {
  if (a.kind == b.kind) {
    switch (a.kind) {
      case Kind::Null: return true;
      case Kind::Int: return a.i == b.i;
      case Kind::Real: return a.r == b.r;
      default: return a.s == b.s;
    }
  }
  if (a.is_number() && b.is_number()) {
    const Value& iv = a.kind == Kind::Int ? a : b;
    const Value& rv = a.kind == Kind::Int ? b : a;
    int64_t x;
    return integral_double(rv.r, x) && x == iv.i;
  }
  return false;  // None vs anything else, str vs bytes, number vs str
}

size_t hash(const Value& v) {
  switch (v.kind) {
    case Kind::Null: return 0x51ed270b27a1c3d5ULL;
    case Kind::Int: return std::hash<int64_t>{}(v.i) * 0x9e3779b97f4a7c15ULL;
    case Kind::Real: {
      int64_t x;
      if (integral_double(v.r, x)) return std::hash<int64_t>{}(x) * 0x9e3779b97f4a7c15ULL;
      return std::hash<double>{}(v.r) ^ 0x2545f4914f6cdd1dULL;
    }
    case Kind::Text: return std::hash<std::string>{}(v.s);
    case Kind::Blob: return std::hash<std::string>{}(v.s) ^ 0x7f4a7c159e3779b9ULL;
  }
  return 0;
}

bool rows_equal(const Row& a, const Row& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!equal(a[i], b[i])) return false;
  return true;
}

size_t row_hash(const Row& r) {
  size_t h = 0xcbf29ce484222325ULL ^ r.size();
  for (const Value& v : r) h = (h ^ hash(v)) * 0x100000001b3ULL + (h >> 29);
  return h;
}

bool same_set(const std::vector<Row>& a, const std::vector<Row>& b, const Deadline& deadline) {
  // Every distinct row of one side occurs in the other, both ways.
  DeadlineTicker tick(deadline);
  RowSet as = make_set(a, tick), bs = make_set(b, tick);
  if (as.size() != bs.size()) return false;
  for (const Row* r : as) {
    tick.tick(r->size() + 1);
    if (!bs.count(r)) return false;
  }
  return true;
}

std::vector<const Row*> unique_rows(const std::vector<Row>& rows, const Deadline& deadline) {
  DeadlineTicker tick(deadline);
  std::vector<const Row*> out;
  RowSet seen;
  seen.reserve(rows.size() + 1);
  for (const Row& r : rows) {
    if (seen.insert(&r).second) out.push_back(&r);
    tick.tick(r.size() + 1);
  }
  return out;
}

std::vector<Row> unique_in_order(const std::vector<Row>& rows) {
  std::vector<Row> out;
  for (const Row* r : unique_rows(rows)) out.push_back(*r);
  return out;
}

bool contains(const Row& row, const Value& v) {
  for (const Value& c : row)
    if (equal(v, c)) return true;
  return false;
}

}  // namespace sqlgrade::py
