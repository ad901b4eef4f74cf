// The data of `sqlgrade report`. See report.hpp; the page's script (report.js) renders it.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/categories.hpp"
#include "sqlgrade/runs/diff.hpp"
#include "sqlgrade/runs/format.hpp"
#include "sqlgrade/runs/html/report.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/runs/sql_features.hpp"
#include "sqlgrade/runs/verify_record.hpp"
#include "sqlgrade/version.hpp"

namespace sqlgrade::runs {

namespace {

Json nullable(const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); }

// The numbers of one comparison row as the page prints them: formatted here with diff's rule
// (format.hpp) on the benchmark's scale, so that the page and `sqlgrade diff` agree digit for digit.
Json metric_texts(const MetricDiff& m, double scale) {
  Json j = metric_diff_json(m);
  const int dig = scale == 1 ? 4 : 2;
  Json t{{"a", fixed_text(scale * m.mean_a, dig)}, {"b", fixed_text(scale * m.mean_b, dig)},
         {"delta", signed_text(scale * m.ci.delta, dig)}, {"ci", m.n ? interval_text(scale * m.ci.lo, scale * m.ci.hi, dig) : "–"},
         {"sig", m.n > 0 && excludes_zero(m.ci.lo, m.ci.hi)}};
  if (m.mcnemar) t["p"] = pvalue_text(m.mcnemar->p);
  if (m.mcnemar && m.p_holm) t["p_holm"] = pvalue_text(*m.p_holm), t["family"] = m.family;
  j["text"] = std::move(t);
  return j;
}

// A single run's mean with a percentile bootstrap interval (the same resampling as diff's, of the
// scores themselves): the headline of a run shown alone still says how precise it is.
Json headline_json(const RunRecord& r, const MetricDef& m, const BootstrapOptions& boot, bool with_ci) {
  std::vector<double> v;
  for (const auto& in : r.instances)
    if (const double* x = in.score(m.name)) v.push_back(*x);
  if (v.empty()) return Json{{"n", 0}, {"mean", nullptr}, {"text", "–"}};
  const double scale = display_scale(r.benchmark, m.name);
  const int dig = scale == 1 ? 4 : 2;
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  Json j{{"n", v.size()}, {"mean", mean}, {"text", fixed_text(scale * mean, dig)}};
  if (with_ci) {
    const BootstrapCI ci = paired_bootstrap(std::vector<double>(v.size(), 0.0), v, boot);
    j["lo"] = ci.lo, j["hi"] = ci.hi;
    j["ci_text"] = "[" + fixed_text(scale * ci.lo, dig) + ", " + fixed_text(scale * ci.hi, dig) + "]";
  }
  return j;
}

Json run_json(const NamedRun& nr, const std::string& label, const std::vector<MetricDef>& metrics, const std::string& primary,
              const BootstrapOptions& boot) {
  const RunRecord& r = *nr.run;
  Json j;
  j["label"] = label;
  j["file"] = nr.file;
  j["system"] = r.system;
  j["benchmark"] = r.benchmark;
  j["n"] = r.instances.size();
  j["primary"] = r.primary_metric;
  j["started_at"] = r.started_at;
  j["wall_s"] = r.wall_s;
  j["tool_version"] = r.tool_version;
  Json eng = Json::object();
  for (const auto& [k, v] : r.engines) eng[k] = v;
  j["engines"] = std::move(eng);
  j["machine"] = Json{{"host", r.machine.host}, {"os", r.machine.os}, {"cores", r.machine.cores}};
  j["timeout_s"] = r.timeout_s ? Json(*r.timeout_s) : Json(nullptr);
  j["options"] = r.options;
  j["command"] = r.command;
  Json ins = Json::array();
  for (const auto& in : r.inputs) ins.push_back(Json{{"role", in.role}, {"path", in.path}, {"sha256", nullable(in.sha256)}});
  j["inputs"] = std::move(ins);
  Json head = Json::object();
  for (const auto& m : metrics) head[m.name] = headline_json(r, m, boot, m.name == primary);
  j["headline"] = std::move(head);
  j["summary_text"] = nullable(r.summary_text);
  j["warnings"] = r.warnings;
  if (r.shard) j["shard"] = to_string(*r.shard);
  if (r.summary.is_object() && r.summary.contains("verify")) j["verify_summary"] = r.summary["verify"];  // report_verify.js
  return j;
}

Json instance_run_json(const Instance& in) {
  Json j;
  Json s = Json::object();
  for (const auto& [m, v] : in.scores) s[m] = v;
  j["s"] = std::move(s);
  j["pred"] = nullable(in.pred_sql);
  j["fail"] = nullable(in.failure_reason);
  j["t"] = in.time_s ? Json(*in.time_s) : Json(nullptr);
  if (!in.rows.is_null()) j["rows"] = in.rows;
  if (!in.columns.is_null()) j["cols"] = in.columns;
  if (const Json* v = verify_detail(in)) j["verify"] = *v;  // --verify records (report_verify.js)
  // UDA: the first matched rows' scored cells, gold and submitted side by side with their scores.
  if (in.detail.is_object() && in.detail.contains("cells") && in.detail["cells"].is_object()) j["cells"] = in.detail["cells"];
  return j;
}

// Per-(dataset, column) mean precision/recall/F1 over the instances that report the column.
Json uda_columns(const std::vector<NamedRun>& runs) {
  struct Acc {
    size_t n = 0;
    double p = 0, r = 0, f = 0;
  };
  std::vector<std::pair<std::string, std::string>> order;
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<std::map<std::pair<std::string, std::string>, Acc>> per_run(runs.size());
  for (size_t k = 0; k < runs.size(); ++k)
    for (const auto& in : runs[k].run->instances) {
      if (!in.columns.is_object()) continue;
      const std::string* ds = in.category_of("dataset");
      const std::string group = ds ? *ds : "all";
      for (auto it = in.columns.begin(); it != in.columns.end(); ++it) {
        auto key = std::make_pair(group, it.key());
        if (seen.insert(key).second) order.push_back(key);
        Acc& a = per_run[k][key];
        ++a.n;
        a.p += (*it)["precision"].get<double>(), a.r += (*it)["recall"].get<double>(), a.f += (*it)["f1"].get<double>();
      }
    }
  if (order.empty()) return nullptr;
  std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
    if (x.first != y.first) return id_less(x.first, y.first);
    return id_less(x.second, y.second);
  });
  Json rows = Json::array();
  for (const auto& key : order) {
    Json per = Json::array();
    for (size_t k = 0; k < runs.size(); ++k) {
      auto it = per_run[k].find(key);
      if (it == per_run[k].end()) {
        per.push_back(nullptr);
        continue;
      }
      const double n = static_cast<double>(it->second.n);
      per.push_back(Json{{"n", it->second.n}, {"precision", it->second.p / n}, {"recall", it->second.r / n}, {"f1", it->second.f / n}});
    }
    rows.push_back(Json{{"group", key.first}, {"column", key.second}, {"runs", std::move(per)}});
  }
  return rows;
}

