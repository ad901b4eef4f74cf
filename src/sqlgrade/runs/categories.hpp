#pragma once
// Category axes and values of a run in display order, and per-category means.
#include <string>
#include <vector>

#include "sqlgrade/runs/record.hpp"

namespace sqlgrade::runs {

// Axes: those declared in category_axes first (in their order), then the others in order of first
// appearance among the instances.
std::vector<std::string> axes_of(const RunRecord& r);
// Values met on an axis: the declared ones first (in their order, only if met), then the others in
// natural id order (id_less).
std::vector<std::string> values_of(const RunRecord& r, const std::string& axis);

// Mean of a metric over the instances that have it (optionally only those whose category `axis`
// equals `value`); n = how many.
struct Mean {
  size_t n = 0;
  double mean = 0;
};
Mean mean_of(const RunRecord& r, const std::string& metric, const std::string& axis = "", const std::string& value = "");

}  // namespace sqlgrade::runs
