// `sqlgrade diff`: paired comparison of two runs. See diff.hpp and docs/comparing-runs.md.
#include "sqlgrade/runs/diff.hpp"

#include <algorithm>
#include <map>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/categories.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/verify_record.hpp"

namespace sqlgrade::runs {

MetricDiff compare_metric(const std::vector<std::pair<const Instance*, const Instance*>>& pairs, const MetricDef& m,
                          bool primary, const BootstrapOptions& boot) {
  MetricDiff d;
  d.metric = m.name, d.kind = m.kind, d.primary = primary;
  std::vector<double> va, vb;
  for (const auto& [a, b] : pairs) {
    const double* sa = a->score(m.name);
    const double* sb = b->score(m.name);
    if (sa && sb) va.push_back(*sa), vb.push_back(*sb);
  }
  d.n = va.size();
  double sa = 0, sb = 0;
  for (size_t i = 0; i < va.size(); ++i) sa += va[i], sb += vb[i];
  if (d.n) d.mean_a = sa / static_cast<double>(d.n), d.mean_b = sb / static_cast<double>(d.n);
  d.ci = paired_bootstrap(va, vb, boot);
  if (m.kind == MetricKind::Binary) d.mcnemar = mcnemar_exact(va, vb);
  return d;
}

AgreementResult agreement_of(const RunRecord& r, const std::string& run, const std::string& x, const std::string& y) {
  const MetricDef* mx = r.metric(x);
  const MetricDef* my = r.metric(y);
  AgreementResult g;
  g.run = run, g.x = x, g.y = y;
  std::vector<double> vx, vy;
  for (const auto& in : r.instances) {
    const double* a = in.score(x);
    const double* b = in.score(y);
    if (a && b) vx.push_back(*a), vy.push_back(*b);
  }
  g.n = vx.size();
  if (mx && my && mx->kind == MetricKind::Binary && my->kind == MetricKind::Binary) g.binary = binary_agreement(vx, vy);
  else g.correlation = correlation(vx, vy);
  return g;
}

namespace {

std::string change_text(const Instance& a) {
  if (a.question && !a.question->empty()) return *a.question;
  if (a.gold_sql && !a.gold_sql->empty()) return *a.gold_sql;
  return a.pred_sql.value_or("");
}

// Multiple comparisons: each binary metric's McNemar tests over the values of one axis (by_category
// from `first` on) form one family, adjusted with Holm's procedure.
void holm_per_family(std::vector<CategoryDiff>& cats, size_t first, const std::vector<MetricDef>& metrics) {
  if (cats.size() - first < 2) return;
  for (size_t k = 0; k < metrics.size(); ++k) {
    if (metrics[k].kind != MetricKind::Binary) continue;
    std::vector<double> ps;
    for (size_t c = first; c < cats.size(); ++c) {
      const auto& mc = cats[c].metrics[k].mcnemar;
      ps.push_back(mc ? mc->p : 1.0);
    }
    const std::vector<double> adj = holm_adjust(ps);
    for (size_t c = first; c < cats.size(); ++c) {
      cats[c].metrics[k].p_holm = adj[c - first];
      cats[c].metrics[k].family = adj.size();
    }
  }
}

}  // namespace

DiffResult diff_runs(const NamedRun& a, const NamedRun& b, const DiffOptions& opt) {
  Aligned al = align_runs(a, b, opt.common_only);
  DiffResult d;
  d.file_a = a.file, d.file_b = b.file, d.label_a = run_labels({a, b})[0], d.label_b = run_labels({a, b})[1];
  d.benchmark = a.run->benchmark;
  d.n_a = a.run->instances.size(), d.n_b = b.run->instances.size(), d.n_aligned = al.pairs.size();
  d.only_a = al.only_a, d.only_b = al.only_b, d.notes = al.notes, d.gold_checked = al.gold_checked;
  d.bootstrap = opt.bootstrap;

  const std::vector<MetricDef> metrics = common_metrics(*a.run, *b.run);
  if (metrics.empty()) throw InputError(b.file, "no metric in common with " + a.file + " (same name and kind)");
  d.primary = a.run->primary_metric;
  if (!b.run->metric(d.primary) || std::none_of(metrics.begin(), metrics.end(), [&](const MetricDef& m) { return m.name == d.primary; }))
    d.primary = metrics.front().name;
  for (const auto& m : metrics) d.overall.push_back(compare_metric(al.pairs, m, m.name == d.primary, opt.bootstrap));
  const auto va = verify_status_counts(*a.run), vb = verify_status_counts(*b.run);
  std::map<std::string, VerifyClassCount> classes;
  for (const auto& [s, n] : va) classes[s].status = s, classes[s].a = n;
  for (const auto& [s, n] : vb) classes[s].status = s, classes[s].b = n;
  for (auto& [s, c] : classes) d.verify_classes.push_back(c);

  const std::vector<std::string> axes = axes_of(*a.run);
  for (const auto& axis : opt.axes)
    if (std::find(axes.begin(), axes.end(), axis) == axes.end())
      throw InputError(a.file, "no instance has a category \"" + axis + "\" (--axis)");
  for (const auto& axis : axes) {
    if (!opt.axes.empty() && std::find(opt.axes.begin(), opt.axes.end(), axis) == opt.axes.end()) continue;
    // One pass over the pairs per axis (was one per value: quadratic in the distinct values).
    const ShownValues shown = shown_values(*a.run, axis);
    std::vector<std::vector<std::pair<const Instance*, const Instance*>>> sub(shown.values.size());
    for (const auto& p : al.pairs)
      if (const long pos = shown.position(*p.first, axis); pos >= 0) sub[static_cast<size_t>(pos)].push_back(p);
    for (size_t i = 0; i < shown.values.size(); ++i) {
      CategoryDiff c;
      c.axis = axis, c.value = shown.values[i];
      for (const auto& m : metrics) c.metrics.push_back(compare_metric(sub[i], m, m.name == d.primary, opt.bootstrap));
      d.by_category.push_back(std::move(c));
    }
    holm_per_family(d.by_category, d.by_category.size() - shown.values.size(), metrics);
    if (shown.omitted_values) d.notes.push_back(shown.note(axis));
  }
  for (const auto& [ia, ib] : al.pairs) {
    const double* sa = ia->score(d.primary);
    const double* sb = ib->score(d.primary);
    if (!sa || !sb || *sa == *sb) continue;
    Change c{ia->id, change_text(*ia), *sa, *sb, ia->failure_reason, ib->failure_reason};
    (*sb < *sa ? d.regressions : d.improvements).push_back(std::move(c));
  }
  auto by_size = [](const Change& x, const Change& y) {
    const double dx = std::abs(x.b - x.a), dy = std::abs(y.b - y.a);
    if (dx != dy) return dx > dy;
    return id_less(x.id, y.id);
  };
  std::stable_sort(d.regressions.begin(), d.regressions.end(), by_size);
  std::stable_sort(d.improvements.begin(), d.improvements.end(), by_size);

  if (opt.agree) {
    const auto& [x, y] = *opt.agree;
    for (const NamedRun* r : {&a, &b})
      for (const std::string& m : {x, y})
        if (!r->run->metric(m)) throw InputError(r->file, "--agree: metric \"" + m + "\" is not in this run");
    d.agreement.push_back(agreement_of(*a.run, "A", x, y));
    d.agreement.push_back(agreement_of(*b.run, "B", x, y));
  }
  return d;
}

namespace {

Json opt_num(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

Json metric_diff_json(const MetricDiff& m) {
  Json j{{"metric", m.metric}, {"kind", to_string(m.kind)}, {"primary", m.primary}, {"n", m.n},
         {"a", m.mean_a},      {"b", m.mean_b},              {"delta", m.ci.delta}};
  j["bootstrap"] = Json{{"lo", m.ci.lo}, {"hi", m.ci.hi}, {"confidence", m.ci.confidence},
                        {"resamples", m.ci.resamples}, {"seed", m.ci.seed}};
  if (m.mcnemar) j["mcnemar"] = Json{{"b", m.mcnemar->b}, {"c", m.mcnemar->c}, {"p", m.mcnemar->p}};
  if (m.mcnemar && m.p_holm) j["mcnemar"]["p_holm"] = *m.p_holm, j["mcnemar"]["family"] = m.family;
  return j;
}

Json diff_to_json(const DiffResult& d) {
  Json j;
  j["a"] = Json{{"file", d.file_a}, {"label", d.label_a}, {"instances", d.n_a}};
  j["b"] = Json{{"file", d.file_b}, {"label", d.label_b}, {"instances", d.n_b}};
  j["benchmark"] = d.benchmark;
  j["primary_metric"] = d.primary;
  j["aligned"] = d.n_aligned;
  j["only_a"] = d.only_a;
  j["only_b"] = d.only_b;
  j["gold_checked"] = d.gold_checked;
  j["notes"] = d.notes;
  Json ov = Json::array();
  for (const auto& m : d.overall) ov.push_back(metric_diff_json(m));
  j["overall"] = std::move(ov);
  Json cats = Json::array();
  for (const auto& c : d.by_category) {
    Json ms = Json::array();
    for (const auto& m : c.metrics) ms.push_back(metric_diff_json(m));
    cats.push_back(Json{{"axis", c.axis}, {"value", c.value}, {"metrics", std::move(ms)}});
  }
  j["by_category"] = std::move(cats);
  for (const auto* list : {&d.regressions, &d.improvements}) {
    Json arr = Json::array();
    for (const auto& c : *list) {
      Json e{{"id", c.id}, {"text", c.text}, {"a", c.a}, {"b", c.b}};
      if (c.reason_a) e["failure_reason_a"] = *c.reason_a;
      if (c.reason_b) e["failure_reason_b"] = *c.reason_b;
      arr.push_back(std::move(e));
    }
    j[list == &d.regressions ? "regressions" : "improvements"] = std::move(arr);
  }
  Json ag = Json::array();
  for (const auto& g : d.agreement) {
    Json e{{"run", g.run}, {"x", g.x}, {"y", g.y}, {"n", g.n}};
    if (g.binary)
      e["binary"] = Json{{"both", g.binary->n11}, {"x_only", g.binary->n10}, {"y_only", g.binary->n01},
                         {"neither", g.binary->n00}, {"agreement", g.binary->agreement}, {"kappa", opt_num(g.binary->kappa)}};
    if (g.correlation) e["correlation"] = Json{{"pearson", opt_num(g.correlation->pearson)}, {"spearman", opt_num(g.correlation->spearman)}};
    ag.push_back(std::move(e));
  }
  j["agreement"] = std::move(ag);
  Json vc = Json::object();
  for (const auto& c : d.verify_classes) vc[c.status] = Json{{"a", c.a}, {"b", c.b}};
  if (!d.verify_classes.empty()) j["verify_classes"] = std::move(vc);
  return j;
}

}  // namespace sqlgrade::runs
