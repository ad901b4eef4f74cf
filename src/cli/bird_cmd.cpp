// `sqlgrade bird`: BIRD EX / Soft-F1 / EM+F1 / VES / R-VES with the official flags, plus
// `sqlgrade bird subset` and `sqlgrade bird schema-prompt` (works_cycles prompt-optimisation subset).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/bird/bench.hpp"
#include "multi_pred.hpp"
#include "verify_flags.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/bird.hpp"
#include "sqlgrade/bird/inputs.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/engine/server.hpp"

namespace {

struct BirdArgs {
  sqlgrade::cli::VerifyFlags verify;
  sqlgrade::bird::Options opt;
  std::vector<std::string> preds, names;
  std::string metric = "ex", pair_by = "auto", output_log_path, json_out, json_dir, shard;
  std::string mode_gt, mode_predict, difficulty;  // accepted for compatibility, unused (as officially)
  bool quiet = false, no_progress = false, require_all = false;
  double max_result_mb = 512;
};

struct SubsetArgs {
  sqlgrade::bird::SubsetOptions opt;
  std::string out;
};

struct SchemaArgs {
  std::string db;
  int rows = 0;
  bool keep_seq = false;
};

void run_bird(BirdArgs& a) {
  using namespace sqlgrade;
  a.opt.metric = bird::metric_from_name(a.metric);
  a.opt.pair_by = bird::pair_by_from_name(a.pair_by);
  a.opt.pred = a.preds.empty() ? std::string() : a.preds.front();
  bird::check_required(a.opt);
  if (a.opt.dsn.empty()) cli::check_db_layout(a.opt.db_dir, bird::benchmark().layout(), "bird");
  if (a.no_progress || a.quiet) a.opt.progress = 0;
  a.opt.max_result_bytes = cli::mib_to_bytes(a.max_result_mb);
  cli::apply_shard(a.shard, a.opt.shard_index, a.opt.shard_count);
  const auto labels = cli::system_labels(a.preds, a.names, "--predicted_sql_path");
  auto json_paths = cli::record_paths(a.preds, a.json_out, a.json_dir, "--predicted_sql_path", a.names);
  const auto vopt = cli::verify_options(a.verify, a.opt.jobs, a.no_progress);
  if (a.verify.on) verify::check_verifiable(a.opt);
  ServerPool::configure(resolve_jobs(a.opt.jobs) + 1);  // server connections: one per worker
  a.opt.pred = a.preds[0];
  a.opt.keep_rows = !a.json_out.empty() || !a.json_dir.empty();  // only a record shows them
  {  // no output (a record, the log) may replace an input (a prediction, the gold, a database)
    std::vector<IoPath> out = cli::io_paths(json_paths, a.json_dir.empty() ? "--json" : "--json-dir");
    if (!a.output_log_path.empty()) out.push_back({a.output_log_path, "--output_log_path"});
    for (auto& c : cli::verify_outputs(a.verify, a.verify.on)) out.push_back(std::move(c));
    check_outputs_spare_inputs(out, bird::run_inputs(a.opt, a.preds));
  }
  const size_t n = a.preds.size();
  auto runs = bird::evaluate_many(a.opt, a.preds, [&a](size_t k, const std::string& w) {
    if (!a.quiet) cli::warn(a.preds[k], w);  // names the prediction file, also for one system
  });
  if (!a.output_log_path.empty()) {  // appended to: each system's block, in order
    std::string log;
    std::error_code ec;
    if (fs::exists(a.output_log_path, ec)) log = read_file(a.output_log_path);
    for (const auto& res : runs) log += bird::render_log_block(res);
    write_file_atomic(a.output_log_path, log);
  }
  std::vector<std::string> held(runs.size());  // --verify: records written once the search is done
  for (size_t k = 0; k < runs.size(); ++k) {
    auto& res = runs[k];
    res.opt.name = labels[k];
    std::string out = bird::render_text(res);
    if (n > 1) out = (k ? "\n" : "") + cli::system_header(a.preds[k], a.names.empty() ? "" : labels[k]) + out;
    if (!json_paths[k].empty()) {
      if (a.verify.on) held[k] = bird::render_json(res, cli::invocation());
      else write_file_atomic(json_paths[k], bird::render_json(res, cli::invocation()));
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  std::fflush(stdout);
  if (a.verify.on) {
    const auto reps = verify::verify_bird(runs, a.preds, vopt);
    cli::print_verify(reps);
    cli::write_verified_records(json_paths, held, reps, vopt);
  }
  if (a.require_all) {
    std::vector<cli::Pairing> pairing;
    for (size_t k = 0; k < n; ++k) {
      size_t missing = 0;
      for (const auto& it : runs[k].items) missing += it.has_pred ? 0 : 1;
      pairing.push_back({a.preds[k], runs[k].items.size(), missing, runs[k].extra_preds});
    }
    cli::enforce_require_all(pairing);
  }
}

void run_subset(SubsetArgs& a) {
  using namespace sqlgrade;
  auto s = bird::build_subset(a.opt);
  if (!a.out.empty()) {  // train.json & co. must not replace --data (BIRD's own train.json) or --db
    std::vector<IoPath> out;
    for (const auto& f : bird::subset_files(s)) out.push_back({fs::path(a.out) / f.first, "--out-dir"});
    check_outputs_spare_inputs(out, {{a.opt.data_path, "--data"}, {a.opt.db_path, "--db"}});
  }
  if (a.out.empty()) {
    std::string o = bird::render_subset_json(s);
    std::fwrite(o.data(), 1, o.size(), stdout);
  } else {
    for (const auto& [name, content] : bird::subset_files(s)) write_file_atomic(fs::path(a.out) / name, content);
  }
  std::fprintf(stderr, "sqlgrade: %s: %zu questions with db_id %s; shuffled with seed %llu; train %zu, valid %zu\n",
               a.opt.data_path.c_str(), s.matched, a.opt.db_id.c_str(),
               static_cast<unsigned long long>(a.opt.seed), s.train.size(), s.valid.size());
  if (s.train.size() + s.valid.size() < a.opt.train + a.opt.valid)
    std::fprintf(stderr, "sqlgrade: warning: fewer matching questions than --train + --valid\n");
}

// `bird subset`: the works_cycles-style subset recipe.
CLI::App* add_subset_command(CLI::App* cmd) {
  auto sargs = std::make_shared<SubsetArgs>();
  auto* sub = cmd->add_subcommand("subset", "build the works_cycles-style subset: filter by db_id, shuffle, split");
  sqlgrade::cli::path_role(sub->add_option("--data", sargs->opt.data_path, "BIRD train.json"), sqlgrade::cli::PathRole::ReadsFile)->required();
  sub->add_option("--db-id", sargs->opt.db_id, "database to keep")->capture_default_str();
  sub->add_option("--seed", sargs->opt.seed, "shuffle seed (CPython random.Random(seed).shuffle)")
      ->capture_default_str()
      ->check(sqlgrade::cli::bounded("seed"));
  sub->add_option("--train", sargs->opt.train, "training items")->capture_default_str()->check(sqlgrade::cli::bounded("count"));
  sub->add_option("--valid", sargs->opt.valid, "validation items")->capture_default_str()->check(sqlgrade::cli::bounded("count"));
  sqlgrade::cli::add_out_dir(sub, sargs->out, "folder for train.json, valid.json, train_gold.sql, valid_gold.sql (default: stdout)", "--out");
  sqlgrade::cli::path_role(sub->add_option("--db", sargs->opt.db_path, "database file: add the schema prompt to every item"), sqlgrade::cli::PathRole::ReadsFile);
  sub->add_option("--rows", sargs->opt.rows, "example rows per table in the schema prompt")->check(sqlgrade::cli::bounded("example_rows"));
  sub->add_flag("--keep-sqlite-sequence", sargs->opt.keep_sqlite_sequence, "do not skip sqlite_sequence");
  sub->callback([sargs] { run_subset(*sargs); });
  sqlgrade::cli::example(sub, "sqlgrade bird subset --data train.json --db works_cycles.sqlite --out-dir subset/");
  return sub;
}

// `bird schema-prompt`: the subset recipe's schema prompt of one database.
CLI::App* add_schema_prompt_command(CLI::App* cmd) {
  auto pargs = std::make_shared<SchemaArgs>();
  auto* sp = cmd->add_subcommand("schema-prompt", "print the subset recipe's schema prompt of a database");
  sqlgrade::cli::path_role(sp->add_option("--db", pargs->db, "SQLite database file"), sqlgrade::cli::PathRole::ReadsFile)->required();
  sp->add_option("--rows", pargs->rows, "example rows per table (0 = none)")->capture_default_str()->check(sqlgrade::cli::bounded("example_rows"));
  sp->add_flag("--keep-sqlite-sequence", pargs->keep_seq, "do not skip sqlite_sequence");
  sp->callback([pargs] {
    std::string s = sqlgrade::bird::schema_prompt(pargs->db, pargs->rows, pargs->keep_seq) + "\n";
    std::fwrite(s.data(), 1, s.size(), stdout);
  });
  sqlgrade::cli::example(sp, "sqlgrade bird schema-prompt --db dev_databases/california_schools/california_schools.sqlite --rows 3");
  return sp;
}

}  // namespace

void register_bird_command(CLI::App& app) {
  auto args = std::make_shared<BirdArgs>();
  auto* cmd = app.add_subcommand("bird", "BIRD execution accuracy (EX), Soft-F1, EM+F1, VES and R-VES (official flags)");
  cmd->require_subcommand(0, 1);
  auto& o = args->opt;
  sqlgrade::cli::path_role(cmd->add_option("--pred,--predicted_sql_path", args->preds,
                  "prediction JSON {\"0\": \"SQL\\t----- bird -----\\tdb_id\"} (or a folder with --data_mode); "
                  "repeat for several systems graded in one pass"), sqlgrade::cli::PathRole::ReadsFile);
  cmd->add_option("--name", args->names,
                  "the system's name in the run record, headers, diff and report; one per --predicted_sql_path, in order "
                  "(default: the file name, with its folders when two systems share it)");
  sqlgrade::cli::path_role(cmd->add_option("--gold,--ground_truth_path", o.gold, "gold file, one SQL<TAB>db_id per line (or a folder)"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::add_db(cmd, o.db_dir, "database folder: <db_id>/<db_id>.sqlite", "--db_root_path");
  sqlgrade::cli::path_role(cmd->add_option("--diff_json_path", o.diff_json, "difficulty file: JSONL (Mini-Dev) or JSON array (dev.json)"), sqlgrade::cli::PathRole::ReadsFile);
  cmd->add_option("--metric", args->metric, "ex | soft-f1 | em-f1 | ves | r-ves")->capture_default_str();
  sqlgrade::cli::add_jobs(cmd, o.jobs, "--num_cpus");
  sqlgrade::cli::add_now(cmd, o.now);
  sqlgrade::cli::add_timeout(cmd, o.timeout_s, "seconds per prediction query", "--meta_time_out")->capture_default_str();
  cmd->add_option("--gold-timeout,--gold_time_out", o.gold_timeout_s, "seconds per gold query (default: --timeout)")
      ->check(sqlgrade::cli::bounded("timeout"));
  cmd->add_option("--sql_dialect", o.sql_dialect, "SQLite | PostgreSQL | MySQL (the last two on the server --dsn names)")
      ->capture_default_str();
  cmd->add_option("--dsn", o.dsn,
                  "PostgreSQL/MySQL: the database's URI through a login that can only read, e.g. "
                  "postgresql://sqlgrade_reader@/bird?host=/run/pg or mysql://sqlgrade_reader@localhost/BIRD?socket=/run/my.sock "
                  "(sqlgrade db load)");
  sqlgrade::cli::path_role(cmd->add_option("--output_log_path", args->output_log_path, "append the Mini-Dev log block to this file"), sqlgrade::cli::PathRole::WritesFile);
  cmd->add_option("--data_mode", o.data_mode, "original BIRD layout: read predict_<mode>.json / <mode>_gold.sql");
  cmd->add_option("--mode_gt", args->mode_gt, "accepted and ignored (as in the original script)");
  cmd->add_option("--mode_predict", args->mode_predict, "accepted and ignored (as in the original script)");
  cmd->add_option("--difficulty", args->difficulty, "accepted and ignored (as in the original script)");
  cmd->add_option("--repeat", o.repeat, "VES/R-VES timing iterations")->capture_default_str()->check(sqlgrade::cli::bounded("repeat"));
  cmd->add_option("--pair-by", args->pair_by, "auto | index | question_id | position (official: position)")
      ->capture_default_str();
  cmd->add_flag("--answer-json", o.answer_json, "predictions are model outputs with {\"answer\": \"<SQL>\"}");
  sqlgrade::cli::add_max_rows(cmd, o.max_rows, "result rows before a query is stopped");
  sqlgrade::cli::add_max_result_mb(cmd, args->max_result_mb, "result size cap per query, MiB (past it: pred_too_large / gold_too_large)");
  sqlgrade::cli::path_role(cmd->add_option("--json", args->json_out, "also write the run record (docs/run-record.schema.json)"), sqlgrade::cli::PathRole::WritesFile);
  sqlgrade::cli::path_role(cmd->add_option("--json-dir", args->json_dir, "several systems: one run record per prediction file, DIR/<name>.json"), sqlgrade::cli::PathRole::WritesFolder);
  cmd->add_option("--shard", args->shard, "grade only shard i of n (i/n, split by question_id; see sqlgrade merge)");
  sqlgrade::cli::add_shard_by(cmd, args->opt.shard_by);
  sqlgrade::cli::add_quiet(cmd, args->quiet);
  sqlgrade::cli::add_require_all(cmd, args->require_all);
  sqlgrade::cli::add_no_progress(cmd, args->no_progress);
  sqlgrade::cli::add_verify_flags(cmd, args->verify, true);

  CLI::App* sub = add_subset_command(cmd);
  CLI::App* sp = add_schema_prompt_command(cmd);
  sqlgrade::cli::example(cmd, "sqlgrade bird --pred predict_mini_dev.json --gold mini_dev_sqlite_gold.sql --db dev_databases "
                              "--diff_json_path mini_dev_sqlite.jsonl --metric ex");
  cmd->callback([args, sub, sp] {
    if (sub->parsed() || sp->parsed()) return;
    run_bird(*args);
  });
}
