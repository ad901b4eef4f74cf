// summary.verify rebuilt from the instances of a run record. See verify_record.hpp.
#include "sqlgrade/runs/verify_record.hpp"

namespace sqlgrade::runs {

const Json* verify_detail(const Instance& in) {
  if (!in.detail.is_object()) return nullptr;
  auto it = in.detail.find("verify");
  return it != in.detail.end() && it->is_object() ? &*it : nullptr;
}

std::map<std::string, size_t> verify_status_counts(const RunRecord& r) {
  std::map<std::string, size_t> out;
  for (const Instance& in : r.instances)
    if (const Json* d = verify_detail(in)) ++out[d->value("status", "")];
  return out;
}

Json verify_summary(const RunRecord& r) {
  size_t graded = 0, verified = 0, ex = 0, candidates = 0, capped = 0;
  double seconds = 0, cpu = 0;
  bool any = false;
  Json ids = Json::object();
  for (const Instance& in : r.instances) {
    if (const double* v = in.score(kVerifiedMetric)) ++graded, verified += *v == 1;
    const Json* d = verify_detail(in);
    if (!d) continue;
    any = true;
    ++ex;
    const std::string status = d->value("status", "");
    if (status != "no_counterexample" && status != "skipped") ids[status].push_back(in.id);
    candidates += d->value("candidates", size_t{0});
    seconds += d->value("seconds", 0.0);
    cpu += d->value("cpu_seconds", 0.0);
    capped += d->value("time_capped", false);
  }
  if (!any && graded == 0) return nullptr;
  const auto counts = verify_status_counts(r);
  auto count = [&](const char* s) {
    auto it = counts.find(s);
    return it == counts.end() ? size_t{0} : it->second;
  };
  Json statuses = Json::object();
  for (const auto& [s, n] : counts) statuses[s] = n;
  return Json{{"graded", graded}, {"ex", ex}, {"verified_ex", verified},
              {"verified_ex_rate", graded ? static_cast<double>(verified) / static_cast<double>(graded) : 0.0},
              {"refuted", count("refuted")}, {"gold_suspect", count("gold_suspect")}, {"edge", count("edge")},
              {"tie", count("tie")}, {"no_counterexample", count("no_counterexample")}, {"not_searched", count("skipped")},
              {"statuses", statuses}, {"candidates", candidates}, {"cpu_seconds", cpu}, {"instance_seconds", seconds},
              {"time_capped", capped}, {"refuted_ids", ids.value("refuted", Json::array())}, {"ids", ids}};
}

}  // namespace sqlgrade::runs
