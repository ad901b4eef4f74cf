// What `sqlgrade verify` and `--verify` print, and the --json report.
#include <algorithm>
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

// The classes of the search's statuses, in the order the summary lists them (docs/verify.md "Statuses").
struct StatusClass {
  const char* status;
  const char* label;
  const char* note;
};
constexpr StatusClass kClasses[] = {
    {"refuted", "refuted", "clean refutations: the only class verified EX counts"},
    {"gold_suspect", "gold suspect", "the witness shows the gold's own bug; not counted"},
    {"tie", "tie", "the results differ only by how ties break; not counted"},
    {"edge", "edge", "the results differ only on a degenerate or unrealistic witness; not counted"},
    {"unverified", "unverified", "the search was cut before it could finish; not counted"},
    {"skipped", "not searched", "reasons in --json"},
    {"no_counterexample", "no counterexample", ""},
};
const StatusClass* status_class(const std::string& s) {
  for (const StatusClass& c : kClasses)
    if (s == c.status) return &c;
  return nullptr;
}
size_t count_of(const SystemReport& r, const std::string& status) {
  auto it = r.statuses.find(status);
  return it == r.statuses.end() ? 0 : it->second;
}
// Every status of the report with its count: the known classes in their order (refuted always), then
// any other status by name.
std::vector<std::pair<std::string, size_t>> class_counts(const SystemReport& r) {
  std::vector<std::pair<std::string, size_t>> out;
  for (const StatusClass& c : kClasses)
    if (count_of(r, c.status) || std::string(c.status) == "refuted") out.push_back({c.status, count_of(r, c.status)});
  for (const auto& [status, n] : r.statuses)
    if (!status_class(status)) out.push_back({status, n});
  return out;
}
// The ids of every status but no_counterexample and skipped: {"refuted": [...], "gold_suspect": [...]}.
nlohmann::json ids_by_status(const SystemReport& r) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [status, n] : class_counts(r)) {
    if (status == "no_counterexample" || status == "skipped" || n == 0) continue;
    nlohmann::json ids = nlohmann::json::array();
    for (const auto& i : r.instances)
      if (i.status == status) ids.push_back(i.id);
    out[status] = std::move(ids);
  }
  return out;
}

// "  search time   12.3 s CPU (0.154 s per searched instance), 6.2 s wall (2 threads)": CPU is what
// the searches cost, wall what the pass took; a pass of several systems shares identical instances.
std::string search_time_line(const SystemReport& r, size_t systems, size_t searched) {
  char buf[320];
  const double per = searched ? r.cpu_s / static_cast<double>(searched) : 0.0;
  if (systems <= 1)
    std::snprintf(buf, sizeof buf, "  search time   %.1f s CPU (%.3f s per searched instance), %.1f s wall (%d threads)\n",
                  r.cpu_s, per, r.wall_s, r.threads);
  else
    std::snprintf(buf, sizeof buf,
                  "  search time   %.1f s CPU for this system (%.3f s per searched instance); the pass of %zu systems: "
                  "%.1f s CPU, %.1f s wall (%d threads)\n",
                  r.cpu_s, per, systems, r.pass_cpu_s, r.wall_s, r.threads);
  return buf;
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
    out += "  refuted       " + std::to_string(r.refuted) + " of " + std::to_string(r.ex) +
           " matches (clean refutations: the only class verified EX counts)\n";
    for (const auto& [status, n] : class_counts(r)) {
      if (status == "refuted" || n == 0) continue;
      const StatusClass* c = status_class(status);
      std::string label = c ? c->label : status;
      label.resize(std::max<size_t>(label.size() + 1, 14), ' ');
      out += "  " + label + std::to_string(n) + " matches" + (c && *c->note ? std::string(" (") + c->note + ")" : "") + "\n";
    }
    out += search_time_line(r, reports.size(), searched);
    out += "  budget        " + std::to_string(r.candidates) + " candidate databases" +
           (r.time_capped ? ", " + std::to_string(r.time_capped) + " searches stopped by the time cap" : "") + "\n";
    for (const auto& [status, n] : class_counts(r)) {  // ids per class, in the classes' order
      if (status == "no_counterexample" || status == "skipped" || n == 0) continue;
      const StatusClass* c = status_class(status);
      std::string label = std::string(c ? c->label : status.c_str()) + " ids";
      label.resize(std::max<size_t>(label.size() + 1, 14), ' ');
      std::string list;
      for (const auto& i : r.instances)
        if (i.status == status) list += (list.empty() ? "" : " ") + i.id;
      out += "  " + label + list + "\n";
    }
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
                       {"seconds", i.seconds}, {"cpu_seconds", i.cpu_seconds}, {"time_capped", i.time_capped}};
      if (!i.reason.empty()) j["reason"] = i.reason;
      if (!i.counterexample_file.empty()) j["counterexample_file"] = i.counterexample_file;
      if (!i.counterexample_json.empty()) j["counterexample"] = nlohmann::json::parse(i.counterexample_json)["counterexample"];
      inst.push_back(std::move(j));
    }
    nlohmann::json classes = nlohmann::json::object();
    for (const auto& [status, n] : class_counts(r)) classes[status] = n;
    arr.push_back({{"system", r.system}, {"benchmark", r.benchmark}, {"total", r.total}, {"ex", r.ex},
                   {"verified_ex", r.ex - r.refuted}, {"ex_rate", ratio(r.ex, r.total)},
                   {"verified_ex_rate", ratio(r.ex - r.refuted, r.total)}, {"no_counterexample", r.verified}, {"refuted", r.refuted},
                   {"gold_suspect", count_of(r, "gold_suspect")}, {"edge", count_of(r, "edge")},
                   {"not_searched", r.skipped}, {"statuses", classes}, {"ids", ids_by_status(r)},
                   {"candidates", r.candidates}, {"time_capped", r.time_capped},
                   {"cpu_seconds", r.cpu_s}, {"instance_seconds", r.seconds}, {"pass_cpu_seconds", r.pass_cpu_s},
                   {"wall_seconds", r.wall_s}, {"threads", r.threads}, {"witness_rows", witness_sizes(r)},
                   {"instances", inst}});
  }
  return arr.dump(2) + "\n";
}

}  // namespace sqlgrade::verify