// Category means per run: one pass over each run's instances per axis (was one pass per value:
// quadratic in the number of distinct values), at most kMaxCategoryValues values per axis.
Json category_axes(const std::vector<NamedRun>& runs, const RunRecord& base, const std::vector<MetricDef>& metrics) {
  Json axes = Json::array();
  for (const auto& axis : axes_of(base)) {
    const ShownValues shown = shown_values(base, axis);
    struct Cell {
      size_t count = 0;
      std::vector<Mean> means;
    };
    std::vector<std::vector<Cell>> cells(runs.size(), std::vector<Cell>(shown.values.size(), Cell{0, std::vector<Mean>(metrics.size())}));
    for (size_t k = 0; k < runs.size(); ++k)
      for (const auto& in : runs[k].run->instances) {
        const long pos = shown.position(in, axis);
        if (pos < 0) continue;
        Cell& c = cells[k][static_cast<size_t>(pos)];
        ++c.count;
        for (size_t m = 0; m < metrics.size(); ++m)
          if (const double* v = in.score(metrics[m].name)) c.means[m].mean += *v, ++c.means[m].n;
      }
    Json rows = Json::array();
    for (size_t i = 0; i < shown.values.size(); ++i) {
      Json per = Json::array();
      for (size_t k = 0; k < runs.size(); ++k) {
        const Cell& c = cells[k][i];
        Json e = Json::object();
        e["count"] = c.count;
        for (size_t m = 0; m < metrics.size(); ++m)
          e[metrics[m].name] = c.means[m].n ? Json(c.means[m].mean / static_cast<double>(c.means[m].n)) : Json(nullptr);
        per.push_back(std::move(e));
      }
      rows.push_back(Json{{"value", shown.values[i]}, {"runs", std::move(per)}});
    }
    Json ax{{"name", axis}, {"rows", std::move(rows)}};
    if (shown.omitted_values) ax["note"] = shown.note(axis);
    axes.push_back(std::move(ax));
  }
  return axes;
}

