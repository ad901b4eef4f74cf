// Python equality and hashing of sqlite3 values and tuples — see equality.hpp.
#include "sqlgrade/py/equality.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>

#include "sqlgrade/py/decimal.hpp"

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

size_t int_hash(int64_t i) { return std::hash<int64_t>{}(i) * 0x9e3779b97f4a7c15ULL; }

size_t real_hash(double r) {
  int64_t x;
  if (integral_double(r, x)) return int_hash(x);
  return std::hash<double>{}(r) ^ 0x2545f4914f6cdd1dULL;
}

// Python's numbers: int, float, Decimal, bool.
bool numeric(Kind k) { return k == Kind::Int || k == Kind::Real || k == Kind::Decimal || k == Kind::Bool; }

Decimal decimal_of(const Value& v) {
  auto d = Decimal::parse(v.s);
  return d ? *d : Decimal{Decimal::Form::NaN};
}

// == between two numbers of different kinds (bool counts as the int 0 or 1).
bool numbers_equal(const Value& a, const Value& b) {
  if (a.kind == Kind::Decimal || b.kind == Kind::Decimal) {
    const Value& dv = a.kind == Kind::Decimal ? a : b;
    const Value& o = a.kind == Kind::Decimal ? b : a;
    const Decimal d = decimal_of(dv);
    if (o.kind == Kind::Decimal) return decimal_equals(d, decimal_of(o));
    if (o.kind == Kind::Real) return decimal_equals(d, o.r);
    return decimal_equals(d, o.i);  // Int, Bool
  }
  if (a.kind == Kind::Real || b.kind == Kind::Real) {
    const Value& rv = a.kind == Kind::Real ? a : b;
    const Value& iv = a.kind == Kind::Real ? b : a;
    if (iv.kind == Kind::Real) return rv.r == iv.r;
    int64_t x;
    return integral_double(rv.r, x) && x == iv.i;
  }
  return a.i == b.i;  // Int, Bool
}

}  // namespace

bool equal(const Value& a, const Value& b) {
  if (a.kind == b.kind) {
    switch (a.kind) {
      case Kind::Null: return true;
      case Kind::Int: return a.i == b.i;
      case Kind::Real: return a.r == b.r;
      case Kind::Text:
      case Kind::Blob:
      case Kind::Other: return a.s == b.s;
      case Kind::Decimal: return decimal_equals(decimal_of(a), decimal_of(b));
      case Kind::Unhashable: return a.s == b.s;  // lists compare item by item; their reprs stand in
      default: return a.i == b.i;  // Bool, dates, times, timedelta: the number value.hpp keeps
    }
  }
  if (numeric(a.kind) && numeric(b.kind)) return numbers_equal(a, b);
  return false;  // None vs anything else, str vs bytes, number vs str, date vs datetime, naive vs aware
}

size_t hash(const Value& v) {
  switch (v.kind) {
    case Kind::Null: return 0x51ed270b27a1c3d5ULL;
    case Kind::Int:
    case Kind::Bool: return int_hash(v.i);
    case Kind::Real: return real_hash(v.r);
    case Kind::Text: return std::hash<std::string>{}(v.s);
    case Kind::Blob: return std::hash<std::string>{}(v.s) ^ 0x7f4a7c159e3779b9ULL;
    case Kind::Decimal: return decimal_hash(decimal_of(v), int_hash, real_hash);
    case Kind::Other: return std::hash<std::string>{}(v.s) ^ 0x3c6ef372fe94f82bULL;
    case Kind::Unhashable: throw Unhashable(std::string("unhashable type: '") + (v.i ? "dict" : "list") + "'");
    default: return std::hash<int64_t>{}(v.i) ^ (static_cast<size_t>(v.kind) * 0xa54ff53a5f1d36f1ULL);
  }
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
