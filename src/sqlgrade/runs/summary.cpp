// Summarizer registry and the generic summarizer. See summary.hpp.
#include "sqlgrade/runs/summary.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "sqlgrade/runs/categories.hpp"
#include "sqlgrade/runs/terminal.hpp"
#include "sqlgrade/runs/verify_record.hpp"

namespace sqlgrade::runs {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, Summarizer> fns;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_summarizer(const std::string& benchmark, Summarizer fn) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  r.fns[benchmark] = std::move(fn);
}

bool has_summarizer(const std::string& benchmark) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  return r.fns.count(benchmark) > 0;
}

SummaryOut summarize(const RunRecord& rec) {
  Summarizer fn;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    auto it = r.fns.find(rec.benchmark);
    if (it != r.fns.end()) fn = it->second;
  }
  SummaryOut out = fn ? fn(rec) : generic_summary(rec);
  // --verify: the verification totals, rebuilt from the instances (merge gives exact totals).
  if (Json v = verify_summary(rec); !v.is_null() && out.summary.is_object()) out.summary["verify"] = std::move(v);
  return out;
}

SummaryOut generic_summary(const RunRecord& r) {
  SummaryOut out;
  Json& s = out.summary;
  s["generic"] = true;
  s["count"] = r.instances.size();
  Json metrics = Json::object();
  for (const auto& m : r.metrics) {
    Mean mean = mean_of(r, m.name);
    metrics[m.name] = Json{{"n", mean.n}, {"mean", mean.n ? Json(mean.mean) : Json(nullptr)}};
  }
  s["metrics"] = std::move(metrics);

  // Text table: label column, count, one column per metric.
  std::vector<std::vector<std::string>> rows;
  auto row = [&](const std::string& label, const std::string& axis, const std::string& value, size_t count) {
    std::vector<std::string> cells{label, std::to_string(count)};
    for (const auto& m : r.metrics) {
      Mean mean = mean_of(r, m.name, axis, value);
      cells.push_back(mean.n ? fmt::format("{:.4f}", mean.mean) : "-");
    }
    rows.push_back(std::move(cells));
  };
  row("all", "", "", r.instances.size());
  Json cats = Json::object();
  for (const auto& axis : axes_of(r)) {
    Json per = Json::object();
    for (const auto& value : values_of(r, axis)) {
      size_t count = 0;
      for (const auto& in : r.instances)
        if (const std::string* v = in.category_of(axis); v && *v == value) ++count;
      Json e{{"count", count}};
      for (const auto& m : r.metrics) {
        Mean mean = mean_of(r, m.name, axis, value);
        e[m.name] = mean.n ? Json(mean.mean) : Json(nullptr);
      }
      per[value] = std::move(e);
      row(terminal_safe(axis + "=" + value, 40), axis, value, count);
    }
    cats[axis] = std::move(per);
  }
  s["by_category"] = std::move(cats);

  std::vector<std::string> head{"", "count"};
  for (const auto& m : r.metrics) head.push_back(terminal_safe(m.name, 20));
  std::vector<size_t> w(head.size(), 0);
  for (size_t c = 0; c < head.size(); ++c) w[c] = display_width(head[c]);
  for (const auto& cells : rows)
    for (size_t c = 0; c < cells.size(); ++c) w[c] = std::max(w[c], display_width(cells[c]));
  std::string text;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l = pad_right(cells[0], w[0]);
    for (size_t c = 1; c < cells.size(); ++c) l += "  " + pad_left(cells[c], w[c]);
    text += l + "\n";
  };
  line(head);
  for (const auto& cells : rows) line(cells);
  out.text = std::move(text);
  return out;
}

}  // namespace sqlgrade::runs
