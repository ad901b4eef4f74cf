// Comparability checks and id alignment. See align.hpp.
#include "sqlgrade/runs/align.hpp"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"

namespace sqlgrade::runs {

namespace {

std::string short_hash(const std::string& h) { return h.substr(0, 12); }

std::string quoted_example(const std::vector<std::string>& ids) {
  return ids.empty() ? std::string() : ", e.g. \"" + ids.front() + "\"";
}

}  // namespace

std::string run_label(const NamedRun& r) {
  if (r.run && !r.run->system.empty()) return r.run->system;
  return std::filesystem::path(r.file).stem().string();
}

std::vector<std::string> run_labels(const std::vector<NamedRun>& runs) {
  std::vector<std::string> out;
  for (const auto& r : runs) out.push_back(run_label(r));
  auto shared = [&](size_t k) { return std::count(out.begin(), out.end(), out[k]) > 1; };
  std::vector<char> dup(out.size());
  for (size_t k = 0; k < out.size(); ++k) dup[k] = shared(k);
  for (size_t k = 0; k < out.size(); ++k)
    if (dup[k]) out[k] += " (" + std::filesystem::path(runs[k].file).stem().string() + ")";
  for (size_t k = 0; k < out.size(); ++k) dup[k] = shared(k);
  for (size_t k = 0; k < out.size(); ++k)
    if (dup[k]) out[k] += " #" + std::to_string(k + 1);
  return out;
}

void check_same_gold(const NamedRun& a, const NamedRun& b) {
  if (a.run->benchmark != b.run->benchmark)
    throw InputError(b.file, "benchmark \"" + b.run->benchmark + "\" differs from " + a.file + "'s \"" + a.run->benchmark +
                                 "\"; only runs of one benchmark can be compared");
  for (const auto& ia : a.run->inputs) {
    if (ia.side != "gold" || !ia.sha256) continue;
    for (const auto& ib : b.run->inputs) {
      if (ib.side != "gold" || ib.role != ia.role || !ib.sha256) continue;
      if (*ib.sha256 != *ia.sha256)
        throw InputError(b.file, "gold input \"" + ia.role + "\" differs from " + a.file + "'s (sha256 " + short_hash(*ib.sha256) +
                                     "… vs " + short_hash(*ia.sha256) + "…); these runs were not graded against the same gold");
    }
  }
}

std::vector<MetricDef> common_metrics(const RunRecord& a, const RunRecord& b) {
  std::vector<MetricDef> out;
  for (const auto& m : a.metrics)
    if (const MetricDef* mb = b.metric(m.name); mb && mb->kind == m.kind) out.push_back(m);
  return out;
}

Aligned align_runs(const NamedRun& a, const NamedRun& b, bool common_only) {
  check_same_gold(a, b);
  Aligned al;
  for (const auto& ia : a.run->inputs)
    if (ia.side == "gold" && ia.sha256)
      for (const auto& ib : b.run->inputs)
        if (ib.side == "gold" && ib.role == ia.role && ib.sha256) al.gold_checked.push_back(ia.role + " " + short_hash(*ia.sha256));

  std::unordered_map<std::string, const Instance*> in_b;
  in_b.reserve(b.run->instances.size());
  for (const auto& in : b.run->instances) in_b.emplace(in.id, &in);
  std::vector<std::string> missing_in_b, missing_in_a;
  std::unordered_map<std::string, bool> in_a;
  for (const auto& in : a.run->instances) {
    in_a.emplace(in.id, true);
    auto it = in_b.find(in.id);
    if (it == in_b.end()) missing_in_b.push_back(in.id);
    else al.pairs.emplace_back(&in, it->second);
  }
  for (const auto& in : b.run->instances)
    if (!in_a.count(in.id)) missing_in_a.push_back(in.id);
  auto by_id = [](const std::string& x, const std::string& y) { return id_less(x, y); };
  std::sort(missing_in_a.begin(), missing_in_a.end(), by_id);
  std::sort(missing_in_b.begin(), missing_in_b.end(), by_id);
  al.only_a = missing_in_b.size(), al.only_b = missing_in_a.size();
  if ((al.only_a || al.only_b) && !common_only)
    throw InputError(b.file, "instance ids differ from " + a.file + "'s (" + std::to_string(al.only_a) + " only in " + a.file +
                                 quoted_example(missing_in_b) + "; " + std::to_string(al.only_b) + " only in " + b.file +
                                 quoted_example(missing_in_a) + "); not the same gold — pass --common to compare the " +
                                 std::to_string(al.pairs.size()) + " shared ids");
  if (al.pairs.empty()) throw InputError(b.file, "no instance id in common with " + a.file);
  std::sort(al.pairs.begin(), al.pairs.end(), [](const auto& x, const auto& y) { return id_less(x.first->id, y.first->id); });

  if (al.only_a || al.only_b)
    al.notes.push_back("comparing the " + std::to_string(al.pairs.size()) + " shared ids (" + std::to_string(al.only_a) +
                       " only in A, " + std::to_string(al.only_b) + " only in B)");
  std::vector<std::string> differing;
  for (auto it = a.run->options.begin(); it != a.run->options.end(); ++it) {
    auto jt = b.run->options.find(it.key());
    if (jt == b.run->options.end() || *jt != *it) differing.push_back(it.key());
  }
  for (auto jt = b.run->options.begin(); jt != b.run->options.end(); ++jt)
    if (!a.run->options.contains(jt.key())) differing.push_back(jt.key());
  if (!differing.empty()) {
    std::string keys;
    for (size_t i = 0; i < differing.size() && i < 6; ++i) keys += (i ? ", " : "") + differing[i];
    al.notes.push_back("options differ between the runs: " + keys);
  }
  if (a.run->primary_metric != b.run->primary_metric)
    al.notes.push_back("primary metrics differ (A: " + a.run->primary_metric + ", B: " + b.run->primary_metric + "); using A's");
  return al;
}

}  // namespace sqlgrade::runs
