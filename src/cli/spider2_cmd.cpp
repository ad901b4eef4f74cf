// `sqlgrade spider2`: Spider 2.0-Lite official evaluate.py (exec_result and sql modes), --strict
// diagnostics and the tolerant --v2 evaluator. Thin: parses flags, calls the library, prints.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/spider2.hpp"

namespace {

struct Spider2Args {
  std::string mode = "sql";
  sqlgrade::spider2::Options opt;
  std::string json_out;
  std::string temp_dir;
  bool sql_debug = false;
  bool no_progress = false;
};

void run_spider2(const Spider2Args& a) {
  namespace s2 = sqlgrade::spider2;
  s2::Options opt = a.opt;
  opt.mode = a.mode == "sql" ? s2::Mode::Sql : s2::Mode::ExecResult;
  if (a.no_progress) opt.progress = 0;
  const s2::Run run = s2::evaluate(opt);
  // Outputs first (atomically), then what the official script prints.
  s2::write_outputs(run);
  if (!run.items.empty() && !a.json_out.empty()) sqlgrade::write_file_atomic(a.json_out, s2::render_json(run));
  const std::string out = s2::render_text(run);
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
  sub->add_option("--errors_log", a->opt.errors_log, "--v2: error log to append to (default errors.log; empty = none)");
  sub->add_option("--temp_dir", a->temp_dir, "accepted for compatibility (unused)");
  sub->add_flag("--is_sql_debug", a->sql_debug, "accepted for compatibility (unused)");
  sub->add_flag("--no-progress", a->no_progress, "never draw a progress bar");
  sub->callback([a]() { run_spider2(*a); });
}
