// Category axes/values in display order and per-category means. See categories.hpp.
#include "sqlgrade/runs/categories.hpp"

#include <algorithm>
#include <set>

#include "sqlgrade/runs/ids.hpp"

namespace sqlgrade::runs {

std::vector<std::string> axes_of(const RunRecord& r) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& a : r.category_axes)
    if (seen.insert(a.name).second) out.push_back(a.name);
  for (const auto& in : r.instances)
    for (const auto& [axis, v] : in.category)
      if (seen.insert(axis).second) out.push_back(axis);
  return out;
}

std::vector<std::string> values_of(const RunRecord& r, const std::string& axis) {
  std::set<std::string> met;
  for (const auto& in : r.instances)
    if (const std::string* v = in.category_of(axis)) met.insert(*v);
  std::vector<std::string> out;
  for (const auto& a : r.category_axes)
    if (a.name == axis)
      for (const auto& v : a.values)
        if (met.erase(v)) out.push_back(v);
  std::vector<std::string> rest(met.begin(), met.end());
  std::sort(rest.begin(), rest.end(), [](const std::string& x, const std::string& y) { return id_less(x, y); });
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

Mean mean_of(const RunRecord& r, const std::string& metric, const std::string& axis, const std::string& value) {
  Mean m;
  double sum = 0;
  for (const auto& in : r.instances) {
    if (!axis.empty()) {
      const std::string* v = in.category_of(axis);
      if (!v || *v != value) continue;
    }
    if (const double* s = in.score(metric)) sum += *s, ++m.n;
  }
  if (m.n) m.mean = sum / static_cast<double>(m.n);
  return m;
}

}  // namespace sqlgrade::runs
