// summary.verify rebuilt from the instances of a run record. See verify_record.hpp.
#include "sqlgrade/runs/verify_record.hpp"

namespace sqlgrade::runs {

const Json* verify_detail(const Instance& in) {
  if (!in.detail.is_object()) return nullptr;
  auto it = in.detail.find("verify");
  return it != in.detail.end() && it->is_object() ? &*it : nullptr;
}

Json verify_summary(const RunRecord& r) {
  size_t graded = 0, verified = 0, ex = 0, refuted = 0, clean = 0, skipped = 0, candidates = 0, capped = 0;
  double seconds = 0;
  bool any = false;
  Json ids = Json::array();
  for (const Instance& in : r.instances) {
    if (const double* v = in.score(kVerifiedMetric)) ++graded, verified += *v == 1;
    const Json* d = verify_detail(in);
    if (!d) continue;
    any = true;
    ++ex;
    const std::string status = d->value("status", "");
    if (status == "refuted") ++refuted, ids.push_back(in.id);
    else if (status == "skipped") ++skipped;
    else ++clean;
    candidates += d->value("candidates", size_t{0});
    seconds += d->value("seconds", 0.0);
    capped += d->value("time_capped", false);
  }
  if (!any && graded == 0) return nullptr;
  return Json{{"graded", graded}, {"ex", ex}, {"verified_ex", verified},
              {"verified_ex_rate", graded ? static_cast<double>(verified) / static_cast<double>(graded) : 0.0},
              {"refuted", refuted}, {"no_counterexample", clean}, {"not_searched", skipped},
              {"candidates", candidates}, {"search_seconds", seconds}, {"time_capped", capped}, {"refuted_ids", ids}};
}

}  // namespace sqlgrade::runs
