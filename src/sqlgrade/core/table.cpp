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

std::string cut_cell(std::string s) {
  if (s.size() <= kResultCellBytes) return s;
  size_t cut = kResultCellBytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return s.substr(0, cut) + "\u2026";
}

std::optional<std::string> cell_text(const Value& v) {
  if (v.is_null()) return std::nullopt;
  return cut_cell(v.kind == Kind::Blob ? python_bytes_repr(v.s) : v.to_string());
}

ResultRows first_rows(const TextTable& t) {
  ResultRows out;
  out.present = true;
  out.total_rows = t.size();
  out.total_columns = t.width();
  const size_t width = std::min(t.width(), kResultColumnsKept);
  out.columns.assign(t.columns.begin(), t.columns.begin() + static_cast<std::ptrdiff_t>(width));
  for (size_t r = 0; r < t.size() && r < kResultRowsKept; ++r) {
    auto& row = out.rows.emplace_back();
    for (size_t c = 0; c < width; ++c)
      row.emplace_back(t.is_null(r, c) ? std::nullopt : std::optional<std::string>(cut_cell(std::string(t.text(r, c)))));
  }
  return out;
}

ResultRows first_rows(const Table& t) {
  ResultRows out;
  out.present = true;
  out.total_rows = t.rows.size();
  out.total_columns = t.columns.size();
  const size_t width = std::min(t.columns.size(), kResultColumnsKept);
  out.columns.assign(t.columns.begin(), t.columns.begin() + static_cast<std::ptrdiff_t>(width));
  for (size_t r = 0; r < t.rows.size() && r < kResultRowsKept; ++r) {
    auto& row = out.rows.emplace_back();
    for (size_t c = 0; c < t.rows[r].size() && c < kResultColumnsKept; ++c) row.emplace_back(cell_text(t.rows[r][c]));
  }
  return out;
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
