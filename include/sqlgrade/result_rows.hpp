#pragma once
// Public API — the first rows of a query result as a grader keeps them for the run record's
// drill-down (docs/comparing-runs.md §1, `rows`): bounded so that a record stays small whatever a
// prediction returns.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace sqlgrade {

inline constexpr size_t kResultRowsKept = 10;      // rows
inline constexpr size_t kResultColumnsKept = 20;   // columns
inline constexpr size_t kResultCellBytes = 100;    // bytes of a cell's text (cut on a UTF-8 boundary, then "…")

struct ResultRows {
  bool present = false;               // false: no result to show (the query failed or was not run)
  std::vector<std::string> columns;   // names, at most kResultColumnsKept
  std::vector<std::vector<std::optional<std::string>>> rows;  // cell text; nullopt = NULL
  size_t total_rows = 0, total_columns = 0;  // of the whole result
  bool cut() const { return total_rows > rows.size() || total_columns > columns.size(); }
};

}  // namespace sqlgrade
