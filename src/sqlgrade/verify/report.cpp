// What `sqlgrade verify` and `--verify` print, and the --json report.
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "sqlgrade/verify.hpp"
#include "sqlgrade/verify/witness.hpp"

namespace sqlgrade::verify {

namespace {
std::string fmt_line(const char* f, double a, size_t b, size_t c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}
double ratio(size_t a, size_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

// Witness sizes (rows of the counterexample database) per status that has witnesses: {"refuted":
// distribution, "edge": distribution} (witness.hpp witness_size_distribution).
nlohmann::json witness_sizes(const SystemReport& r) {
  std::map<std::string, std::vector<size_t>> rows;
  for (const auto& i : r.instances) {
    if (i.counterexample_json.empty()) continue;
    const auto cex = nlohmann::json::parse(i.counterexample_json)["counterexample"];
    if (cex.contains("witness_rows")) rows[i.status].push_back(cex["witness_rows"].get<size_t>());
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [status, v] : rows) out[status] = witness_size_distribution(v);
  return out;
}

// "  witness rows  refuted 12: 1:3 2:7 3:2 (median 2, max 3); edge 4: 0:4 (median 0, max 0)"
std::string witness_line(const SystemReport& r) {
  const nlohmann::json w = witness_sizes(r);
  std::string line;
  for (const auto& [status, d] : w.items()) {
    size_t n = 0;
    std::string cells;
    for (const char* k : {"0", "1", "2", "3", "4", "5", "6+"})
      if (size_t c = d[k].get<size_t>()) n += c, cells += std::string(" ") + k + ":" + std::to_string(c);
    char tail[80];
    std::snprintf(tail, sizeof tail, " (median %g, max %zu)", d["median"].get<double>(), d["max"].get<size_t>());
    line += (line.empty() ? "" : "; ") + status + " " + std::to_string(n) + ":" + cells + tail;
  }
  return line.empty() ? "" : "  witness rows  " + line + "\n";
}
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
    out += witness_line(r);
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
                   {"search_seconds", r.seconds}, {"wall_seconds", r.wall_s}, {"witness_rows", witness_sizes(r)},
                   {"instances", inst}});
  }
  return arr.dump(2) + "\n";
}

}  // namespace sqlgrade::verify
