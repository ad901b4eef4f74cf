#pragma once
// The pandas frame sqlgrade compares (Spider 2.0-Lite): cells as Python objects after
// DataFrame.values.tolist(), columns typed as read_csv infers them (int64 / float64 / bool / object),
// stored compactly. pandas_csv.hpp reads CSV text into it.
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

// A cell read in place (no copy): what the comparison rules look at. `s` points into its Column.
struct CellView {
  Cell::Type type = Cell::Type::NaN;
  int64_t i = 0;
  double f = 0.0;
  std::string_view s;

  bool is_nan() const { return type == Cell::Type::NaN; }
  bool is_number() const { return type == Cell::Type::Int || type == Cell::Type::Float || type == Cell::Type::Bool; }
  double as_double() const { return type == Cell::Type::Float ? f : static_cast<double>(i); }
  // Appends Python str(x) (as Cell::py_str) to `out`.
  void append_py_str(std::string& out) const;
  bool operator==(const CellView& o) const;
  Cell to_cell() const;
};

// pandas column dtype after read_csv inference.
enum class Dtype : uint8_t { Int64, Float64, Bool, Object };

// One column, stored compactly: a type byte and an 8-byte payload per cell (int and bool as int64, the
// float's bits, or the index of a str cell's text), the texts of str cells in one buffer. A column
// of a million integers costs 9 MB, not the 56 MB of a million Cells (issue 19, finding 5).
class Column {
 public:
  std::string name;  // after pandas header handling (duplicates mangled "a.1", blanks "Unnamed: i")
  Dtype dtype = Dtype::Object;

  size_t size() const { return types_.size(); }
  CellView at(size_t r) const;
  Cell cell(size_t r) const { return at(r).to_cell(); }

  void push_nan() { push(Cell::Type::NaN, 0); }
  void push_int(int64_t v) { push(Cell::Type::Int, static_cast<uint64_t>(v)); }
  void push_real(double v);
  void push_bool(bool v) { push(Cell::Type::Bool, v ? 1 : 0); }
  void push_str(std::string_view v);
  void push(const CellView& c);
  void push(const Cell& c);
  // Keeps the first n cells (inference backs out of a dtype that does not fit).
  void truncate(size_t n);
  // Int cells in rows [r0, r1) become floats (pandas' common type of an int64 and a float64 chunk).
  void to_float(size_t r0, size_t r1);
  void reserve(size_t n);
  // Heap bytes held (what a cache of frames charges).
  size_t heap_bytes() const;

 private:
  void push(Cell::Type t, uint64_t payload) {
    types_.push_back(t);
    data_.push_back(payload);
  }
  std::vector<Cell::Type> types_;
  std::vector<uint64_t> data_;
  std::string text_;                // str cells' bytes, in order
  std::vector<uint64_t> text_end_;  // str cell k is text_[text_end_[k-1], text_end_[k])
};

// pandas-like table: column names + per-column typed values.
struct Frame {
  std::vector<Column> columns;
  size_t rows = 0;

  size_t width() const { return columns.size(); }
  std::vector<std::string> names() const;
};
size_t heap_bytes(const Frame& f);

}  // namespace sqlgrade::py
