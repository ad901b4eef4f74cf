// `sqlgrade spider2`: Spider 2.0-Lite official evaluate.py (exec_result and sql modes), --strict
// diagnostics and the tolerant --v2 evaluator. Thin: parses flags, calls the library, prints.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/spider2/bench.hpp"
#include "multi_pred.hpp"
#include "verify_flags.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/run.hpp"

namespace {

struct Spider2Args {
  std::string mode = "sql";
  sqlgrade::spider2::Options opt;
  std::vector<std::string> result_dirs, names;
  std::string json_out, json_dir;
  std::string temp_dir;
  bool sql_debug = false;
  bool no_progress = false, quiet = false, require_all = false;
  double max_result_mb = 64;
  sqlgrade::cli::VerifyFlags verify;
};

// --json-dir: <dir>/<name of the result folder>.json, one per system; two systems with one name are
// refused before anything runs.
std::vector<std::string> json_paths(const Spider2Args& a) {
  std::vector<std::string> out(a.result_dirs.size());
  if (!a.json_out.empty()) {
    if (a.result_dirs.size() > 1) throw sqlgrade::InputError("--json", "one file for several --result_dir: use --json-dir DIR");
    out[0] = a.json_out;
  }
  if (a.json_dir.empty()) return out;
  if (!a.json_out.empty()) throw sqlgrade::InputError("--json-dir", "give either --json or --json-dir");  // as cli::record_paths
  std::set<std::string> names;
  for (size_t i = 0; i < a.result_dirs.size(); ++i) {
    std::filesystem::path p(a.result_dirs[i]);
    if (!p.has_filename()) p = p.parent_path();
    std::string name = a.names.empty() ? p.filename().string() : sqlgrade::cli::file_safe(a.names[i]);
    if (name.empty() || name == "." || name == "..") throw sqlgrade::InputError(a.result_dirs[i], "--json-dir needs a result folder with a name");
    if (!names.insert(name).second)
      throw sqlgrade::InputError(a.result_dirs[i], "two result folders named '" + name + "' would write the same " + name + ".json in --json-dir");
    out[i] = (std::filesystem::path(a.json_dir) / (name + ".json")).string();
  }
  return out;
}

void run_spider2(const Spider2Args& a) {
  namespace s2 = sqlgrade::spider2;
  s2::Options opt = a.opt;
  opt.mode = s2::mode_from_name(a.mode);
  opt.result_dir = a.result_dirs.front();
  if (opt.mode == s2::Mode::Sql) sqlgrade::cli::check_db_layout(opt.db_dir, sqlgrade::spider2::benchmark().layout(), "spider2");
  if (a.no_progress || a.quiet) opt.progress = 0;
  opt.max_result_bytes = sqlgrade::cli::mib_to_bytes(a.max_result_mb);
  // --name is checked before the run; default labels after it (evaluate_many refuses one folder given
  // twice with its own message, naming the outputs that would collide).
  std::vector<std::string> labels;
  if (!a.names.empty()) labels = sqlgrade::cli::system_labels(a.result_dirs, a.names, "--result_dir");
  const std::vector<std::string> jsons = json_paths(a);
  if (!a.json_dir.empty()) sqlgrade::OutputDir::check(a.json_dir);
  for (const auto& j : jsons)
    if (!j.empty()) opt.also_written.push_back(j);  // checked against the inputs before the run
  const auto vopt = sqlgrade::cli::verify_options(a.verify, opt.jobs, a.no_progress);
  if (a.verify.on) sqlgrade::verify::check_verifiable(opt);
  // --counterexamples against what the run reads (the records and the official outputs: evaluate_many).
  sqlgrade::check_outputs_spare_inputs(sqlgrade::cli::verify_outputs(a.verify, a.verify.on), s2::run_inputs(opt, a.result_dirs));
  std::vector<s2::Run> runs = s2::evaluate_many(opt, a.result_dirs);
  if (labels.empty()) labels = sqlgrade::cli::system_labels(a.result_dirs, {}, "--result_dir");
  for (size_t i = 0; i < runs.size(); ++i) runs[i].opt.name = labels[i];
  if (!a.json_dir.empty()) sqlgrade::OutputDir created(a.json_dir);  // created when missing, never a symlink
  if (runs.size() > 1 && !a.quiet) {
    size_t n = 0;
    for (auto& r : runs) n += r.items.size();
    std::fprintf(stderr, "sqlgrade: %zu systems, %zu instances graded, %zu distinct (db, SQL) executed\n", runs.size(), n,
                 runs.front().n_executed);
  }
  std::vector<std::string> held(runs.size());  // --verify: records written once the search is done
  for (size_t i = 0; i < runs.size(); ++i) {
    const s2::Run& run = runs[i];
    // Outputs first (atomically), then what the official script prints.
    s2::write_outputs(run);
    if (s2::has_record(run) && !jsons[i].empty()) {  // an empty shard's too (merge needs all n)
      if (a.verify.on) held[i] = s2::render_json(run, sqlgrade::cli::invocation());
      else sqlgrade::write_file_atomic(jsons[i], s2::render_json(run, sqlgrade::cli::invocation()));
    }
    // Several systems: each table (byte-identical to grading that folder alone) under a header.
    std::string out = s2::render_text(run);
    if (runs.size() > 1) out = (i ? "\n" : "") + sqlgrade::cli::system_header(a.result_dirs[i], a.names.empty() ? "" : labels[i]) + out;
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
  }
  if (a.verify.on) {
    const auto reps = sqlgrade::verify::verify_spider2(runs, vopt);
    sqlgrade::cli::print_verify(reps);
    sqlgrade::cli::write_verified_records(jsons, held, reps, vopt);
  }
  if (a.require_all) {
    std::vector<sqlgrade::cli::Pairing> pairing;
    for (size_t i = 0; i < runs.size(); ++i)
      pairing.push_back({a.result_dirs[i], runs[i].items.size() + runs[i].n_missing, runs[i].n_missing, runs[i].n_unpaired});
    sqlgrade::cli::enforce_require_all(pairing);
  }
}

}  // namespace

