#pragma once
// Helpers shared by the UDA driver's source files (gold side, evaluation, runs); not a public API.
#include <string>

#include "sqlgrade/uda/driver.hpp"

namespace sqlgrade::uda::detail {

// SQL table name for a column reference of the shape (qualifier resolved, unqualified columns
// attributed to the first table of the query that has the column).
std::string table_of(const Dataset& ds, const QueryShape& shape, const ColumnRef& c);
// The attribute describing a column reference (its table's, else any table's with that name).
const Attribute* attribute_of(const Dataset& ds, const QueryShape& shape, const ColumnRef& c);
// `id` and `<t>.id`: stop columns, never scored.
bool is_stop_name(const std::string& name);

}  // namespace sqlgrade::uda::detail
