// `sqlgrade audit spider|bird|spider2`: failing and nondeterministic golds, the predictions graded
// against them, and the scoreable-vs-nominal denominators (docs/verify.md, "Audit"). The benchmark is
// a subcommand, as for `sqlgrade verify`; `audit --benchmark NAME` is the accepted alias (flags.hpp
// benchmark_flag_as_subcommand). Each subcommand takes the flags of its benchmark command: `--gold`
// and `--db` mean that benchmark's gold and database folder, with its official names as aliases.
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/spider/bench.hpp"
#include "sqlgrade/bird/bench.hpp"
#include "sqlgrade/spider2/bench.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/verify/verify.hpp"
#include "verify_flags.hpp"

namespace {

struct AuditArgs {
  sqlgrade::verify::AuditOptions opt;
  sqlgrade::cli::VerifyFlags verify;  // --verify: list the gold-suspect questions of the predictions' search
  std::string json_out;
  bool no_progress = false;  // audit draws no progress bar: accepted as on every command that executes queries
  double max_result_mb = 512;
};

// The flags every benchmark's audit takes.
void add_shared(CLI::App* c, AuditArgs& a) {
  sqlgrade::cli::add_jobs(c, a.opt.jobs);
  sqlgrade::cli::add_timeout(c, a.opt.timeout_s, "per-query timeout in seconds (default 30)");
  sqlgrade::cli::add_now(c, a.opt.now);
  sqlgrade::cli::path_role(c->add_option("--json", a.json_out, "also write the audit as JSON"), sqlgrade::cli::PathRole::WritesFile);
  sqlgrade::cli::add_no_progress(c, a.no_progress);
  sqlgrade::cli::add_max_rows(c, a.opt.max_rows, "result rows of one query (a gold, a prediction) before it is stopped");
  sqlgrade::cli::add_max_result_mb(c, a.max_result_mb, "result size cap per query, MiB");
  sqlgrade::cli::add_verify_flags(c, a.verify, true);  // --verify: gold-suspect questions (docs/verify.md)
}

void run_audit(AuditArgs& a) {
  using namespace sqlgrade;
  auto& o = a.opt;
  o.max_result_bytes = cli::mib_to_bytes(a.max_result_mb);
  if (o.benchmark == "spider") cli::require_flags("audit spider", {{"--gold", !o.gold.empty()}, {"--db", !o.db_dir.empty()}});
  if (o.benchmark == "bird")
    cli::require_flags("audit bird",
                       {{"--gold", !o.bird_gold.empty()}, {"--db", !o.bird_db_root.empty()}, {"--pred", !o.preds.empty()}});
  if (o.benchmark == "spider2") cli::require_flags("audit spider2", {{"--gold", !o.spider2_gold_dir.empty()}});
  cli::check_db_layout(o.db_dir, spider::benchmark().layout(), "audit spider");
  cli::check_db_layout(o.bird_db_root, bird::benchmark().layout(), "audit bird");
  cli::check_db_layout(o.spider2_db_dir, spider2::benchmark().layout(), "audit spider2");
  std::vector<IoPath> outputs = cli::verify_outputs(a.verify, a.verify.on);
  outputs.push_back({a.json_out, "--json"});
  check_outputs_spare_inputs(outputs, verify::audit_inputs(o));  // before any work (issue 31)
  o.verify = a.verify.on;
  if (o.verify) o.verify_options = cli::verify_options(a.verify, o.jobs, true);
  auto rep = verify::audit(o);
  if (!a.json_out.empty()) write_file_atomic(a.json_out, verify::render_audit_json(rep));
  std::string out = verify::render_audit_text(rep);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

CLI::App* add_benchmark(CLI::App* audit, const std::string& name, const std::string& what) {
  auto a = std::make_shared<AuditArgs>();
  a->opt.benchmark = name;
  auto* c = audit->add_subcommand(name, what);
  auto& o = a->opt;
  // --db_root_path and --db_dir: every benchmark's audit took both before it had subcommands.
  if (name == "spider") {
    sqlgrade::cli::path_role(c->add_option("--gold", o.gold, "gold file (SQL<TAB>db_id per line)"), sqlgrade::cli::PathRole::ReadsFile);
    sqlgrade::cli::add_db(c, o.db_dir, "database folder: <db>/<db_id>/<db_id>.sqlite", "--db_root_path,--db_dir");
    sqlgrade::cli::path_role(c->add_option("--table", o.table, "tables.json (optional)"), sqlgrade::cli::PathRole::ReadsFile);
    sqlgrade::cli::path_role(c->add_option("--pred", o.preds, "predictions graded against the golds (one SQL per line); repeatable"), sqlgrade::cli::PathRole::ReadsFile);
  } else if (name == "bird") {
    sqlgrade::cli::path_role(c->add_option("--gold,--ground_truth_path", o.bird_gold, "gold file (SQL<TAB>db_id per line)"), sqlgrade::cli::PathRole::ReadsFile);
    sqlgrade::cli::add_db(c, o.bird_db_root, "database folder: <db>/<db_id>/<db_id>.sqlite", "--db_root_path,--db_dir");
    sqlgrade::cli::path_role(c->add_option("--diff_json_path", o.bird_diff, "difficulty file (optional)"), sqlgrade::cli::PathRole::ReadsFile);
    sqlgrade::cli::path_role(c->add_option("--pred,--predicted_sql_path", o.preds, "prediction JSON graded against the golds (required); repeatable"), sqlgrade::cli::PathRole::ReadsFile);
  } else {
    sqlgrade::cli::path_role(c->add_option("--gold,--gold_dir", o.spider2_gold_dir, "gold folder (spider2lite_eval.jsonl, sql/)"), sqlgrade::cli::PathRole::ReadsFolder);
    sqlgrade::cli::add_db(c, o.spider2_db_dir, "database folder: <db>/<db>.sqlite (default <gold>/../databases)",
                          "--db_root_path,--db_dir");
    sqlgrade::cli::path_role(c->add_option("--meta", o.spider2_meta, "spider2-lite.jsonl (default <gold>/../spider2-lite.jsonl)"), sqlgrade::cli::PathRole::ReadsFile);
  }
  add_shared(c, *a);
  c->callback([a] { run_audit(*a); });
  return c;
}

}  // namespace

void register_audit_command(CLI::App& app) {
  auto* audit = app.add_subcommand("audit", "gold audit: failing and nondeterministic golds, affected predictions, denominators");
  audit->require_subcommand(1);
  auto* sp = add_benchmark(audit, "spider", "Spider: the golds of a gold file on their databases (and the predictions graded against them)");
  sqlgrade::cli::example(sp, "sqlgrade audit spider --gold dev_gold.sql --db database --pred a.sql --pred b.sql --verify");
  auto* bd = add_benchmark(audit, "bird", "BIRD / Mini-Dev: the golds, and the predictions graded against them");
  sqlgrade::cli::example(bd, "sqlgrade audit bird --gold mini_dev_sqlite_gold.sql --db dev_databases --pred predict.json");
  auto* s2 = add_benchmark(audit, "spider2", "Spider 2.0-Lite: the public gold SQL of the local (SQLite) instances");
  sqlgrade::cli::example(s2, "sqlgrade audit spider2 --gold spider2-lite/gold");
  sqlgrade::cli::example(audit, "sqlgrade audit spider --gold dev_gold.sql --db database --pred a.sql --pred b.sql --verify");
}