void register_spider2_command(CLI::App& app) {
  auto a = std::make_shared<Spider2Args>();
  auto* sub = app.add_subcommand("spider2", "Spider 2.0-Lite: official evaluate.py (exec_result / sql on local SQLite), --strict, --v2");
  sub->add_option("--mode", a->mode, "sql: run <id>.sql on the local SQLite databases; exec_result: compare <id>.csv")
      ->check(sqlgrade::cli::choice(&sqlgrade::spider2::mode_from_name, "{sql,exec_result}"))
      ->capture_default_str();
  sqlgrade::cli::path_role(sub->add_option("--pred,--result_dir", a->result_dirs,
                  "folder of predictions (<id>.sql or <id>.csv); repeat it to grade several systems in one pass"), sqlgrade::cli::PathRole::ReadsFolder)
      ->required()
      ->take_last()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--name", a->names,
                  "the system's name in the run record, headers, diff and report; one per --result_dir, in order "
                  "(default: the folder's name, with its parents when two systems share it)");
  sqlgrade::cli::path_role(sub->add_option("--gold,--gold_dir", a->opt.gold_dir, "folder with spider2lite_eval.jsonl and exec_result/"), sqlgrade::cli::PathRole::ReadsFolder)->required();
  sqlgrade::cli::add_db(sub, a->opt.db_dir, "sql mode: folder of <db>.sqlite (default <gold_dir>/../databases)", "--db_dir");
  sqlgrade::cli::path_role(sub->add_option("--meta", a->opt.meta, "spider2-lite.jsonl with the db of each instance (default <gold_dir>/../spider2-lite.jsonl)"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::add_jobs(sub, a->opt.jobs, "--max_workers");
  sqlgrade::cli::add_now(sub, a->opt.now);
  sqlgrade::cli::add_timeout(sub, a->opt.timeout_s, "per-query timeout in seconds (the official flag is unused; this one is real)")
      ->capture_default_str();
  sqlgrade::cli::add_max_result_mb(sub, a->max_result_mb,
                                    "result size cap per prediction, MiB: a sql-mode result (as the CSV text the official "
                                    "script writes) or an exec_result CSV file larger than this scores 0 (\"result too large\")");
  sqlgrade::cli::add_max_rows(sub, a->opt.max_rows, "sql mode: result rows of a prediction before it is stopped (\"result too large\")");
  sqlgrade::cli::path_role(sub->add_option("--json", a->json_out, "write the run record (docs/run-record.schema.json); one --result_dir only"), sqlgrade::cli::PathRole::WritesFile);
  sqlgrade::cli::path_role(sub->add_option("--json-dir", a->json_dir, "write each system's run record to DIR/<result folder name>.json"), sqlgrade::cli::PathRole::WritesFolder);
  sub->add_option("--shard", a->opt.shard, "grade only shard i of n (\"i/n\", split by instance_id; see `sqlgrade merge`)");
  sqlgrade::cli::add_shard_by(sub, a->opt.shard_by);
  sub->add_flag("--strict", a->opt.strict, "also report rows scrambled across columns and tolerance broken by the string sort");
  sub->add_flag("--v2", a->opt.v2, "tolerant evaluate_v2 metrics (column/row precision, recall, F1)");
  sqlgrade::cli::path_role(sub->add_option("--errors_log", a->opt.errors_log, "--v2: error log to append to (default errors.log; empty = none)"), sqlgrade::cli::PathRole::WritesFile);
  sqlgrade::cli::path_role(sub->add_option("--temp_dir", a->temp_dir, "accepted for compatibility (unused)"), sqlgrade::cli::PathRole::WritesFolder);
  sub->add_flag("--is_sql_debug", a->sql_debug, "accepted for compatibility (unused)");
  sqlgrade::cli::add_no_progress(sub, a->no_progress);
  sqlgrade::cli::add_quiet(sub, a->quiet);
  sqlgrade::cli::add_require_all(sub, a->require_all);
  sqlgrade::cli::add_verify_flags(sub, a->verify, true);
  sub->callback([a]() { run_spider2(*a); });
  sqlgrade::cli::example(sub, "sqlgrade spider2 --mode exec_result --pred results/ --gold spider2-lite/gold");
}
