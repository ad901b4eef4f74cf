#include "sqlgrade/core/table.hpp"

#include "sqlgrade/core/text.hpp"

namespace sqlgrade {

int Table::find_column(std::string_view name) const {
  for (size_t c = 0; c < columns.size(); ++c)
    if (columns[c] == name) return static_cast<int>(c);
  return -1;
}

int Table::find_column_ci(std::string_view name) const {
  for (size_t c = 0; c < columns.size(); ++c)
    if (iequals(columns[c], name)) return static_cast<int>(c);
  return -1;
}

size_t heap_bytes(const Table& t) {
  size_t b = vector_heap_bytes(t.columns) + vector_heap_bytes(t.rows);
  for (auto& c : t.columns) b += heap_bytes(c);
  for (auto& r : t.rows) {
    b += vector_heap_bytes(r);
    for (auto& v : r) b += heap_bytes(v.s);
  }
  return b;
}

}  // namespace sqlgrade
