#pragma once
// A query result or a loaded CSV: column names and rows of typed cells.
#include <string>
#include <vector>

#include "sqlgrade/core/value.hpp"

namespace sqlgrade {

using Row = std::vector<Value>;

struct Table {
  std::vector<std::string> columns;
  std::vector<Row> rows;

  size_t width() const { return columns.size(); }
  size_t size() const { return rows.size(); }
  // Index of the column named `name` (exact), or -1.
  int find_column(std::string_view name) const;
  // Index of the column named `name` ignoring ASCII case, or -1.
  int find_column_ci(std::string_view name) const;
};

}  // namespace sqlgrade
