// `sqlgrade verify spider|bird|spider2`: verified execution accuracy over the files the benchmark
// commands take (their readers, their grading, then the search of docs/verify.md). `verify --benchmark
// NAME` is accepted for `verify NAME` (flags.hpp); `sqlgrade audit` is audit_cmd.cpp.
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/spider/bench.hpp"
#include "sqlgrade/bird/bench.hpp"
#include "sqlgrade/spider2/bench.hpp"
#include "sqlgrade/bird/inputs.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/spider/inputs.hpp"
#include "multi_pred.hpp"
#include "sqlgrade/spider2/run.hpp"
#include "sqlgrade/verify/verify.hpp"
#include "sqlgrade/errors.hpp"
#include "verify_flags.hpp"

namespace sqlgrade::cli {

void add_verify_flags(CLI::App* cmd, VerifyFlags& f, bool with_switch) {
  if (with_switch) cmd->add_flag("--verify", f.on, "also search for counterexamples to every match (docs/verify.md)");
  cmd->add_option("--verify-budget", f.opt.budget_s, "verification: wall-clock cap per instance in seconds (default 5)")
      ->check(sqlgrade::cli::bounded("verify_budget"));
  cmd->add_option("--verify-candidates", f.opt.candidates, "verification: candidate databases per instance (default 200)")
      ->check(sqlgrade::cli::bounded("verify_candidates"));
  cmd->add_option("--seed", f.opt.seed, "verification: seed of the search (default 0)")->check(sqlgrade::cli::bounded("seed"));
  sqlgrade::cli::path_role(cmd->add_option("--counterexamples", f.opt.counterexamples_dir,
                  "verification: write each counterexample as DIR/<system>/<id>.sqlite + .json"), sqlgrade::cli::PathRole::WritesFolder);
}

std::vector<IoPath> verify_outputs(const VerifyFlags& f, bool on) {
  std::vector<IoPath> out;
  if (on && !f.opt.counterexamples_dir.empty()) out.push_back({f.opt.counterexamples_dir, "--counterexamples", {}, true, true});
  return out;
}

sqlgrade::verify::Options verify_options(const VerifyFlags& f, int jobs, bool no_progress) {
  sqlgrade::verify::Options o = f.opt;
  if (!o.counterexamples_dir.empty()) sqlgrade::verify::check_counterexamples_dir(o.counterexamples_dir);
  o.jobs = jobs;
  if (no_progress) o.progress = 0;
  return o;
}

void print_verify(const std::vector<sqlgrade::verify::SystemReport>& reports) {
  std::string out = "\n" + sqlgrade::verify::render_text(reports);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

void write_verified_records(const std::vector<std::string>& paths, const std::vector<std::string>& records,
                            const std::vector<sqlgrade::verify::SystemReport>& reports, const sqlgrade::verify::Options& opt) {
  for (size_t k = 0; k < paths.size() && k < records.size() && k < reports.size(); ++k)
    if (!paths[k].empty() && !records[k].empty())
      sqlgrade::write_file_atomic(paths[k], sqlgrade::verify::add_to_record(records[k], reports[k], opt));
}

}  // namespace sqlgrade::cli

namespace {

struct VerifyArgs {
  sqlgrade::cli::VerifyFlags flags;
  std::vector<std::string> preds, names;
  std::string json_dir;
  sqlgrade::spider::Options spider;
  sqlgrade::bird::Options bird;
  sqlgrade::spider2::Options spider2;
  int jobs = 0;
  bool no_progress = false, quiet = false;
  size_t max_rows = 1'000'000;
  double max_result_mb = 0;  // set per benchmark: its own command's default
};

// The systems' labels (--name, else the prediction paths the search has always named them by).
std::vector<std::string> labels_of(const VerifyArgs& a, const std::string& pred_flag) {
  return a.names.empty() ? a.preds : sqlgrade::cli::system_labels(a.preds, a.names, pred_flag);
}

// --json: the report (every system in one file); --json-dir: each system's run record, the one its
// benchmark command writes with --verify (records[k], rendered by the caller), with its verification.
// Each system's run record for --json-dir (none without it), named as the report names the systems.
template <class Runs, class Render>
std::vector<std::string> records_of(const VerifyArgs& a, Runs& runs, const char* pred_flag, Render render) {
  const auto names = sqlgrade::cli::system_labels(a.preds, a.names, pred_flag);
  std::vector<std::string> records;
  for (size_t k = 0; k < runs.size() && !a.json_dir.empty(); ++k) {
    runs[k].opt.name = names[k];
    records.push_back(render(runs[k]));
  }
  return records;
}

void finish(const VerifyArgs& a, std::vector<sqlgrade::verify::SystemReport> reps, const std::vector<std::string>& labels,
            const std::vector<std::string>& records, const sqlgrade::verify::Options& vo) {
  for (size_t k = 0; k < reps.size() && k < labels.size(); ++k) reps[k].system = labels[k];
  if (!a.flags.json_out.empty()) sqlgrade::write_file_atomic(a.flags.json_out, sqlgrade::verify::render_json(reps));
  if (!a.json_dir.empty()) {
    const auto paths = sqlgrade::cli::record_paths(a.preds, "", a.json_dir, "--pred", a.names);
    sqlgrade::cli::write_verified_records(paths, records, reps, vo);
  }
  std::string out = sqlgrade::verify::render_text(reps);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// --json, --json-dir and --counterexamples against every path the command reads, before anything runs
// (issue 31: `verify spider --json db/x/x.sqlite` replaced the database, exit 0).
void check_outputs(const VerifyArgs& a, const std::vector<sqlgrade::IoPath>& inputs) {
  if (!a.flags.json_out.empty() && !a.json_dir.empty()) throw sqlgrade::InputError("--json-dir", "give either --json or --json-dir");
  std::vector<sqlgrade::IoPath> out = sqlgrade::cli::verify_outputs(a.flags, true);
  out.push_back({a.flags.json_out, "--json"});
  if (!a.json_dir.empty()) {
    sqlgrade::OutputDir::check(a.json_dir);
    for (const auto& p : sqlgrade::cli::record_paths(a.preds, "", a.json_dir, "--pred", a.names)) out.push_back({p, "--json-dir"});
  }
  sqlgrade::check_outputs_spare_inputs(out, inputs);
}

sqlgrade::verify::Options search_options(const VerifyArgs& a) {
  return sqlgrade::cli::verify_options(a.flags, a.jobs, a.no_progress || a.quiet);
}

void common(CLI::App* c, VerifyArgs& a, double default_result_mb) {
  sqlgrade::cli::add_verify_flags(c, a.flags, false);
  sqlgrade::cli::add_jobs(c, a.jobs);
  c->add_option("--name", a.names,
                "the system's name in the report and its run record; one per --pred, in order (default: the prediction path)");
  sqlgrade::cli::path_role(c->add_option("--json", a.flags.json_out, "also write the report as JSON (every system; counterexamples included)"), sqlgrade::cli::PathRole::WritesFile);
  sqlgrade::cli::path_role(c->add_option("--json-dir", a.json_dir,
                "also write each system's run record with its verification, DIR/<name>.json (as the benchmark command's "
                "--verify --json-dir)"), sqlgrade::cli::PathRole::WritesFolder);
  sqlgrade::cli::add_no_progress(c, a.no_progress);
  sqlgrade::cli::add_quiet(c, a.quiet);
  sqlgrade::cli::add_max_rows(c, a.max_rows, "result rows of one query of the grading before it is stopped");
  a.max_result_mb = default_result_mb;
  sqlgrade::cli::add_max_result_mb(c, a.max_result_mb, "result size cap per query of the grading, MiB");
}

void run_spider(VerifyArgs& a) {
  using namespace sqlgrade;
  cli::require_flags("verify spider", {{"--gold", !a.spider.gold.empty()}, {"--pred", !a.preds.empty()}, {"--db", !a.spider.db_dir.empty()}});
  const auto labels = labels_of(a, "--pred");
  cli::check_db_layout(a.spider.db_dir, spider::benchmark().layout(), "verify spider");
  check_outputs(a, spider::run_inputs(a.spider, a.preds));
  auto vo = search_options(a);
  a.spider.etype = spider::Etype::Exec;
  a.spider.jobs = a.jobs;
  a.spider.progress = 0;
  a.spider.pred = a.preds[0];
  a.spider.max_rows = a.max_rows;
  a.spider.max_result_bytes = cli::mib_to_bytes(a.max_result_mb);
  a.spider.keep_rows = !a.json_dir.empty();  // only a record shows them
  auto runs = spider::evaluate_many(a.spider, a.preds);
  const auto records = records_of(a, runs, "--pred", [](const auto& r) { return spider::render_json(r, cli::invocation()); });
  finish(a, verify::verify_spider(runs, a.preds, vo), labels, records, vo);
}

void run_bird(VerifyArgs& a) {
  using namespace sqlgrade;
  cli::require_flags("verify bird", {{"--pred", !a.preds.empty()}, {"--gold", !a.bird.gold.empty()},
                                     {"--db", !a.bird.db_dir.empty()}});
  const auto labels = labels_of(a, "--predicted_sql_path");
  cli::check_db_layout(a.bird.db_dir, bird::benchmark().layout(), "verify bird");
  check_outputs(a, bird::run_inputs(a.bird, a.preds));
  auto vo = search_options(a);
  a.bird.metric = bird::Metric::Ex;
  a.bird.jobs = a.jobs;
  a.bird.progress = 0;
  a.bird.pred = a.preds[0];
  a.bird.max_rows = a.max_rows;
  a.bird.max_result_bytes = cli::mib_to_bytes(a.max_result_mb);
  a.bird.keep_rows = !a.json_dir.empty();
  auto runs = bird::evaluate_many(a.bird, a.preds, {});
  const auto records = records_of(a, runs, "--predicted_sql_path", [](const auto& r) { return bird::render_json(r, cli::invocation()); });
  finish(a, verify::verify_bird(runs, a.preds, vo), labels, records, vo);
}

void run_spider2(VerifyArgs& a) {
  using namespace sqlgrade;
  cli::require_flags("verify spider2", {{"--pred", !a.preds.empty()}, {"--gold", !a.spider2.gold_dir.empty()}});
  const auto labels = labels_of(a, "--result_dir");
  cli::check_db_layout(a.spider2.db_dir, spider2::benchmark().layout(), "verify spider2");
  check_outputs(a, spider2::run_inputs(a.spider2, a.preds));
  auto vo = search_options(a);
  a.spider2.mode = spider2::Mode::Sql;
  a.spider2.jobs = a.jobs;
  a.spider2.progress = 0;
  a.spider2.result_dir = a.preds[0];
  a.spider2.max_rows = a.max_rows;
  a.spider2.max_result_bytes = cli::mib_to_bytes(a.max_result_mb);
  auto runs = spider2::evaluate_many(a.spider2, a.preds);
  const auto records = records_of(a, runs, "--result_dir", [](const auto& r) { return spider2::render_json(r, cli::invocation()); });
  finish(a, verify::verify_spider2(runs, vo), labels, records, vo);
}

}  // namespace

void register_verify_command(CLI::App& app) {
  auto a = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify", "verified execution accuracy: search a database on which a matching prediction is wrong");
  cmd->require_subcommand(1);
  auto* sp = cmd->add_subcommand("spider", "Spider dev/test (test-suite rule): the files of `sqlgrade spider`");
  sqlgrade::cli::path_role(sp->add_option("--gold", a->spider.gold, "gold file: SQL<TAB>db_id per line"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::path_role(sp->add_option("--pred", a->preds, "predictions, one SQL per line; repeat for several systems"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::add_db(sp, a->spider.db_dir, "database folder <db>/<db_id>/<db_id>.sqlite");
  sqlgrade::cli::path_role(sp->add_option("--table", a->spider.table, "tables.json (optional)"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::path_role(sp->add_option("--questions", a->spider.questions,
                 "dev.json: question text for the --json-dir records (default: dev.json beside --gold when it matches)"), sqlgrade::cli::PathRole::ReadsFile);
  sp->add_flag("--keep_distinct", a->spider.keep_distinct, "keep DISTINCT when executing (test-suite flag)");
  sqlgrade::cli::add_timeout(sp, a->spider.timeout_s, "per-query timeout of the grading, seconds (default 60)");
  sqlgrade::cli::add_now(sp, a->spider.now);
  common(sp, *a, 512);
  sp->callback([a] { run_spider(*a); });
  sqlgrade::cli::example(sp, "sqlgrade verify spider --gold dev_gold.sql --pred pred.sql --db database --verify-budget 5");
  auto* bd = cmd->add_subcommand("bird", "BIRD / Mini-Dev (EX set rule): the files of `sqlgrade bird`");
  sqlgrade::cli::path_role(bd->add_option("--pred,--predicted_sql_path", a->preds, "prediction JSON; repeat for several systems"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::path_role(bd->add_option("--gold,--ground_truth_path", a->bird.gold, "gold file, SQL<TAB>db_id per line"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::add_db(bd, a->bird.db_dir, "database folder <db>/<db_id>/<db_id>.sqlite", "--db_root_path");
  sqlgrade::cli::path_role(bd->add_option("--diff_json_path", a->bird.diff_json, "difficulty / question file (optional)"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::add_timeout(bd, a->bird.timeout_s, "per-query timeout of the grading, seconds (default 30)", "--meta_time_out");
  sqlgrade::cli::add_now(bd, a->bird.now);
  common(bd, *a, 512);
  bd->callback([a] { run_bird(*a); });
  sqlgrade::cli::example(bd, "sqlgrade verify bird --pred predict_mini_dev.json --gold mini_dev_sqlite_gold.sql --db dev_databases");
  auto* s2 = cmd->add_subcommand("spider2", "Spider 2.0-Lite sql mode (column-vector rule): the files of `sqlgrade spider2`");
  sqlgrade::cli::path_role(s2->add_option("--pred,--result_dir", a->preds, "folder of <id>.sql; repeat for several systems"), sqlgrade::cli::PathRole::ReadsFolder);
  sqlgrade::cli::path_role(s2->add_option("--gold,--gold_dir", a->spider2.gold_dir, "gold folder (spider2lite_eval.jsonl, exec_result/, sql/)"), sqlgrade::cli::PathRole::ReadsFolder);
  sqlgrade::cli::add_db(s2, a->spider2.db_dir, "folder of <db>.sqlite (default <gold_dir>/../databases)", "--db_dir");
  sqlgrade::cli::path_role(s2->add_option("--meta", a->spider2.meta, "spider2-lite.jsonl (default <gold_dir>/../spider2-lite.jsonl)"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::add_timeout(s2, a->spider2.timeout_s, "per-query timeout of the grading, seconds (default 60)");
  sqlgrade::cli::add_now(s2, a->spider2.now);
  common(s2, *a, 64);
  s2->callback([a] { run_spider2(*a); });
  sqlgrade::cli::example(s2, "sqlgrade verify spider2 --pred sql_predictions/ --gold spider2-lite/gold");
  sqlgrade::cli::example(cmd, "sqlgrade verify spider --gold dev_gold.sql --pred pred.sql --db database");
}
