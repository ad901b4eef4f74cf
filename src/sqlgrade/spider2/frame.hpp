#pragma once
// The pandas value model of the Spider 2.0-Lite rule (spec: shared/spec/official-evaluators.md §4).
//
// The official script compares pandas DataFrames read with read_csv, so the values it sees are the
// result of pandas' CSV type inference (NA strings -> NaN, per-column int/float/bool/object dtype,
// blank lines skipped). `Frame` is that DataFrame: column names plus typed cells per column.
// `frame_from_csv_text` emulates read_csv (pandas 1.5.3 defaults); `frame_from_table` emulates the
// sql-mode path read_sql_query(chunksize=500) -> to_csv -> read_csv.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/core/table.hpp"

namespace sqlgrade::spider2 {

// One cell as a Python object after DataFrame.values.tolist(): NaN, int, float, bool or str.
struct Cell {
  enum class Type : uint8_t { NaN = 0, Int, Float, Bool, Str };
  Type type = Type::NaN;
  int64_t i = 0;    // Int value, Bool as 0/1
  double f = 0.0;   // Float value
  std::string s;    // Str value

  static Cell nan() { return {}; }
  static Cell integer(int64_t v) { Cell c; c.type = Type::Int; c.i = v; return c; }
  static Cell real(double v) { Cell c; c.type = Type::Float; c.f = v; return c; }
  static Cell boolean(bool v) { Cell c; c.type = Type::Bool; c.i = v ? 1 : 0; return c; }
  static Cell str(std::string v) { Cell c; c.type = Type::Str; c.s = std::move(v); return c; }

  bool is_nan() const { return type == Type::NaN; }
  // Python isinstance(x, (int, float)) — bool counts as a number.
  bool is_number() const { return type == Type::Int || type == Type::Float || type == Type::Bool; }
  double as_double() const { return type == Type::Float ? f : static_cast<double>(i); }
  // Python str(x): NaN -> "nan", floats in repr form, True/False.
  std::string py_str() const;
  bool operator==(const Cell& o) const;
};

// pandas column dtype after read_csv inference.
enum class Dtype : uint8_t { Int64, Float64, Bool, Object };

struct Column {
  std::string name;  // after pandas header handling (duplicates mangled "a.1", blanks "Unnamed: i")
  Dtype dtype = Dtype::Object;
  std::vector<Cell> cells;
};

// pandas-like table: column names + per-column typed values.
struct Frame {
  std::vector<Column> columns;
  size_t rows = 0;

  size_t width() const { return columns.size(); }
  std::vector<std::string> names() const;
};

// pandas.read_csv(text) emulation (pandas 1.5.3 defaults). Throws InputError(name, msg, line) on
// what pandas rejects (empty input "No columns to parse from file", too many fields in a row).
Frame frame_from_csv_text(std::string_view csv, const std::string& name);
// Same, reading the file (InputError naming the file if missing).
Frame frame_from_csv_file(const std::string& path);

// Official sql mode: a query result goes through DataFrame(chunks of 500 rows) -> to_csv -> read_csv.
// `to_csv_text` is the intermediate CSV text (what the official script writes to <result_dir>_csv/).
std::string to_csv_text(const Table& t);
Frame frame_from_table(const Table& t);

}  // namespace sqlgrade::spider2
