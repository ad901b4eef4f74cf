#include "sqlgrade/core/table.hpp"

#include <algorithm>
#include <stdexcept>

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

Row TextTable::row(size_t r) const {
  Row out;
  out.reserve(width());
  for (size_t c = 0; c < width(); ++c) out.push_back(value(r, c));
  return out;
}

void TextTable::push(std::string_view s, bool null) {
  if (text_.size() + s.size() > UINT32_MAX) throw std::length_error("a text table of 4 GiB or more");
  text_.append(s);
  end_.push_back(static_cast<uint32_t>(text_.size()));
  null_.push_back(null);
}

void TextTable::reserve(size_t cells, size_t text_bytes) {
  end_.reserve(cells);
  null_.reserve(cells);
  text_.reserve(text_bytes);
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

size_t heap_bytes(const ResultRows& r) {
  size_t n = vector_heap_bytes(r.columns) + vector_heap_bytes(r.rows);
  for (const auto& c : r.columns) n += heap_bytes(c);
  for (const auto& row : r.rows) {
    n += vector_heap_bytes(row);
    for (const auto& c : row) n += c ? heap_bytes(*c) : 0;
  }
  return n;
}

}  // namespace sqlgrade
