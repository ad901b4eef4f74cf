#pragma once
// Category axes and values of a run in display order, and per-category means.
#include <string>
#include <unordered_map>
#include <vector>

#include "sqlgrade/runs/record.hpp"

namespace sqlgrade::runs {

// Axes: those declared in category_axes first (in their order), then the others in order of first
// appearance among the instances.
std::vector<std::string> axes_of(const RunRecord& r);
// Values met on an axis: the declared ones first (in their order, only if met), then the others in
// natural id order (id_less).
std::vector<std::string> values_of(const RunRecord& r, const std::string& axis);

// Per-category tables (report, diff) show at most this many values per axis (issue 19, finding 13: one
// database per instance made 20,000 rows of bootstrap statistics). Far above the benchmarks' own
// category counts (Spider test: 206 databases, BIRD train: 69, hardness levels: 4).
inline constexpr size_t kMaxCategoryValues = 1000;

// The values of `axis` that per-category tables show: values_of's order, at most kMaxCategoryValues.
// Beyond it the values with the most instances are kept (ties: display order), still in display
// order; `omitted_values` / `omitted_instances` count what was left out (for a note). `index` maps a
// shown value to its position. O(n log n) in the instances.
struct ShownValues {
  std::vector<std::string> values;
  std::unordered_map<std::string, size_t> index;
  size_t omitted_values = 0, omitted_instances = 0;
  // Position of the instance's value on the axis in `values`, or -1 (no such category / not shown).
  long position(const Instance& in, const std::string& axis) const;
  // "db: 19,000 more values (19,000 instances) not shown per category; only the 1000 with the most instances"
  std::string note(const std::string& axis) const;
};
ShownValues shown_values(const RunRecord& r, const std::string& axis);

// Mean of a metric over the instances that have it (optionally only those whose category `axis`
// equals `value`); n = how many.
struct Mean {
  size_t n = 0;
  double mean = 0;
};
Mean mean_of(const RunRecord& r, const std::string& metric, const std::string& axis = "", const std::string& value = "");

}  // namespace sqlgrade::runs
