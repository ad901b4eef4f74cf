// What `sqlgrade verify` and `--verify` print, and the --json report.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "sqlgrade/verify.hpp"

namespace sqlgrade::verify {

namespace {
std::string fmt_line(const char* f, double a, size_t b, size_t c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}
double ratio(size_t a, size_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }
}  // namespace

std::string render_text(const std::vector<SystemReport>& reports) {
  std::string out;
  for (const SystemReport& r : reports) {
    const size_t searched = r.ex - r.skipped;
    out += "verified execution accuracy (" + r.benchmark + "): " + r.system + "\n";
    out += fmt_line("  EX            %.3f (%zu/%zu)\n", ratio(r.ex, r.total), r.ex, r.total);
    out += fmt_line("  verified EX   %.3f (%zu/%zu)\n", ratio(r.ex - r.refuted, r.total), r.ex - r.refuted, r.total);
    out += "  refuted       " + std::to_string(r.refuted) + " of " + std::to_string(r.ex) + " matches\n";
    if (r.skipped) out += "  not searched  " + std::to_string(r.skipped) + " matches (reasons in --json)\n";
    char buf[200];
    std::snprintf(buf, sizeof buf, "  budget        %zu candidate databases, %.1f s search (%.3f s per instance), %.1f s wall%s\n",
                  r.candidates, r.seconds, searched ? r.seconds / static_cast<double>(searched) : 0.0, r.wall_s,
                  r.time_capped ? (", " + std::to_string(r.time_capped) + " stopped by the time cap").c_str() : "");
    out += buf;
    std::string ids;
    for (const auto& i : r.instances)
      if (i.status == "refuted") ids += (ids.empty() ? "" : " ") + i.id;
    if (!ids.empty()) out += "  refuted ids   " + ids + "\n";
  }
  return out;
}

std::string render_json(const std::vector<SystemReport>& reports) {
  nlohmann::json arr = nlohmann::json::array();
  for (const SystemReport& r : reports) {
    nlohmann::json inst = nlohmann::json::array();
    for (const auto& i : r.instances) {
      nlohmann::json j{{"id", i.id}, {"db", i.db}, {"status", i.status}, {"candidates", i.candidates},
                       {"seconds", i.seconds}, {"time_capped", i.time_capped}};
      if (!i.reason.empty()) j["reason"] = i.reason;
      if (!i.counterexample_file.empty()) j["counterexample_file"] = i.counterexample_file;
      if (!i.counterexample_json.empty()) j["counterexample"] = nlohmann::json::parse(i.counterexample_json)["counterexample"];
      inst.push_back(std::move(j));
    }
    arr.push_back({{"system", r.system}, {"benchmark", r.benchmark}, {"total", r.total}, {"ex", r.ex},
                   {"verified_ex", r.ex - r.refuted}, {"ex_rate", ratio(r.ex, r.total)},
                   {"verified_ex_rate", ratio(r.ex - r.refuted, r.total)}, {"no_counterexample", r.verified}, {"refuted", r.refuted},
                   {"not_searched", r.skipped}, {"candidates", r.candidates}, {"time_capped", r.time_capped},
                   {"search_seconds", r.seconds}, {"wall_seconds", r.wall_s}, {"instances", inst}});
  }
  return arr.dump(2) + "\n";
}

}  // namespace sqlgrade::verify
