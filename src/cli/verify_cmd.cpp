// `sqlgrade verify spider|bird|spider2`: verified execution accuracy over the files the benchmark
// commands take (their readers, their grading, then the search of docs/verify.md); and
// `sqlgrade audit`: failing and nondeterministic golds, the predictions graded against them, and the
// scoreable-vs-nominal denominators.
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/bird/inputs.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/spider/inputs.hpp"
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
  cmd->add_option("--counterexamples", f.opt.counterexamples_dir,
                  "verification: write each counterexample as DIR/<system>/<id>.sqlite + .json");
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
  std::vector<std::string> preds;
  sqlgrade::spider::Options spider;
  sqlgrade::bird::Options bird;
  sqlgrade::spider2::Options spider2;
  int jobs = 0;
  bool no_progress = false;
};

void finish(const VerifyArgs& a, const std::vector<sqlgrade::verify::SystemReport>& reps) {
  if (!a.flags.json_out.empty()) sqlgrade::write_file_atomic(a.flags.json_out, sqlgrade::verify::render_json(reps));
  std::string out = sqlgrade::verify::render_text(reps);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// --json and --counterexamples against every path the command reads, before anything runs (issue 31:
// `verify spider --json db/x/x.sqlite` replaced the database, exit 0).
void check_outputs(const VerifyArgs& a, const std::vector<sqlgrade::IoPath>& inputs) {
  std::vector<sqlgrade::IoPath> out = sqlgrade::cli::verify_outputs(a.flags, true);
  out.push_back({a.flags.json_out, "--json"});
  sqlgrade::check_outputs_spare_inputs(out, inputs);
}

void common(CLI::App* c, VerifyArgs& a) {
  sqlgrade::cli::add_verify_flags(c, a.flags, false);
  sqlgrade::cli::add_jobs(c, a.jobs);
  c->add_option("--json", a.flags.json_out, "also write the report as JSON (counterexamples included)");
  c->add_flag("--no-progress", a.no_progress, "never show a progress bar");
}

void run_spider(VerifyArgs& a) {
  using namespace sqlgrade;
  if (a.spider.gold.empty() || a.preds.empty() || a.spider.db_dir.empty())
    throw InputError("verify spider", "--gold, --pred and --db are required");
  check_outputs(a, spider::run_inputs(a.spider, a.preds));
  auto vo = cli::verify_options(a.flags, a.jobs, a.no_progress);
  a.spider.etype = spider::Etype::Exec;
  a.spider.jobs = a.jobs;
  a.spider.progress = 0;
  a.spider.pred = a.preds[0];
  finish(a, verify::verify_spider(spider::evaluate_many(a.spider, a.preds), a.preds, vo));
}

void run_bird(VerifyArgs& a) {
  using namespace sqlgrade;
  if (a.preds.empty() || a.bird.ground_truth_path.empty() || a.bird.db_root_path.empty())
    throw InputError("verify bird", "--pred, --gold and --db are required (official names: --predicted_sql_path, --ground_truth_path, --db_root_path)");
  check_outputs(a, bird::run_inputs(a.bird, a.preds));
  auto vo = cli::verify_options(a.flags, a.jobs, a.no_progress);
  a.bird.metric = bird::Metric::Ex;
  a.bird.num_cpus = a.jobs;
  a.bird.progress = 0;
  a.bird.predicted_sql_path = a.preds[0];
  finish(a, verify::verify_bird(bird::evaluate_many(a.bird, a.preds, {}), a.preds, vo));
}

void run_spider2(VerifyArgs& a) {
  using namespace sqlgrade;
  if (a.preds.empty() || a.spider2.gold_dir.empty())
    throw InputError("verify spider2", "--pred and --gold are required (official names: --result_dir, --gold_dir)");
  check_outputs(a, spider2::run_inputs(a.spider2, a.preds));
  auto vo = cli::verify_options(a.flags, a.jobs, a.no_progress);
  a.spider2.mode = spider2::Mode::Sql;
  a.spider2.max_workers = a.jobs;
  a.spider2.progress = 0;
  a.spider2.result_dir = a.preds[0];
  finish(a, verify::verify_spider2(spider2::evaluate_many(a.spider2, a.preds), vo));
}

struct AuditArgs {
  sqlgrade::verify::AuditOptions opt;
  sqlgrade::cli::VerifyFlags verify;  // --verify: list the gold-suspect questions of the predictions' search
  std::string json_out, db;  // --db: the database folder of whichever benchmark
};

void register_audit(CLI::App& app) {
  auto a = std::make_shared<AuditArgs>();
  auto* c = app.add_subcommand("audit", "gold audit: failing and nondeterministic golds, affected predictions, denominators");
  c->add_option("--benchmark", a->opt.benchmark, "spider, bird or spider2")->required();
  c->add_option("--gold", a->opt.gold, "spider: gold file (SQL<TAB>db_id)");
  sqlgrade::cli::add_db(c, a->db, "database folder of the benchmark (spider, bird: <db_id>/<db_id>.sqlite; spider2: <db>.sqlite, "
                                  "default <gold_dir>/../databases)", "--db_root_path,--db_dir");
  c->add_option("--table", a->opt.table, "spider: tables.json (optional)");
  c->add_option("--ground_truth_path", a->opt.bird_gold, "bird: gold file");
  c->add_option("--diff_json_path", a->opt.bird_diff, "bird: difficulty file (optional)");
  c->add_option("--gold_dir", a->opt.spider2_gold_dir, "spider2: gold folder");
  c->add_option("--meta", a->opt.spider2_meta, "spider2: spider2-lite.jsonl (default <gold_dir>/../spider2-lite.jsonl)");
  c->add_option("--pred", a->opt.preds, "predictions graded against the golds (spider: files; bird: JSON); repeatable");
  sqlgrade::cli::add_jobs(c, a->opt.jobs);
  sqlgrade::cli::add_timeout(c, a->opt.timeout_s, "per-query timeout in seconds (default 30)");
  sqlgrade::cli::add_now(c, a->opt.now);
  c->add_option("--json", a->json_out, "also write the audit as JSON");
  sqlgrade::cli::add_verify_flags(c, a->verify, true);  // --verify: gold-suspect questions (docs/verify.md)
  c->callback([a] {
    using namespace sqlgrade;
    auto& o = a->opt;
    (o.benchmark == "bird" ? o.bird_db_root : o.benchmark == "spider2" ? o.spider2_db_dir : o.db_dir) = a->db;
    if (o.benchmark == "spider" && (o.gold.empty() || o.db_dir.empty())) throw InputError("audit", "--gold and --db are required");
    if (o.benchmark == "bird" && (o.bird_gold.empty() || o.bird_db_root.empty()))
      throw InputError("audit", "--ground_truth_path and --db are required");
    if (o.benchmark == "spider2" && o.spider2_gold_dir.empty()) throw InputError("audit", "--gold_dir is required");
    std::vector<IoPath> outputs = cli::verify_outputs(a->verify, a->verify.on);
    outputs.push_back({a->json_out, "--json"});
    check_outputs_spare_inputs(outputs, verify::audit_inputs(o));  // before any work (issue 31)
    o.verify = a->verify.on;
    if (o.verify) o.verify_options = cli::verify_options(a->verify, o.jobs, true);
    auto rep = verify::audit(o);
    if (!a->json_out.empty()) write_file_atomic(a->json_out, verify::render_audit_json(rep));
    std::string out = verify::render_audit_text(rep);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  });
  sqlgrade::cli::example(c, "sqlgrade audit --benchmark spider --gold dev_gold.sql --db database --pred a.sql --pred b.sql --verify");
}

}  // namespace

