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

// Heap bytes held, as allocated (libstdc++: strings by capacity beyond the 15-byte small-string
// buffer, vectors by capacity, glibc's 16-byte block header each): what a cache of results charges.
constexpr size_t kMallocHeader = 16;
inline size_t heap_bytes(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 + kMallocHeader : 0; }
template <class T>
size_t vector_heap_bytes(const std::vector<T>& v) {
  return v.capacity() ? v.capacity() * sizeof(T) + kMallocHeader : 0;
}
size_t heap_bytes(const Table& t);

}  // namespace sqlgrade