// Which of the instances (id order) the page lists: all up to kMaxReportInstances; beyond it those whose
// primary score differs between the runs first (what one drills into), then the others in id order.
std::vector<char> listed_instances(const std::vector<const Instance*>& ids,
                                   const std::vector<std::unordered_map<std::string, const Instance*>>& index,
                                   const std::string& primary) {
  std::vector<char> listed(ids.size(), ids.size() <= kMaxReportInstances);
  if (ids.size() <= kMaxReportInstances) return listed;
  size_t n = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < ids.size() && n < kMaxReportInstances; ++i) {
      if (listed[i]) continue;
      const double* s0 = ids[i]->score(primary);
      bool changed = false;
      for (size_t k = 1; k < index.size(); ++k) {
        const double* sk = index[k].at(ids[i]->id)->score(primary);
        changed = changed || (s0 == nullptr) != (sk == nullptr) || (s0 && sk && *s0 != *sk);
      }
      if (pass == 1 || changed) listed[i] = 1, ++n;
    }
  return listed;
}

// The breakdown by SQL feature of the gold query: per feature, each run's instance count and mean.
Json features_json(const std::map<std::string, std::vector<double>>& feat_sum, const std::map<std::string, std::vector<size_t>>& feat_n,
                   size_t n_runs) {
  Json rows = Json::array();
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& fi : sql_features()) order.emplace_back(fi.name, fi.label);
  order.emplace_back("none", "None of these");
  for (const auto& [name, label] : order) {
    auto it = feat_n.find(name);
    if (it == feat_n.end()) continue;
    Json means = Json::array(), counts = Json::array();
    for (size_t k = 0; k < n_runs; ++k) {
      counts.push_back(it->second[k]);
      means.push_back(it->second[k] ? Json(feat_sum.at(name)[k] / static_cast<double>(it->second[k])) : Json(nullptr));
    }
    rows.push_back(Json{{"feature", name}, {"label", label}, {"n", std::move(counts)}, {"means", std::move(means)}});
  }
  return rows;
}

