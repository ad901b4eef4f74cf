#pragma once
// Comparing two runs instance by instance (`sqlgrade diff`, and the report's comparisons).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sqlgrade/runs/align.hpp"
#include "sqlgrade/runs/stats.hpp"

namespace sqlgrade::runs {

struct DiffOptions {
  BootstrapOptions bootstrap;
  bool common_only = false;
  std::vector<std::string> axes;  // category axes to compare (empty: all)
  std::optional<std::pair<std::string, std::string>> agree;  // two metrics of one run
};

struct MetricDiff {
  std::string metric;
  MetricKind kind = MetricKind::Binary;
  bool primary = false;
  size_t n = 0;  // pairs where both runs have the metric
  double mean_a = 0, mean_b = 0;
  BootstrapCI ci;                 // of mean(B - A)
  std::optional<McNemar> mcnemar;  // binary metrics
  // Per-category rows: McNemar's p after Holm's correction over the values of the axis (one family per
  // axis and metric), set when the axis has two or more values.
  std::optional<double> p_holm;
  size_t family = 0;  // the number of tests in that family
};

struct CategoryDiff {
  std::string axis, value;
  std::vector<MetricDiff> metrics;
};

// An instance whose primary score went down (regression) or up (improvement) from A to B.
struct Change {
  std::string id, text;  // text: question, else gold SQL, else A's prediction
  double a = 0, b = 0;
  std::optional<std::string> reason_a, reason_b;
};

struct AgreementResult {
  std::string run;  // "A" or "B"
  std::string x, y;
  size_t n = 0;
  std::optional<BinaryAgreement> binary;  // both metrics binary
  std::optional<Correlation> correlation;  // otherwise
};

// Verified records (--verify): the matches of each run per verification status, every class by name
// (refuted = clean refutations, gold_suspect, edge, tie, no_counterexample, skipped, ...).
struct VerifyClassCount {
  std::string status;
  size_t a = 0, b = 0;
};
struct DiffResult {
  std::string file_a, file_b, label_a, label_b, benchmark, primary;
  size_t n_a = 0, n_b = 0, n_aligned = 0, only_a = 0, only_b = 0;
  std::vector<std::string> notes, gold_checked;
  BootstrapOptions bootstrap;
  std::vector<MetricDiff> overall;
  std::vector<CategoryDiff> by_category;
  std::vector<Change> regressions, improvements;
  std::vector<AgreementResult> agreement;
  std::vector<VerifyClassCount> verify_classes;  // empty when neither run was verified
};

// InputError (naming a file) when the runs cannot be compared or --agree names an unknown metric.
DiffResult diff_runs(const NamedRun& a, const NamedRun& b, const DiffOptions& opt);
// Statistics of one metric over aligned pairs (used by diff_runs and the report).
MetricDiff compare_metric(const std::vector<std::pair<const Instance*, const Instance*>>& pairs, const MetricDef& m,
                          bool primary, const BootstrapOptions& boot);
AgreementResult agreement_of(const RunRecord& r, const std::string& run, const std::string& x, const std::string& y);

Json diff_to_json(const DiffResult& d);
Json metric_diff_json(const MetricDiff& m);
// The terminal table (diff_text.cpp): at most list_limit regressions and improvements each
// (0 = all).
std::string render_diff_text(const DiffResult& d, size_t list_limit);

}  // namespace sqlgrade::runs
