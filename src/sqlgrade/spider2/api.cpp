// The public entry points of include/sqlgrade/spider2.hpp over the run (run.cpp) and its outputs
// (report.cpp): what `sqlgrade spider2` does between parsing its flags and printing.
#include <chrono>
#include <filesystem>
#include <map>
#include <system_error>

#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/report.hpp"
#include "sqlgrade/spider2/run.hpp"

namespace sqlgrade::spider2 {

namespace fs = std::filesystem;

std::vector<IoPath> run_inputs(const Options& opt, const std::vector<std::string>& result_dirs) {
  std::vector<IoPath> in;
  for (const auto& d : result_dirs) in.push_back({d, "--result_dir", {opt.mode == Mode::Sql ? ".sql" : ".csv"}});
  in.push_back({opt.gold_dir, "--gold_dir"});
  if (opt.mode == Mode::Sql) in.push_back({default_db_dir(opt), "--db_dir", {".sqlite"}});
  in.push_back({default_meta_path(opt), "--meta"});
  return in;
}

namespace {

constexpr auto kJsonReplace = nlohmann::json::error_handler_t::replace;

// What write_outputs (and the caller) will write or replace for these result folders.
std::vector<IoPath> output_paths(const Options& opt, const std::vector<std::string>& result_dirs) {
  std::vector<IoPath> out;
  for (const auto& d : result_dirs) {
    Options o = opt;
    o.result_dir = d;
    out.push_back({ids_csv_path(o), "--result_dir (its -ids.csv)"});
    if (opt.mode == Mode::Sql)
      for (auto& f : files_ending_with(csv_dir_path(o), ".csv")) out.push_back({f, "--result_dir (its _csv folder)"});
    if (opt.v2) out.push_back({v2_metrics_path(o), "--v2 (-detailed-metrics.json)"});
  }
  if (opt.v2 && !opt.errors_log.empty()) out.push_back({opt.errors_log, "--errors_log"});
  for (const auto& f : opt.also_written) out.push_back({f, "--json"});
  return out;
}

}  // namespace

Mode mode_from_name(const std::string& s) {
  if (s == "sql") return Mode::Sql;
  if (s == "exec_result") return Mode::ExecResult;
  throw InputError("--mode", s + " not in {sql,exec_result}");  // the wording of the CLI's member check
}

Run evaluate(const Options& opt) {
  std::vector<Run> runs = evaluate_many(opt, {opt.result_dir});
  return std::move(runs.front());
}

std::vector<Run> evaluate_many(const Options& opt, const std::vector<std::string>& result_dirs) {
  if (result_dirs.empty()) throw InputError("--result_dir", "no result folder given");
  const sql_clock::ClockScope clock(opt.now, "--now");  // every query of the pass reads this clock
  runs::shard_spec(opt.shard, opt.shard_by);  // a bad --shard/--shard-by: before anything runs
  // Each system's outputs are named after its --result_dir (<dir>_csv/, <dir>-ids.csv,
  // <dir>-detailed-metrics.json): two spellings of one folder would overwrite each other's.
  std::map<std::string, std::string> seen;
  for (auto& d : result_dirs) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(d, ec), ec);
    std::string key = (p.has_filename() ? p : p.parent_path()).string();
    if (d.empty() || d.back() == '/') key += "/";  // "a/" writes a/_csv, inside the folder
    auto [it, fresh] = seen.emplace(key, d);
    if (!fresh) throw InputError(d, "given twice as --result_dir (also as '" + it->second + "'): their outputs would collide");
  }
  // sql mode: each <result_dir>_csv is checked before anything runs (write_outputs fills it).
  if (opt.mode == Mode::Sql)
    for (auto& d : result_dirs) {
      Options o = opt;
      o.result_dir = d;
      OutputDir::check(csv_dir_path(o));
    }
  check_outputs_spare_inputs(output_paths(opt, result_dirs), run_inputs(opt, result_dirs));
  const std::string started = runs::utc_now_iso8601();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Run> out = run_many(opt, result_dirs);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (auto& r : out) r.started_at = started, r.wall_s = wall;
  return out;
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
  // evaluate_v2 scores with its own rule: with --v2 the ids file lists the v2-correct instances.
  write_file_atomic(ids_csv_path(opt), ids_csv(r, /*v2_rule=*/true));
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

}  // namespace sqlgrade::spider2
