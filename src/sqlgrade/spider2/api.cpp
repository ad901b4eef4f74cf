// The public entry points of include/sqlgrade/spider2.hpp over the run (run.cpp) and its outputs
// (report.cpp): what `sqlgrade spider2` does between parsing its flags and printing.
#include <filesystem>
#include <system_error>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/report.hpp"
#include "sqlgrade/spider2/run.hpp"

namespace sqlgrade::spider2 {

namespace {

constexpr auto kJsonReplace = nlohmann::json::error_handler_t::replace;

// evaluate_v2 scores with its own rule: with --v2 the ids file lists the v2-correct instances.
Run with_v2_scores(const Run& r) {
  Run v2r = r;
  for (auto& it : v2r.items) it.score = it.v2_error ? 0 : it.v2.score;
  return v2r;
}

}  // namespace

Run evaluate(const Options& opt) {
  // sql mode: <result_dir>_csv is checked before anything runs (write_outputs fills it).
  if (opt.mode == Mode::Sql) OutputDir::check(csv_dir_path(opt));
  Run r = run(opt);
  r.opt = opt;
  return r;
}

void write_outputs(const Run& r) {
  const Options& opt = r.opt;
  if (r.items.empty()) return;
  // The official script wipes <result_dir>_csv (shutil.rmtree, which refuses a symlink); we only
  // drop stale CSVs, and never through a symlink.
  if (opt.mode == Mode::Sql) {
    OutputDir csv_dir(csv_dir_path(opt));
    csv_dir.remove_files_ending_with(".csv");
    for (auto& it : r.items)
      if (it.result_csv) csv_dir.write(it.instance_id + ".csv", *it.result_csv);
  }
  if (!opt.v2) {
    write_file_atomic(ids_csv_path(opt), ids_csv(r));
    return;
  }
  write_file_atomic(ids_csv_path(opt), ids_csv(with_v2_scores(r)));
  write_file_atomic(v2_metrics_path(opt), v2_detailed_json(r).dump(2, ' ', false, kJsonReplace) + "\n");
  std::string log = v2_errors_log(r, opt);
  if (!log.empty() && !opt.errors_log.empty()) {
    std::string prev;
    std::error_code ec;
    if (std::filesystem::exists(opt.errors_log, ec)) prev = read_file(opt.errors_log);
    write_file_atomic(opt.errors_log, prev + log);  // appended, as logging filemode='a'
  }
}

std::string render_text(const Run& r) {
  if (r.items.empty()) return format_official(r, r.opt);
  std::string out = r.opt.v2 ? format_v2_summary(r, r.opt) : format_official(r, r.opt);
  if (r.opt.strict) out += format_strict(r);
  return out;
}

std::string render_json(const Run& r) { return scores_json(r, r.opt).dump(1, ' ', false, kJsonReplace) + "\n"; }

}  // namespace sqlgrade::spider2
