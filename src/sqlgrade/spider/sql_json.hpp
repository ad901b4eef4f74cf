#pragma once
// The parsed structure as JSON, in the shape of the `sql` field of Spider's dev.json /
// train_spider.json (what RAT-SQL and similar models consume): tuples become arrays, flags become
// booleans (null after rebuild), values are numbers (Python floats), quoted strings, column units
// or nested objects; keys in the dataset's order.
#include <nlohmann/json.hpp>

#include "sqlgrade/spider/sql.hpp"

namespace sqlgrade::spider {

nlohmann::ordered_json sql_to_json(const Sql& sql);

}  // namespace sqlgrade::spider