// Each run against the first: diff's statistics, formatted as diff prints them (metric_texts).
Json comparisons_json(const std::vector<NamedRun>& runs, const ReportOptions& opt) {
  const RunRecord& base = *runs.front().run;
  Json comps = Json::array();
  for (size_t k = 1; k < runs.size(); ++k) {
    DiffOptions o;
    o.bootstrap = opt.bootstrap, o.common_only = opt.common_only;
    DiffResult dr = diff_runs(runs.front(), runs[k], o);
    Json overall = Json::array(), cats = Json::array();
    for (const auto& m : dr.overall) overall.push_back(metric_texts(m, display_scale(base.benchmark, m.metric)));
    for (const auto& c : dr.by_category) {
      Json ms = Json::array();
      for (const auto& m : c.metrics) ms.push_back(metric_texts(m, display_scale(base.benchmark, m.metric)));
      cats.push_back(Json{{"axis", c.axis}, {"value", c.value}, {"metrics", std::move(ms)}});
    }
    comps.push_back(Json{{"a", 0}, {"b", k}, {"overall", std::move(overall)}, {"by_category", std::move(cats)},
                         {"regressed", dr.regressions.size()}, {"improved", dr.improvements.size()}, {"notes", dr.notes}});
  }
  return comps;
}

using RunIndex = std::vector<std::unordered_map<std::string, const Instance*>>;

// The metrics every run declares with the same kind, in the first run's order; InputError when none.
std::vector<MetricDef> common_metrics(const std::vector<NamedRun>& runs) {
  std::vector<MetricDef> metrics;
  for (const auto& m : runs.front().run->metrics) {
    bool everywhere = true;
    for (size_t k = 1; k < runs.size(); ++k) {
      const MetricDef* o = runs[k].run->metric(m.name);
      everywhere = everywhere && o && o->kind == m.kind;
    }
    if (everywhere) metrics.push_back(m);
  }
  if (metrics.empty()) throw InputError(runs.back().file, "no metric in common with " + runs.front().file);
  return metrics;
}

// --title, else "<benchmark>: A vs B vs …".
std::string report_title(const std::vector<NamedRun>& runs, const std::vector<std::string>& labels, const ReportOptions& opt) {
  if (!opt.title.empty()) return opt.title;
  std::string title = runs.front().run->benchmark + ":";
  for (size_t k = 0; k < runs.size(); ++k) title += (k ? " vs " : " ") + labels[k];
  return title;
}

// The baseline's instances that every run has (shared ids only with --common), in natural id order.
std::vector<const Instance*> shared_instances(const std::vector<NamedRun>& runs, const RunIndex& index) {
  std::vector<const Instance*> ids;
  for (const auto& in : runs.front().run->instances) {
    bool everywhere = true;
    for (size_t k = 1; k < runs.size(); ++k) everywhere = everywhere && index[k].count(in.id);
    if (everywhere) ids.push_back(&in);
  }
  std::sort(ids.begin(), ids.end(), [](const Instance* x, const Instance* y) { return id_less(x->id, y->id); });
  return ids;
}

// Per SQL feature of the gold query: each run's sum and count of primary scores.
struct FeatureScores {
  std::map<std::string, std::vector<double>> sum;
  std::map<std::string, std::vector<size_t>> n;
  bool any_gold_sql = false;
};

// One instance's row: question, gold SQL (the first run that has one), categories, each run's outcome
// and, for text-to-SQL, the gold's SQL features (their primary scores added to `feats`).
Json instance_json(const Instance& b, RunIndex& index, const std::string& primary, bool text_to_sql, FeatureScores& feats) {
  const size_t n_runs = index.size();
  Json j;
  j["id"] = b.id;
  j["q"] = nullable(b.question);
  std::optional<std::string> gold = b.gold_sql;
  for (size_t k = 1; k < n_runs && !gold; ++k) gold = index[k][b.id]->gold_sql;
  j["gold"] = nullable(gold);
  Json cat = Json::object();
  for (const auto& [a, v] : b.category) cat[a] = v;
  j["cat"] = std::move(cat);
  Json per = Json::array();
  for (size_t k = 0; k < n_runs; ++k) per.push_back(instance_run_json(*index[k][b.id]));
  j["runs"] = std::move(per);
  if (text_to_sql && gold && !gold->empty()) {
    feats.any_gold_sql = true;
    std::vector<std::string> names = feature_names(classify_sql(*gold));
    if (names.empty()) names.push_back("none");
    j["feat"] = names;
    for (const auto& f : names) {
      auto& s = feats.sum[f];
      auto& n = feats.n[f];
      s.resize(n_runs), n.resize(n_runs);
      for (size_t k = 0; k < n_runs; ++k)
        if (const double* v = index[k][b.id]->score(primary)) s[k] += *v, ++n[k];
    }
  }
  return j;
}

