#pragma once
// Spider hardness (evaluation.py eval_hardness), computed on the parsed gold before rebuild, with
// the official quirks: NOT IN / NOT LIKE count as aggregations, every HAVING connector counts as an
// aggregation, HAVING itself does not count as a component, FROM sub-queries are not nesting.
#include <string>

#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider/sql.hpp"

namespace sqlgrade::spider {

struct HardnessCounts {
  int component1 = 0, component2 = 0, others = 0;
};
// Throws ParseError for records the official code would crash on (a connector where a condition
// belongs; see check_condition_shape).
HardnessCounts hardness_counts(const Sql& sql);
Hardness hardness(const Sql& sql);

}  // namespace sqlgrade::spider
