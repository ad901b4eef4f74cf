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

}  // namespace sqlgrade
