// The public entry points of include/sqlgrade/runs.hpp: what `sqlgrade diff`, `report` and `merge` do
// between parsing their flags and printing or writing.
#include "sqlgrade/core/digest.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs.hpp"
#include "sqlgrade/runs/diff.hpp"
#include "sqlgrade/runs/html/report.hpp"
#include "sqlgrade/runs/merge.hpp"
#include "sqlgrade/runs/record.hpp"

namespace sqlgrade::runs {

namespace {

void check_bootstrap(size_t resamples) {
  if (resamples < 1 || resamples > 1000000) throw InputError("--bootstrap", "must be between 1 and 1000000");
}

// Refuses, before any work, an output that would replace one of the inputs (role: the flag naming
// them); "" = no output.
void check_output(const std::string& output, const char* flag, const std::vector<std::string>& inputs, const char* role) {
  if (output.empty()) return;
  std::vector<IoPath> in;
  for (const auto& p : inputs) in.push_back({p, role});
  check_outputs_spare_inputs({{output, flag}}, in);
}

void write_output(const std::string& output, const std::string& content) {
  if (!output.empty()) write_file_atomic(output, content);
}

}  // namespace

Diff diff_files(const DiffFilesOptions& a) {
  if (!a.json_out.empty())
    check_outputs_spare_inputs({{a.json_out, "--json-out"}}, {{a.a, "RUN_A"}, {a.b, "RUN_B"}});
  check_bootstrap(a.bootstrap);
  if (!(a.confidence > 0 && a.confidence < 1)) throw InputError("--confidence", "must be between 0 and 1 (e.g. 0.95)");
  DiffOptions opt;
  opt.bootstrap.resamples = a.bootstrap, opt.bootstrap.seed = a.seed, opt.bootstrap.confidence = a.confidence;
  opt.common_only = a.common, opt.axes = a.axes;
  if (!a.agree.empty()) {
    size_t comma = a.agree.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == a.agree.size())
      throw InputError("--agree", "expected two metrics separated by a comma, e.g. exec,exact");
    opt.agree = std::make_pair(a.agree.substr(0, comma), a.agree.substr(comma + 1));
  }
  const RunRecord ra = read_run_record(a.a);
  const RunRecord rb = read_run_record(a.b);
  const DiffResult d = diff_runs(NamedRun{a.a, &ra}, NamedRun{a.b, &rb}, opt);
  Diff out;
  out.json = diff_to_json(d).dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
  out.text = render_diff_text(d, a.list);
  write_output(a.json_out, out.json);
  return out;
}

Report report_files(const ReportFilesOptions& a) {
  check_output(a.output, "--output", a.runs, "RUNS");
  check_bootstrap(a.bootstrap);
  std::vector<RunRecord> records;
  records.reserve(a.runs.size());
  for (const auto& f : a.runs) records.push_back(read_run_record(f));
  std::vector<NamedRun> named;
  for (size_t i = 0; i < records.size(); ++i) named.push_back(NamedRun{a.runs[i], &records[i]});
  ReportOptions opt;
  opt.bootstrap.resamples = a.bootstrap, opt.bootstrap.seed = a.seed, opt.common_only = a.common, opt.title = a.title;
  Report out;
  out.html = render_report(named, opt);
  out.runs = records.size();
  out.instances = records.empty() ? 0 : records.front().instances.size();
  write_output(a.output, out.html);
  return out;
}

Merged merge_files(const std::vector<std::string>& files, const std::vector<std::string>& command,
                   const std::string& output) {
  check_output(output, "--output", files, "PARTS");
  std::vector<MergeInput> parts;
  for (const auto& f : files) parts.push_back(MergeInput{f, read_run_record(f), sha256_file(f)});
  const size_t n_parts = parts.size();
  RunRecord merged = merge_runs(std::move(parts), command);
  Merged out;
  out.summary_text = merged.summary_text;
  out.parts = n_parts;
  out.instances = merged.instances.size();
  out.record = render_run_record(std::move(merged));
  write_output(output, out.record);
  return out;
}

}  // namespace sqlgrade::runs
