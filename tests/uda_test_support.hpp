#pragma once
// Helpers shared by the UDA-Bench tests: the Shop fixture, small tables written as strings, and
// scored-column specs for evaluate_match.
#include <string>
#include <utility>
#include <vector>

#include "sqlgrade/uda/compare.hpp"
#include "test_support.hpp"

namespace sqlgrade::test {

inline std::string uda_shop() { return fixtures() + "/uda/Shop"; }

// A table of text cells; "<null>" is a NULL cell.
inline Table uda_table(std::vector<std::string> cols, std::vector<std::vector<std::string>> rows) {
  Table t;
  t.columns = std::move(cols);
  for (auto& r : rows) {
    Row row;
    for (auto& v : r) row.push_back(v == "<null>" ? Value::null() : Value::text(v));
    t.rows.push_back(std::move(row));
  }
  return t;
}

// A scored column: reported name, cell kind, gold and result column positions.
inline uda::ColumnSpec uda_col(std::string name, uda::CellKind kind, int gold_col, int pred_col) {
  uda::ColumnSpec c;
  c.name = std::move(name);
  c.kind = kind;
  c.gold_col = gold_col;
  c.pred_col = pred_col;
  return c;
}

// The short names the UDA tests use (defined once: the tests compile as unity sources).
inline constexpr auto shop = uda_shop;
inline constexpr auto make = uda_table;
inline constexpr auto col = uda_col;

}  // namespace sqlgrade::test
