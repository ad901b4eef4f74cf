#pragma once
// The first rows of a result kept in a run record (include/sqlgrade/result_rows.hpp): what `diff`, the
// HTML report and verify show of a gold and a prediction result. The benchmarks fill them in.
#include <optional>
#include <string>

#include "sqlgrade/core/table.hpp"
#include "sqlgrade/result_rows.hpp"

namespace sqlgrade::runs {

// At most kResultRowsKept rows and kResultColumnsKept columns, each cell's text (cell_text) cut at
// kResultCellBytes on a UTF-8 boundary with "…" appended.
ResultRows first_rows(const Table& t);
ResultRows first_rows(const TextTable& t);
// A cell's text for a record: kResultCellBytes at most (cut on a UTF-8 boundary, then "…"); nullopt
// for NULL; otherwise Python's str() of the value (py::str: float repr, a blob as its bytes repr).
std::string cut_cell(std::string s);
std::optional<std::string> cell_text(const Value& v);

}  // namespace sqlgrade::runs
