#pragma once
// The pandas value model of the Spider 2.0-Lite rule (spec: shared/spec/official-evaluators.md §4).
//
// The official script compares pandas DataFrames read with read_csv, so the values it sees are the
// result of pandas' CSV type inference; `Frame` is that DataFrame and `frame_from_csv_text` that
// read_csv (py/pandas_csv.hpp, pandas 1.5.3 defaults). This benchmark's own part: `frame_from_table`
// emulates the sql-mode path read_sql_query(chunksize=500) -> to_csv -> read_csv.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/core/table.hpp"
#include "sqlgrade/py/pandas_csv.hpp"

namespace sqlgrade::spider2 {

// The pandas value model (Cell, Column, Frame, read_csv typing) is py/pandas_csv.hpp; here the
// names the Spider 2.0-Lite code uses for it, and the sql-mode round trip that is this benchmark's.
using py::Cell;
using py::Column;
using py::Dtype;
using py::Frame;
using py::frame_from_csv_file;
using py::frame_from_csv_text;

using py::CellView;

// The result of a query is bigger than the bound set for what is done with it (the CSV text of
// to_csv_text): the prediction scores 0 with the reason "too large", as a query stopped by its caps.
class ResultTooLarge : public std::runtime_error {
 public:
  explicit ResultTooLarge(const std::string& what) : std::runtime_error(what) {}
};

// Official sql mode: a query result goes through DataFrame(chunks of 500 rows) -> to_csv -> read_csv.
// `to_csv_text` is the intermediate CSV text (what the official script writes to <result_dir>_csv/).
// Both check `deadline` while they work (DeadlineExceeded) and throw ResultTooLarge when the CSV text
// would pass `max_bytes` (0: no bound). The text is built in 1 MiB blocks and joined once: at most
// twice its size at the peak, with no spare capacity afterwards.
std::string to_csv_text(const Table& t, const Deadline& deadline = {}, size_t max_bytes = 0);
// The same, freeing the table's rows as they are written (the table is left empty).
std::string to_csv_text(Table&& t, const Deadline& deadline = {}, size_t max_bytes = 0);
Frame frame_from_table(const Table& t, const Deadline& deadline = {}, size_t max_bytes = 0);

}  // namespace sqlgrade::spider2
