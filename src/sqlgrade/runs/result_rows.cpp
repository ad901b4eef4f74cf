// The first rows of a result in a run record — see result_rows.hpp.
#include "sqlgrade/runs/result_rows.hpp"

#include <algorithm>

#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::runs {

std::string cut_cell(std::string s) {
  if (s.size() <= kResultCellBytes) return s;
  size_t cut = kResultCellBytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return s.substr(0, cut) + "\u2026";
}

std::optional<std::string> cell_text(const Value& v) {
  if (v.is_null()) return std::nullopt;
  return cut_cell(py::str(v));
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

}  // namespace sqlgrade::runs
