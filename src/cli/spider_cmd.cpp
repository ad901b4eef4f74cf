// `sqlgrade spider`: Spider exact set match / execution accuracy with the official flags, printing
// what taoyds/spider evaluation.py (--compat spider) or test-suite-sql-eval evaluation.py
// (--compat test-suite, the default) prints; and `sqlgrade spider parse` (SQL<TAB>db_id lines →
// the dataset's `sql` JSON).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/spider/bench.hpp"
#include "multi_pred.hpp"
#include "verify_flags.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider/inputs.hpp"
#include "sqlgrade/core/fs.hpp"

namespace {

struct SpiderArgs {
  sqlgrade::spider::Options opt;
  std::vector<std::string> preds, names;
  std::string etype = "exec", compat = "test-suite", json_out, json_dir, shard;
  bool quiet = false, no_progress = false, summary_only = false, require_all = false;
  double max_result_mb = 512;
  sqlgrade::cli::VerifyFlags verify;
};

struct ParseArgs {
  std::string table, input, output, compat = "spider";
};

// One compat mode's runs: warnings (those not already printed by the other mode of --compat both) on
// stderr, each system's output (after a "==> FILE <==" header when there are several) on stdout,
// records written (or held for --verify).
struct ModeOutput {
  std::vector<std::string> held;  // --verify: records written once the search is done
  std::vector<sqlgrade::cli::Pairing> pairing;
};

ModeOutput emit_runs(const SpiderArgs& a, std::vector<sqlgrade::spider::Run>& runs, const std::vector<std::string>& labels,
                     const std::vector<std::string>& json_paths, const std::vector<sqlgrade::spider::Run>* printed) {
  using namespace sqlgrade;
  ModeOutput m;
  m.held.resize(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    spider::Run& run = runs[k];
    run.opt.name = labels[k];
    if (!a.quiet)
      for (const auto& w : run.warnings) {
        const auto& seen = printed ? (*printed)[k].warnings : std::vector<std::string>{};
        if (std::find(seen.begin(), seen.end(), w) == seen.end()) cli::warn(a.preds[k], w, a.opt.gold);
      }
    size_t missing = 0;
    for (const auto& ex : run.examples) missing += ex.has_pred ? 0 : 1;
    m.pairing.push_back({a.preds[k], run.examples.size(), missing, run.extra_preds});
    // --summary-only: the score table without the official per-example dump before it.
    std::string out = a.summary_only ? render_table(run) : render_text(run);
    if (runs.size() > 1) out = (k ? "\n" : "") + cli::system_header(a.preds[k], a.names.empty() ? "" : labels[k]) + out;
    if (!json_paths[k].empty()) {
      if (a.verify.on) m.held[k] = render_json(run, cli::invocation());
      else write_file_atomic(json_paths[k], render_json(run, cli::invocation()));
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  std::fflush(stdout);
  return m;
}

// --compat both: a record path with the mode before its .json extension (run.json → run.spider.json).
std::string with_mode(const std::string& path, const std::string& mode) {
  if (path.empty()) return path;
  const std::string ext = ".json";
  if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
    return path.substr(0, path.size() - ext.size()) + "." + mode + ext;
  return path + "." + mode;
}

// --compat both: each mode's output exactly as its own run prints it, after "==> --compat MODE <==",
// records with the mode in their name, one line on stderr saying what was executed and borrowed.
void run_both(SpiderArgs& a, const std::vector<std::string>& labels, const std::vector<std::string>& json_paths) {
  using namespace sqlgrade;
  std::vector<std::string> sp_paths, ts_paths;
  for (const auto& p : json_paths) {
    sp_paths.push_back(with_mode(p, "spider"));
    ts_paths.push_back(with_mode(p, "test-suite"));
  }
  spider::BothModes both = spider::evaluate_both(a.opt, a.preds);
  std::fputs(spider::both_header(spider::Compat::Spider).c_str(), stdout);
  ModeOutput sp = emit_runs(a, both.spider, labels, sp_paths, nullptr);
  std::fputs(spider::both_header(spider::Compat::TestSuite).c_str(), stdout);
  emit_runs(a, both.test_suite, labels, ts_paths, &both.spider);
  const spider::ExecCounts& c = both.counts;
  if (!a.quiet && a.opt.etype != spider::Etype::Match)
    std::fprintf(stderr,
                 "sqlgrade: --compat both: %llu statements executed (spider pass %llu; test-suite pass %llu more, "
                 "%llu results borrowed from the spider pass)\n",
                 static_cast<unsigned long long>(c.spider + c.test_suite), static_cast<unsigned long long>(c.spider),
                 static_cast<unsigned long long>(c.test_suite), static_cast<unsigned long long>(c.lent));
  if (a.require_all) cli::enforce_require_all(sp.pairing);
}

void run_spider_cmd(SpiderArgs& a) {
  using namespace sqlgrade;
  using namespace sqlgrade::spider;
  const bool both = a.compat == "both";
  a.opt.etype = parse_etype(a.etype);
  if (!both) a.opt.compat = parse_compat(a.compat);
  a.opt.pred = a.preds.empty() ? std::string() : a.preds.front();
  check_required(a.opt);
  cli::check_db_layout(a.opt.db_dir, spider::benchmark().layout(), "spider");
  if (a.no_progress || a.quiet) a.opt.progress = 0;
  a.opt.max_result_bytes = cli::mib_to_bytes(a.max_result_mb);
  cli::apply_shard(a.shard, a.opt.shard_index, a.opt.shard_count);
  const auto labels = cli::system_labels(a.preds, a.names, "--pred");
  auto json_paths = cli::record_paths(a.preds, a.json_out, a.json_dir, "--pred", a.names);
  {  // no output may replace an input (a prediction, the gold, tables.json, the questions, a database)
    std::vector<std::string> outs;
    for (const auto& p : json_paths)
      for (const auto& q : both ? std::vector<std::string>{with_mode(p, "spider"), with_mode(p, "test-suite")}
                                : std::vector<std::string>{p})
        outs.push_back(q);
    std::vector<IoPath> out = cli::io_paths(outs, a.json_dir.empty() ? "--json" : "--json-dir");
    for (auto& c : cli::verify_outputs(a.verify, a.verify.on)) out.push_back(std::move(c));
    check_outputs_spare_inputs(out, spider::run_inputs(a.opt, a.preds));
  }
  const auto vopt = cli::verify_options(a.verify, a.opt.jobs, a.no_progress);
  if (a.verify.on) verify::check_verifiable(a.opt, both);
  a.opt.keep_rows = !a.json_out.empty() || !a.json_dir.empty();  // only a record shows them
  if (both) return run_both(a, labels, json_paths);
  std::vector<Run> runs = evaluate_many(a.opt, a.preds);
  ModeOutput m = emit_runs(a, runs, labels, json_paths, nullptr);
  if (a.verify.on) {
    const auto reps = verify::verify_spider(runs, a.preds, vopt);
    cli::print_verify(reps);
    cli::write_verified_records(json_paths, m.held, reps, vopt);
  }
  if (a.require_all) cli::enforce_require_all(m.pairing);
}

void run_parse_cmd(ParseArgs& a) {
  using namespace sqlgrade;
  if (!a.output.empty() && a.output != "-")
    check_outputs_spare_inputs({{a.output, "--out"}}, {{a.table, "--table"}, {a.input == "-" ? "" : a.input, "--input"}});
  std::string text;
  if (a.input.empty() || a.input == "-") {
    text = read_stdin();  // bounded by --max-input-mb, as a file
  } else {
    text = read_file(a.input);
  }
  auto parsed = spider::parse_to_json(std::move(text), a.table, a.compat == "test-suite");
  const std::string& out = parsed.json;
  if (parsed.n_errors)
    std::fprintf(stderr, "sqlgrade: warning: %zu query(ies) did not parse (\"sql\": null, see \"error\")\n",
                 parsed.n_errors);
  if (a.output.empty() || a.output == "-") {
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  } else {
    write_file_atomic(a.output, out);
  }
}

}  // namespace

void register_spider_command(CLI::App& app) {
  auto args = std::make_shared<SpiderArgs>();
  auto* cmd = app.add_subcommand("spider", "Spider exact set match and execution / test-suite accuracy (official flags)");
  sqlgrade::cli::path_role(cmd->add_option("--gold", args->opt.gold, "gold file: SQL<TAB>db_id per line (blank lines separate interactions)"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::path_role(cmd->add_option("--pred", args->preds,
                  "predictions: one SQL per line (text after a TAB is ignored); repeat for several systems graded in one pass"), sqlgrade::cli::PathRole::ReadsFile);
  cmd->add_option("--name", args->names,
                  "the system's name in the run record, headers, diff and report; one per --pred, in order "
                  "(default: the file name, with its folders when two systems share it)");
  sqlgrade::cli::path_role(cmd->add_option("--questions", args->opt.questions,
                  "dev.json: question text for the run record (default: dev.json beside --gold when it matches)"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::add_db(cmd, args->opt.db_dir, "database folder: <db>/<db_id>/<db_id>.sqlite (+ test-suite variants)");
  sqlgrade::cli::path_role(cmd->add_option("--table", args->opt.table, "tables.json (foreign keys; needed for match/all and --compat spider)"), sqlgrade::cli::PathRole::ReadsFile);
  cmd->add_option("--etype", args->etype, "match, exec or all (default exec, as test-suite)");
  cmd->add_flag("--plug_value", args->opt.plug_value, "test-suite: fill gold values into the prediction's slots");
  cmd->add_flag("--keep_distinct", args->opt.keep_distinct, "test-suite: keep DISTINCT when executing");
  cmd->add_flag("--progress_bar_for_each_datapoint", args->opt.progress_each, "show a progress bar");
  cmd->add_option("--compat", args->compat,
                  "spider (taoyds/spider evaluation.py), test-suite (default), or both: the two runs in one pass, "
                  "sharing executions (records NAME.spider.json, NAME.test-suite.json)");
  sqlgrade::cli::add_timeout(cmd, args->opt.timeout_s, "per-query timeout in seconds (default 60; timed-out predictions score 0)");
  sqlgrade::cli::add_jobs(cmd, args->opt.jobs);
  sqlgrade::cli::add_now(cmd, args->opt.now);
  sqlgrade::cli::path_role(cmd->add_option("--json", args->json_out, "also write the run record (docs/run-record.schema.json)"), sqlgrade::cli::PathRole::WritesFile);
  sqlgrade::cli::path_role(cmd->add_option("--json-dir", args->json_dir, "several --pred: one run record per prediction file, DIR/<name>.json"), sqlgrade::cli::PathRole::WritesFolder);
  cmd->add_option("--shard", args->shard, "grade only shard i of n (i/n, split by question index; see sqlgrade merge)");
  sqlgrade::cli::add_shard_by(cmd, args->opt.shard_by);
  sqlgrade::cli::add_quiet(cmd, args->quiet);
  cmd->add_flag("--summary-only", args->summary_only,
                "print only the score table (not the official per-example mismatch dump of --etype match/all)");
  sqlgrade::cli::add_require_all(cmd, args->require_all);
  sqlgrade::cli::add_no_progress(cmd, args->no_progress);
  sqlgrade::cli::add_max_rows(cmd, args->opt.max_rows, "result rows of a gold query before it is stopped (a prediction is read "
                                                      "up to the gold's row count)");
  sqlgrade::cli::add_max_result_mb(cmd, args->max_result_mb, "result size cap of a gold query, MiB (past it: a gold error)");
  sqlgrade::cli::add_verify_flags(cmd, args->verify, true);

  auto pargs = std::make_shared<ParseArgs>();
  auto* parse = cmd->add_subcommand("parse", "SQL<TAB>db_id lines → the dataset's `sql` structure as JSON");
  sqlgrade::cli::path_role(parse->add_option("--table", pargs->table, "tables.json (schema: table_names_original, column_names_original)"), sqlgrade::cli::PathRole::ReadsFile)->required();
  sqlgrade::cli::path_role(parse->add_option("--input,-i", pargs->input, "input file (default: stdin)"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::add_out(parse, pargs->output, "output file (default: stdout)", "-o,--output");
  parse->add_option("--compat", pargs->compat, "LIMIT handling: spider (default, as the dataset) or test-suite");
  parse->callback([pargs] { run_parse_cmd(*pargs); });
  sqlgrade::cli::example(parse, "sqlgrade spider parse --table tables.json -i queries.tsv -o parsed.json");
  sqlgrade::cli::example(cmd, "sqlgrade spider --gold dev_gold.sql --pred pred.sql --db database --table tables.json --etype all --summary-only");

  cmd->callback([args, parse] {
    if (parse->parsed()) return;
    run_spider_cmd(*args);
  });
}
