#pragma once
// pandas.read_csv with its defaults, as pandas 1.5.3 (the version the Spider 2.0-Lite official
// evaluate.py ran with: shared/data/expected/MANIFEST.json) types a CSV file: NA strings -> NaN,
// per-column int64 / float64 / bool / object inference (low_memory chunks included), blank lines
// skipped, header de-duplication — and the cells as Python objects after DataFrame.values.tolist().
// Needed by Spider 2.0-Lite (spider2/: evaluate.py compares DataFrames read this way, gold and
// prediction alike; the sql-mode to_csv round trip is spider2/frame.hpp). Spec:
// shared/spec/official-evaluators.md §4.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::py {

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

}  // namespace sqlgrade::py
