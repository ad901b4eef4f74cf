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

long ShownValues::position(const Instance& in, const std::string& axis) const {
  const std::string* v = in.category_of(axis);
  if (!v) return -1;
  auto it = index.find(*v);
  return it == index.end() ? -1 : static_cast<long>(it->second);
}

std::string ShownValues::note(const std::string& axis) const {
  return axis + ": " + std::to_string(omitted_values) + " more values (" + std::to_string(omitted_instances) +
         " instances) not shown per category; only the " + std::to_string(values.size()) + " with the most instances";
}

ShownValues shown_values(const RunRecord& r, const std::string& axis) {
  ShownValues out;
  std::vector<std::string> all = values_of(r, axis);
  if (all.size() <= kMaxCategoryValues) {
    out.values = std::move(all);
  } else {
    std::unordered_map<std::string, size_t> count;
    count.reserve(all.size());
    for (const auto& in : r.instances)
      if (const std::string* v = in.category_of(axis)) ++count[*v];
    std::vector<size_t> order(all.size()), n(all.size());
    size_t total = 0, kept = 0;
    for (size_t i = 0; i < order.size(); ++i) order[i] = i, n[i] = count[all[i]], total += n[i];
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return n[x] > n[y]; });
    order.resize(kMaxCategoryValues);
    std::sort(order.begin(), order.end());
    for (size_t i : order) {
      kept += n[i];
      out.values.push_back(std::move(all[i]));
    }
    out.omitted_values = all.size() - kMaxCategoryValues;
    out.omitted_instances = total - kept;
  }
  out.index.reserve(out.values.size());
  for (size_t i = 0; i < out.values.size(); ++i) out.index.emplace(out.values[i], i);
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