void register_verify_command(CLI::App& app) {
  auto a = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify", "verified execution accuracy: search a database on which a matching prediction is wrong");
  cmd->require_subcommand(1);
  auto* sp = cmd->add_subcommand("spider", "Spider dev/test (test-suite rule): the files of `sqlgrade spider`");
  sp->add_option("--gold", a->spider.gold, "gold file: SQL<TAB>db_id per line");
  sp->add_option("--pred", a->preds, "predictions, one SQL per line; repeat for several systems");
  sqlgrade::cli::add_db(sp, a->spider.db_dir, "database folder <db>/<db_id>/<db_id>.sqlite");
  sp->add_option("--table", a->spider.table, "tables.json (optional)");
  sp->add_flag("--keep_distinct", a->spider.keep_distinct, "keep DISTINCT when executing (test-suite flag)");
  sqlgrade::cli::add_timeout(sp, a->spider.timeout_s, "per-query timeout of the grading, seconds (default 30)");
  sqlgrade::cli::add_now(sp, a->spider.now);
  common(sp, *a);
  sp->callback([a] { run_spider(*a); });
  sqlgrade::cli::example(sp, "sqlgrade verify spider --gold dev_gold.sql --pred pred.sql --db database --verify-budget 5");
  auto* bd = cmd->add_subcommand("bird", "BIRD / Mini-Dev (EX set rule): the files of `sqlgrade bird`");
  bd->add_option("--pred,--predicted_sql_path", a->preds, "prediction JSON; repeat for several systems");
  bd->add_option("--gold,--ground_truth_path", a->bird.ground_truth_path, "gold file, SQL<TAB>db_id per line");
  sqlgrade::cli::add_db(bd, a->bird.db_root_path, "database folder", "--db_root_path");
  bd->add_option("--diff_json_path", a->bird.diff_json_path, "difficulty file (optional)");
  sqlgrade::cli::add_timeout(bd, a->bird.meta_time_out, "per-query timeout of the grading, seconds (default 30)", "--meta_time_out");
  sqlgrade::cli::add_now(bd, a->bird.now);
  common(bd, *a);
  bd->callback([a] { run_bird(*a); });
  sqlgrade::cli::example(bd, "sqlgrade verify bird --pred predict_mini_dev.json --gold mini_dev_sqlite_gold.sql --db dev_databases");
  auto* s2 = cmd->add_subcommand("spider2", "Spider 2.0-Lite sql mode (column-vector rule): the files of `sqlgrade spider2`");
  s2->add_option("--pred,--result_dir", a->preds, "folder of <id>.sql; repeat for several systems");
  s2->add_option("--gold,--gold_dir", a->spider2.gold_dir, "gold folder (spider2lite_eval.jsonl, exec_result/, sql/)");
  sqlgrade::cli::add_db(s2, a->spider2.db_dir, "folder of <db>.sqlite (default <gold_dir>/../databases)", "--db_dir");
  s2->add_option("--meta", a->spider2.meta_path, "spider2-lite.jsonl (default <gold_dir>/../spider2-lite.jsonl)");
  sqlgrade::cli::add_timeout(s2, a->spider2.timeout_s, "per-query timeout of the grading, seconds (default 60)");
  sqlgrade::cli::add_now(s2, a->spider2.now);
  common(s2, *a);
  s2->callback([a] { run_spider2(*a); });
  sqlgrade::cli::example(s2, "sqlgrade verify spider2 --pred sql_predictions/ --gold spider2-lite/gold");
  sqlgrade::cli::example(cmd, "sqlgrade verify spider --gold dev_gold.sql --pred pred.sql --db database");
  register_audit(app);
}