// "instances_total", "instances_note" (when some are not listed), "instances" and "features".
void add_instances(Json& d, const std::vector<NamedRun>& runs, const std::string& primary) {
  RunIndex index(runs.size());
  for (size_t k = 0; k < runs.size(); ++k)
    for (const auto& in : runs[k].run->instances) index[k].emplace(in.id, &in);
  const std::vector<const Instance*> ids = shared_instances(runs, index);
  const std::vector<char> listed = listed_instances(ids, index, primary);
  const bool text_to_sql = runs.front().run->benchmark != "uda";
  FeatureScores feats;
  Json insts = Json::array();
  for (size_t i = 0; i < ids.size(); ++i) {
    Json j = instance_json(*ids[i], index, primary, text_to_sql, feats);
    if (listed[i]) insts.push_back(std::move(j));
  }
  d["instances_total"] = ids.size();
  if (insts.size() < ids.size())
    d["instances_note"] = std::to_string(ids.size() - insts.size()) + " of " + std::to_string(ids.size()) +
                          " instances are not listed: the page lists at most " + std::to_string(kMaxReportInstances) +
                          ", those whose " + primary + " differs between the runs first, then in id order";
  d["instances"] = std::move(insts);
  d["features"] = feats.any_gold_sql ? features_json(feats.sum, feats.n, runs.size()) : Json(nullptr);
}

}  // namespace

Json report_data(const std::vector<NamedRun>& runs, const ReportOptions& opt) {
  if (runs.empty()) throw InputError("report", "no run given");
  const RunRecord& base = *runs.front().run;
  // Comparability (benchmark, gold, ids) of every run with the first; throws InputError.
  for (size_t k = 1; k < runs.size(); ++k) align_runs(runs.front(), runs[k], opt.common_only);
  const std::vector<MetricDef> metrics = common_metrics(runs);
  std::string primary = base.primary_metric;
  if (std::none_of(metrics.begin(), metrics.end(), [&](const MetricDef& m) { return m.name == primary; })) primary = metrics.front().name;

  Json d;
  const std::vector<std::string> labels = run_labels(runs);
  d["title"] = report_title(runs, labels, opt);
  d["generated_by"] = std::string("sqlgrade ") + SQLGRADE_VERSION;
  d["generated_at"] = utc_now_iso8601();
  d["benchmark"] = base.benchmark;
  d["primary"] = primary;
  Json ms = Json::array();
  for (const auto& m : metrics) ms.push_back(Json{{"name", m.name}, {"kind", to_string(m.kind)}, {"label", m.label}});
  d["metrics"] = std::move(ms);
  Json rs = Json::array();
  for (size_t k = 0; k < runs.size(); ++k) rs.push_back(run_json(runs[k], labels[k], metrics, primary, opt.bootstrap));
  Json scale = Json::object();
  for (const auto& m : metrics) scale[m.name] = display_scale(base.benchmark, m.name);
  d["scale"] = std::move(scale);
  d["runs"] = std::move(rs);
  add_instances(d, runs, primary);
  d["axes"] = category_axes(runs, base, metrics);
  d["comparisons"] = comparisons_json(runs, opt);
  d["bootstrap"] = Json{{"resamples", opt.bootstrap.resamples}, {"seed", opt.bootstrap.seed}, {"confidence", opt.bootstrap.confidence}};
  d["uda_columns"] = uda_columns(runs);
  return d;
}

}  // namespace sqlgrade::runs
