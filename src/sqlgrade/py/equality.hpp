#pragma once
// Python equality of the values Python's sqlite3 module returns (int, float, str, bytes, None) and of
// the tuples and containers the official scripts build from them (CPython 3 semantics; the scripts
// ran on 3.11). One definition for every benchmark:
//   - Spider evaluation.py (exec match: lists of column values compared with ==) and test-suite
//     exec_eval.py (result_eq: tuples in multisets / lists, unorder_row) — spider/;
//   - BIRD evaluation_ex.py (set(pred) == set(gold)) and Mini-Dev evaluation_f1.py (dict.fromkeys
//     de-duplication, `cell in row`) — bird/.
// Which container a script compares (a set, a multiset up to column permutation, an ordered list) is
// that benchmark's rule and stays in its module; the cell and tuple semantics are here.
//
// Semantics: int and float compare numerically and exactly (1 == 1.0, but 2**53 + 1 != 2.0**53 —
// no rounding through double); str never equals bytes or a number; None == None only; NaN != NaN
// (sqlite3 never returns NaN: SQLite stores it as NULL). Hashes are consistent with equal() (an
// integral float hashes like the equal int) but are not CPython's hash values: no result depends on
// hash order.
//
// The server kinds (value.hpp: Decimal, Bool, dates and times, Other, Unhashable — what psycopg2 and
// PyMySQL return) follow Python too: numbers (int, float, Decimal, bool) compare exactly with one
// another (Decimal('0.5') == 0.5, Decimal('33.33333') != 33.33333, True == 1); a date never equals a
// datetime, a naive datetime or time never equals an aware one, aware ones compare their UTC instants;
// hash() of a list or dict raises TypeError, so set() and dict.fromkeys() of rows holding one raise
// (Unhashable below) — the official scripts then score the pair 0.
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/core/table.hpp"
#include "sqlgrade/core/value.hpp"

namespace sqlgrade::py {

// Python's TypeError: unhashable type: 'list' (or 'dict').
class Unhashable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `a == b`.
bool equal(const Value& a, const Value& b);
// hash(a), consistent with equal(). Throws Unhashable for a list or dict (Kind::Unhashable).
size_t hash(const Value& v);

// tuple == tuple (same length, equal() item by item) and a hash consistent with it.
bool rows_equal(const Row& a, const Row& b);
size_t row_hash(const Row& r);

// set(a) == set(b) for two lists of tuples: row order and duplicates do not matter. Memory: a hash set
// of row pointers per side (no row is copied). Checks `deadline` while it hashes (DeadlineExceeded).
bool same_set(const std::vector<Row>& a, const std::vector<Row>& b, const Deadline& deadline = {});

// list(dict.fromkeys(rows)): duplicates removed, first occurrence kept, order preserved.
std::vector<Row> unique_in_order(const std::vector<Row>& rows);
// The same rows, in place: pointers into `rows` (what the comparisons use; nothing is copied).
std::vector<const Row*> unique_rows(const std::vector<Row>& rows, const Deadline& deadline = {});

// `v in row` (tuple membership).
bool contains(const Row& row, const Value& v);

}  // namespace sqlgrade::py
