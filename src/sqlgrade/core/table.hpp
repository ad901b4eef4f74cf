#pragma once
// A query result or a loaded CSV: column names and rows of typed cells.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/core/value.hpp"
#include "sqlgrade/result_rows.hpp"

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

// A table whose cells are text or NULL — a CSV file read as text — stored compactly: the cells' bytes
// one after the other in one buffer, an end offset and a NULL bit per cell (about 4 bytes a cell plus
// its text, where a Row of Values costs 56 bytes a cell and 40 a row). Rows are appended cell by cell.
class TextTable {
 public:
  std::vector<std::string> columns;

  size_t width() const { return columns.size(); }
  size_t size() const { return rows_; }
  bool is_null(size_t r, size_t c) const { return null_[r * width() + c]; }
  std::string_view text(size_t r, size_t c) const {
    const size_t k = r * width() + c;
    const size_t b = k ? end_[k - 1] : 0;
    return std::string_view(text_.data() + b, end_[k] - b);
  }
  // The cell as a Value (NULL or text) and a row of them.
  Value value(size_t r, size_t c) const { return is_null(r, c) ? Value::null() : Value::text(std::string(text(r, c))); }
  Row row(size_t r) const;

  // A row is width() cells appended one by one, then end_row(). The text may not pass 4 GiB in all.
  void push_null() { push("", true); }
  void push_text(std::string_view s) { push(s, false); }
  void end_row() { ++rows_; }
  void reserve(size_t cells, size_t text_bytes);

 private:
  void push(std::string_view s, bool null);
  std::string text_;
  std::vector<uint32_t> end_;
  std::vector<bool> null_;
  size_t rows_ = 0;
};

// Heap bytes held, as allocated (libstdc++: strings by capacity beyond the 15-byte small-string
// buffer, vectors by capacity, glibc's 16-byte block header each): what a cache of results charges.
constexpr size_t kMallocHeader = 16;
inline size_t heap_bytes(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 + kMallocHeader : 0; }
template <class T>
size_t vector_heap_bytes(const std::vector<T>& v) {
  return v.capacity() ? v.capacity() * sizeof(T) + kMallocHeader : 0;
}
size_t heap_bytes(const Table& t);

// The first rows of a result kept in a run record are runs/result_rows.hpp's (first_rows).
size_t heap_bytes(const ResultRows& r);

}  // namespace sqlgrade
