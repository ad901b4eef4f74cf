// `sqlgrade spider2`: Spider 2.0-Lite official evaluate.py (exec_result and sql modes), --strict
// diagnostics and the tolerant --v2 evaluator. Thin: parses flags, calls the library, prints.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider2/report.hpp"
#include "sqlgrade/spider2/run.hpp"
#include "sqlgrade/core/fs.hpp"

namespace {

struct Spider2Args {
  std::string mode = "sql";
  sqlgrade::spider2::RunOptions opt;
  std::string json_out;
  std::string errors_log = "errors.log";
  std::string temp_dir;
  bool sql_debug = false;
  bool no_progress = false;
};

void run_spider2(const Spider2Args& a) {
  namespace s2 = sqlgrade::spider2;
  namespace fs = std::filesystem;
  s2::RunOptions opt = a.opt;
  opt.mode = a.mode == "sql" ? s2::Mode::Sql : s2::Mode::ExecResult;
  if (a.no_progress) opt.progress = 0;
  // sql mode: <result_dir>_csv is checked before anything runs. The official script wipes that folder
  // (shutil.rmtree, which refuses a symlink); we only drop stale CSVs, and never through a symlink.
  if (opt.mode == s2::Mode::Sql) sqlgrade::OutputDir::check(s2::csv_dir_path(opt));
  s2::RunResult r = s2::run(opt);
  if (r.items.empty()) {
    std::fputs(s2::format_official(r, opt).c_str(), stdout);
    return;
  }
  // Outputs first (atomically), then what the official script prints.
  if (opt.mode == s2::Mode::Sql) {
    sqlgrade::OutputDir csv_dir(s2::csv_dir_path(opt));
    csv_dir.remove_files_ending_with(".csv");
    for (auto& it : r.items)
      if (it.result_csv) csv_dir.write(it.instance_id + ".csv", *it.result_csv);
  }
  std::string out;
  if (opt.v2) {
    // evaluate_v2 scores with its own rule: the ids file lists the v2-correct instances.
    s2::RunResult v2r = r;
    for (auto& it : v2r.items) it.score = it.v2_error ? 0 : it.v2.score;
    sqlgrade::write_file_atomic(s2::ids_csv_path(opt), s2::ids_csv(v2r));
    sqlgrade::write_file_atomic(s2::v2_metrics_path(opt), s2::v2_detailed_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    std::string log = s2::v2_errors_log(r, opt);
    if (!log.empty() && !a.errors_log.empty()) {
      std::string prev;
      std::error_code ec;
      if (fs::exists(a.errors_log, ec)) prev = sqlgrade::read_file(a.errors_log);
      sqlgrade::write_file_atomic(a.errors_log, prev + log);  // appended, as logging filemode='a'
    }
    out = s2::format_v2_summary(r, opt);
  } else {
    sqlgrade::write_file_atomic(s2::ids_csv_path(opt), s2::ids_csv(r));
    out = s2::format_official(r, opt);
  }
  if (opt.strict) out += s2::format_strict(r);
  if (!a.json_out.empty()) sqlgrade::write_file_atomic(a.json_out, s2::scores_json(r, opt).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace

void register_spider2_command(CLI::App& app) {
  auto a = std::make_shared<Spider2Args>();
  auto* sub = app.add_subcommand("spider2", "Spider 2.0-Lite: official evaluate.py (exec_result / sql on local SQLite), --strict, --v2");
  sub->add_option("--mode", a->mode, "sql: run <id>.sql on the local SQLite databases; exec_result: compare <id>.csv")
      ->check(CLI::IsMember({"sql", "exec_result"}))
      ->capture_default_str();
  sub->add_option("--result_dir", a->opt.result_dir, "folder of predictions (<id>.sql or <id>.csv)")->required();
  sub->add_option("--gold_dir", a->opt.gold_dir, "folder with spider2lite_eval.jsonl and exec_result/")->required();
  sub->add_option("--db_dir", a->opt.db_dir, "sql mode: folder of <db>.sqlite (default <gold_dir>/../databases)");
  sub->add_option("--meta", a->opt.meta_path, "spider2-lite.jsonl with the db of each instance (default <gold_dir>/../spider2-lite.jsonl)");
  sub->add_option("--max_workers", a->opt.max_workers, "worker threads (default: all cores)");
  sub->add_option("--timeout", a->opt.timeout_s, "per-query timeout in seconds (the official flag is unused; this one is real)")
      ->capture_default_str();
  sub->add_option("--json", a->json_out, "write per-instance scores, errors and SQL as JSON");
  sub->add_flag("--strict", a->opt.strict, "also report rows scrambled across columns and tolerance broken by the string sort");
  sub->add_flag("--v2", a->opt.v2, "tolerant evaluate_v2 metrics (column/row precision, recall, F1)");
  sub->add_option("--errors_log", a->errors_log, "--v2: error log to append to (default errors.log; empty = none)");
  sub->add_option("--temp_dir", a->temp_dir, "accepted for compatibility (unused)");
  sub->add_flag("--is_sql_debug", a->sql_debug, "accepted for compatibility (unused)");
  sub->add_flag("--no-progress", a->no_progress, "never draw a progress bar");
  sub->callback([a]() { run_spider2(*a); });
}
