#pragma once
// The pandas value model of the Spider 2.0-Lite rule (spec: shared/spec/official-evaluators.md §4).
//
// The official script compares pandas DataFrames read with read_csv, so the values it sees are the
// result of pandas' CSV type inference; `Frame` is that DataFrame and `frame_from_csv_text` that
// read_csv (py/pandas_csv.hpp, pandas 1.5.3 defaults). This benchmark's own part: `frame_from_table`
// emulates the sql-mode path read_sql_query(chunksize=500) -> to_csv -> read_csv.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// Official sql mode: a query result goes through DataFrame(chunks of 500 rows) -> to_csv -> read_csv.
// `to_csv_text` is the intermediate CSV text (what the official script writes to <result_dir>_csv/).
std::string to_csv_text(const Table& t);
Frame frame_from_table(const Table& t);

}  // namespace sqlgrade::spider2
