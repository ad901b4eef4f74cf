// The terminal table of `sqlgrade diff`. See diff.hpp.
#include <fmt/format.h>

#include <algorithm>

#include "sqlgrade/runs/diff.hpp"
#include "sqlgrade/runs/format.hpp"
#include "sqlgrade/runs/terminal.hpp"

namespace sqlgrade::runs {

namespace {

std::string num(double v) { return fixed_text(v); }
std::string score(double v, MetricKind k) { return k == MetricKind::Binary ? fmt::format("{:.0f}", v) : fmt::format("{:.3f}", v); }

constexpr size_t kMaxName = 24;

std::string header(const std::string& title, size_t w, double confidence) {
  return pad_right(title, w) + fmt::format("{:>6} {:>8} {:>8} {:>9}   {:<20} {:>11} {:>8}\n", "n", "A", "B", "delta",
                                           fmt::format("{:g}% CI", 100 * confidence), "b/c", "p");
}

// scale: the benchmark's printed scale (display_scale: BIRD in percent, 2 decimals there).
std::string metric_row(const std::string& name, const MetricDiff& m, size_t w, double scale) {
  const int dig = scale == 1 ? 4 : 2;
  std::string ci = m.n ? interval_text(scale * m.ci.lo, scale * m.ci.hi, dig) : "";
  std::string bc = m.mcnemar ? fmt::format("{}/{}", m.mcnemar->b, m.mcnemar->c) : "-";
  std::string p = m.mcnemar ? pvalue_text(m.mcnemar->p) : "-";
  const std::string holm = m.mcnemar && m.p_holm ? " (" + pvalue_text(*m.p_holm) + ")" : "";
  if (!m.n) return pad_right(name, w) + fmt::format("{:>6}   (no instance has this metric in both runs)\n", 0);
  return pad_right(name, w) + fmt::format("{:>6} {:>8} {:>8} {:>9}   {:<20} {:>11} {:>8}{}\n", m.n, fixed_text(scale * m.mean_a, dig),
                                          fixed_text(scale * m.mean_b, dig), signed_text(scale * m.ci.delta, dig), ci, bc, p, holm);
}

std::string change_list(const char* title, const std::vector<Change>& list, const DiffResult& d, MetricKind kind, size_t limit) {
  std::string o = fmt::format("{} on {}: {}\n", title, d.primary, list.size());
  if (list.empty()) return o + "\n";
  size_t idw = 2;
  const size_t shown = limit ? std::min(limit, list.size()) : list.size();
  for (size_t i = 0; i < shown; ++i) idw = std::max(idw, std::min<size_t>(display_width(terminal_safe(list[i].id)), 20));
  o += "  " + pad_right("id", idw) + fmt::format("  {:>6} {:>6}   {}\n", "A", "B", "question / gold SQL");
  for (size_t i = 0; i < shown; ++i) {
    const Change& c = list[i];
    o += "  " + pad_right(terminal_safe(c.id, 20), idw) +
         fmt::format("  {:>6} {:>6}   {}\n", score(c.a, kind), score(c.b, kind), terminal_safe(c.text, 72));
  }
  if (shown < list.size()) o += fmt::format("  … {} more (--list 0 shows all)\n", list.size() - shown);
  return o + "\n";
}

std::string category_title(const std::string& metric, const std::string& axis) {
  return terminal_safe(metric, kMaxName) + " by " + terminal_safe(axis, kMaxName);
}

std::string opt_num(const std::optional<double>& v) { return v ? num(*v) : "n/a"; }

}  // namespace

std::string render_diff_text(const DiffResult& d, size_t list_limit) {
  std::string o;
  const std::string la = terminal_safe(d.label_a, 40), lb = terminal_safe(d.label_b, 40);
  const size_t lw = std::max(display_width(la), display_width(lb));
  o += "A  " + pad_right(la, lw) + fmt::format("  {:>6} instances  {}\n", d.n_a, terminal_safe(d.file_a));
  o += "B  " + pad_right(lb, lw) + fmt::format("  {:>6} instances  {}\n", d.n_b, terminal_safe(d.file_b));
  o += fmt::format("{}: {} instances aligned by id", terminal_safe(d.benchmark, 40), d.n_aligned);
  if (!d.gold_checked.empty()) {
    o += "; identical gold inputs:";
    for (size_t i = 0; i < d.gold_checked.size(); ++i) o += (i ? ", " : " ") + terminal_safe(d.gold_checked[i], 60);
  }
  o += "\n";
  for (const auto& n : d.notes) o += "note: " + terminal_safe(n) + "\n";
  o += "\n";

  size_t w = 12;
  for (const auto& m : d.overall) w = std::max(w, display_width(terminal_safe(m.metric, kMaxName)) + 3);
  for (const auto& c : d.by_category) {
    w = std::max(w, display_width(terminal_safe(c.value, kMaxName - 2)) + 3);
    for (const auto& m : d.overall) w = std::max(w, display_width(category_title(m.metric, c.axis)) + 1);
  }
  w = std::min(w, 2 * kMaxName);

  o += header("Overall", w, d.bootstrap.confidence);
  for (const auto& m : d.overall)
    o += metric_row(terminal_safe(m.metric, kMaxName) + (m.primary ? " *" : ""), m, w, display_scale(d.benchmark, m.metric));
  for (size_t i = 0; i < d.by_category.size();) {
    const std::string& axis = d.by_category[i].axis;
    size_t j = i;
    while (j < d.by_category.size() && d.by_category[j].axis == axis) ++j;
    for (size_t k = 0; k < d.overall.size(); ++k) {
      o += "\n" + header(category_title(d.overall[k].metric, axis), w, d.bootstrap.confidence);
      for (size_t c = i; c < j; ++c)
        o += metric_row("  " + terminal_safe(d.by_category[c].value, kMaxName - 2), d.by_category[c].metrics[k], w,
                        display_scale(d.benchmark, d.overall[k].metric));
      if (d.overall[k].kind == MetricKind::Binary && j - i > 1)
        o += fmt::format("  ({} tests in this table; in parentheses the p-value after Holm's correction for {} comparisons)\n",
                         j - i, j - i);
    }
    i = j;
  }
  o += fmt::format(
      "\n* primary metric; delta = B - A.\n{:g}% CI: paired bootstrap of the mean difference ({} resamples, seed {}, "
      "percentile interval).\np: McNemar's exact test (binary metrics); b = A right & B wrong, c = A wrong & B right.\n{}\n",
      100 * d.bootstrap.confidence, d.bootstrap.resamples, d.bootstrap.seed,
      d.benchmark == "bird" ? "ex, soft_f1, em_f1: in percent (0-100), as BIRD's official table prints them.\n" : "");

  if (!d.verify_classes.empty()) {  // verified records: every class of the search, counted per run
    o += "Verification (matches per status; only \"refuted\" costs verified_ex)\n";
    for (const auto& c : d.verify_classes)
      o += fmt::format("  {:<20} {:>8} {:>8} {:>9}\n", terminal_safe(c.status, 20), c.a, c.b,
                       fmt::format("{:+d}", static_cast<long>(c.b) - static_cast<long>(c.a)));
    o += "\n";
  }
  MetricKind pk = MetricKind::Binary;
  for (const auto& m : d.overall)
    if (m.primary) pk = m.kind;
  o += change_list("Regressions (B below A)", d.regressions, d, pk, list_limit);
  o += change_list("Improvements (B above A)", d.improvements, d, pk, list_limit);

  for (const auto& g : d.agreement) {
    if (&g == &d.agreement.front()) {
      o += fmt::format("Agreement between {} and {} within each run\n", terminal_safe(g.x, 30), terminal_safe(g.y, 30));
      if (g.binary)
        o += fmt::format("  {:<4} {:>6} {:>8} {:>10} {:>10} {:>8} {:>10} {:>8}\n", "run", "n", "both 1", "x only", "y only",
                         "both 0", "agreement", "kappa");
      else
        o += fmt::format("  {:<4} {:>6} {:>10} {:>10}\n", "run", "n", "pearson", "spearman");
    }
    if (g.binary)
      o += fmt::format("  {:<4} {:>6} {:>8} {:>10} {:>10} {:>8} {:>10} {:>8}\n", g.run, g.n, g.binary->n11, g.binary->n10,
                       g.binary->n01, g.binary->n00, num(g.binary->agreement), opt_num(g.binary->kappa));
    else if (g.correlation)
      o += fmt::format("  {:<4} {:>6} {:>10} {:>10}\n", g.run, g.n, opt_num(g.correlation->pearson), opt_num(g.correlation->spearman));
  }
  if (!d.agreement.empty()) o += "  (x = " + terminal_safe(d.agreement[0].x, 30) + ", y = " + terminal_safe(d.agreement[0].y, 30) + ")\n";
  return o;
}

}  // namespace sqlgrade::runs
