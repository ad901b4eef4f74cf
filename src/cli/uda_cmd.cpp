// `sqlgrade uda prepare|gold|eval|run` — UDA-Bench / OpenQuest accuracy.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "flags.hpp"
#include "multi_pred.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda.hpp"

namespace {

using namespace sqlgrade;
using namespace sqlgrade::uda;

struct CommonFlags {
  std::string attributes_file, gt_dir, table_map, judge = "rules";
  RunOptions run;
  // LLM judge (`--judge llm`); empty strings fall back to SQLGRADE_LLM_* / the default cache path.
  std::string llm_provider, llm_base_url, llm_model, llm_api_key, llm_cache, judge_log;
  int llm_concurrency = 4, llm_retries = 3, llm_max_tokens = 0, llm_max_failures = 8;
  double llm_timeout = 60;
  double max_result_mb = 64;
  bool no_progress = false;
};

void add_common(CLI::App* c, CommonFlags& f, bool eval_flags) {
  sqlgrade::cli::path_role(c->add_option("--attributes-file", f.attributes_file, "attributes JSON (default: <dataset>/*_attributes.json)"), sqlgrade::cli::PathRole::ReadsFile);
  sqlgrade::cli::path_role(c->add_option("--gt-dir", f.gt_dir, "folder with the gold CSV tables (default: the dataset folder)"), sqlgrade::cli::PathRole::ReadsFolder);
  sqlgrade::cli::path_role(c->add_option("--table-map", f.table_map, "JSON {sql_table: {\"csv\": \"File.csv\", \"attributes\": \"key\"}} overriding name resolution"), sqlgrade::cli::PathRole::ReadsFile);
  cli::add_jobs(c, f.run.jobs);
  c->add_option("--memory-limit", f.run.dataset.memory_limit,
                "DuckDB memory limit for the gold tables and queries, e.g. 2GB, 512MiB")
      ->capture_default_str()
      ->check([](const std::string& v) -> std::string { return memory_size_error(v); });
  c->add_option("--gold-timeout", f.run.eval.gold_timeout_s, "seconds each gold query may run on DuckDB")
      ->capture_default_str()
      ->check(cli::bounded("timeout"));
  cli::add_no_progress(c, f.no_progress);
  if (eval_flags) {
    c->add_option("--primary-key", f.run.eval.primary_key, "column matching multi-entity rows inside one id (default: first non-id select column)");
    c->add_option("--float-tolerance", f.run.eval.float_tolerance,
                  "float cells match when |p-g| <= tol*max(1,|g|): absolute below |g| = 1, relative above")
        ->capture_default_str()
        ->check(cli::bounded("float_tolerance"));
    c->add_option("--multi-value-sep", f.run.eval.multi_sep, "separator of multi-value cells")->capture_default_str();
    cli::add_max_result_mb(c, f.max_result_mb, "a result.csv larger than this (MiB) is not read: the statement scores 0");
    cli::add_max_rows(c, f.run.eval.max_rows, "result rows of a gold query before it is stopped (the statement: gold_error)");
    c->add_option("--judge", f.judge, "cell judge: rules (offline, default) or llm (OpenAI-compatible server)")
        ->check(cli::choice(&JudgeOptions::kind_from_name, "{rules,llm}"));
    c->add_option("--llm-provider", f.llm_provider, "reference-CLI alias: none = --judge rules, openai = --judge llm")
        ->check(CLI::IsMember({"none", "openai"}));
    c->add_option("--llm-base-url", f.llm_base_url, "chat-completions base URL, e.g. http://127.0.0.1:8000/v1 (env SQLGRADE_LLM_BASE_URL)");
    c->add_option("--llm-model", f.llm_model, "model name as the server knows it (env SQLGRADE_LLM_MODEL)");
    c->add_option("--llm-api-key", f.llm_api_key, "API key, sent as a Bearer token (env SQLGRADE_LLM_API_KEY, preferred)");
    sqlgrade::cli::path_role(c->add_option("--llm-cache", f.llm_cache, "answer cache (SQLite file; 'none' disables; default $SQLGRADE_LLM_CACHE or ~/.cache/sqlgrade/llm-judge.sqlite)"), sqlgrade::cli::PathRole::WritesFile);
    c->add_option("--llm-concurrency", f.llm_concurrency, "requests in flight at once")->capture_default_str()->check(cli::bounded("llm_concurrency"));
    c->add_option("--llm-timeout", f.llm_timeout, "seconds per request")->capture_default_str()->check(cli::bounded("llm_timeout"));
    c->add_option("--llm-retries", f.llm_retries, "retries on 429/5xx/connection errors (exponential backoff)")->capture_default_str()->check(cli::bounded("llm_retries"));
    c->add_option("--llm-max-tokens", f.llm_max_tokens, "max_tokens per reply (default: 8 for YES/NO, 12 for counts)")->check(cli::bounded("llm_max_tokens"));
    c->add_option("--llm-max-failures", f.llm_max_failures, "stop asking after this many failed calls in a row (0: never)")->capture_default_str()->check(cli::bounded("llm_max_failures"));
    sqlgrade::cli::path_role(c->add_option("--judge-log", f.judge_log, "write every judged question and its answer as JSON Lines to FILE"), sqlgrade::cli::PathRole::WritesFile);
  }
}

void apply_common(CommonFlags& f) {
  if (f.no_progress) f.run.progress = 0;
  f.run.eval.max_result_bytes = sqlgrade::cli::mib_to_bytes(f.max_result_mb);
  if (!f.attributes_file.empty()) f.run.dataset.attributes_file = f.attributes_file;
  if (!f.gt_dir.empty()) f.run.dataset.gt_dir = f.gt_dir;
  if (!f.table_map.empty()) f.run.dataset.table_map = f.table_map;
}

JudgeOptions judge_options(const CommonFlags& f) {
  JudgeOptions o;
  std::string kind = f.judge;
  if (f.llm_provider == "openai") kind = "llm";
  if (f.llm_provider == "none") kind = "rules";
  o.kind = JudgeOptions::kind_from_name(kind);
  o.base_url = f.llm_base_url, o.model = f.llm_model, o.api_key = f.llm_api_key, o.cache = f.llm_cache;
  o.concurrency = f.llm_concurrency, o.retries = f.llm_retries, o.max_tokens = f.llm_max_tokens;
  o.max_failures = f.llm_max_failures, o.timeout_s = f.llm_timeout, o.log = f.judge_log;
  return o;
}

// --json must not replace what the datasets read (query files, gold tables, attributes, table map)
// nor a result (issue 19, finding 11); the library checks its own outputs, the judge's log and cache.
void check_cli_outputs(const CommonFlags& f, const std::string& dataset_dir, const std::vector<IoPath>& extra_inputs,
                       const std::string& json_out) {
  std::vector<IoPath> in{{dataset_dir, "--dataset-dir", {".sql", ".csv", "_attributes.json"}}, {f.gt_dir, "--gt-dir", {".csv"}},
                         {f.attributes_file, "--attributes-file"}, {f.table_map, "--table-map"}};
  in.insert(in.end(), extra_inputs.begin(), extra_inputs.end());
  check_outputs_spare_inputs({{json_out, "--json"}}, in);
}

void print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

// `uda eval -q`: the statement's score on one line, from its acc.json — the macro precision, recall and
// F1 that `uda run` averages; a statement not scored reads "status error" (it counts 0).
std::string score_line(const std::string& acc_json) {
  const nlohmann::json j = nlohmann::json::parse(acc_json, nullptr, false);
  auto num = [&j](const char* k) { return j.contains(k) && j[k].is_number() ? j[k].get<double>() : 0.0; };
  if (!j.is_object() || j.value("status", std::string()) != "ok")
    return "precision 0.0000 recall 0.0000 f1 0.0000 (status error)";
  char buf[128];
  std::snprintf(buf, sizeof buf, "precision %.4f recall %.4f f1 %.4f", num("macro_precision"), num("macro_recall"), num("macro_f1"));
  return buf;
}

// `uda eval`: one query.
void register_uda_eval(CLI::App* uda) {
  auto f = std::make_shared<CommonFlags>();
  struct EvalFlags {
    std::string dataset, dataset_dir, query_root = "Query", sql_file, result_csv, output_dir, task;
    int query_id = 0;
    bool quiet = false;
  };
  auto e = std::make_shared<EvalFlags>();
  auto* c = uda->add_subcommand("eval", "evaluate one query's result.csv");
  c->add_option("--dataset", e->dataset, "dataset name, resolved as <query-root>/<name>");
  sqlgrade::cli::path_role(c->add_option("--query-root", e->query_root, "folder holding the datasets"), sqlgrade::cli::PathRole::ReadsFolder)->capture_default_str();
  sqlgrade::cli::path_role(c->add_option("--dataset-dir", e->dataset_dir, "dataset folder (instead of --dataset)"), sqlgrade::cli::PathRole::ReadsFolder);
  sqlgrade::cli::path_role(c->add_option("--sql-file", e->sql_file, "sql.json, or a .sql file (with --query-id for one of its statements)"), sqlgrade::cli::PathRole::ReadsFile)->required();
  c->add_option("--query-id", e->query_id, "1-based statement number inside a .sql file")->check(cli::bounded("query_id"));
  sqlgrade::cli::path_role(c->add_option("--result-csv", e->result_csv, "the system's result (default: result.csv beside sql.json)"), sqlgrade::cli::PathRole::ReadsFile);
  cli::add_out_dir(c, e->output_dir, "where acc.json and the CSVs go (default: <result dir>/acc_result)", "--output-dir");
  c->add_option("--task", e->task, "task name (informational)");
  c->add_flag("--quiet,-q", e->quiet, "print only the score (macro precision, recall, F1), not acc.json");
  add_common(c, *f, true);
  cli::add_now(c, f->run.now);
  cli::example(c, "sqlgrade uda eval --dataset-dir UDA-Bench/Query/Art --sql-file runs/Art/Select/select_queries/1/sql.json -q");
  c->callback([=] {
    apply_common(*f);
    QueryOptions q;
    q.dataset_dir = e->dataset_dir, q.dataset = e->dataset, q.query_root = e->query_root;
    q.sql_file = e->sql_file, q.query_id = e->query_id, q.result_csv = e->result_csv, q.output_dir = e->output_dir;
    q.run = f->run, q.judge = judge_options(*f);
    const QueryReport r = evaluate_query(q);
    if (!e->quiet) std::printf("%s\n", r.acc_json.c_str());
    else std::printf("%s\n", score_line(r.acc_json).c_str());
    if (!r.judge_summary.empty() && !e->quiet) std::fprintf(stderr, "%s\n", r.judge_summary.c_str());
    if (!r.ok) {
      std::fprintf(stderr, "sqlgrade: %s\n", cli::first_line(r.reason).c_str());
      throw cli::Exit{1};
    }
  });
}

// `uda run`: whole datasets, a summary per dataset and the run record.
void register_uda_run(CLI::App* uda) {
  auto f = std::make_shared<CommonFlags>();
  auto dataset_dir = std::make_shared<std::string>();
  auto results = std::make_shared<std::string>();
  auto verbose = std::make_shared<bool>(false);
  auto require_all = std::make_shared<bool>(false);
  auto json_out = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  auto* c = uda->add_subcommand("run", "evaluate every statement of the datasets against <results>/<Dataset>/<Task>/<stem>/<n>/result.csv; summary per dataset");
  sqlgrade::cli::path_role(c->add_option("--dataset-dir", *dataset_dir, "Query/<Dataset> (or Query/ for every dataset)"), sqlgrade::cli::PathRole::ReadsFolder)->required();
  sqlgrade::cli::path_role(c->add_option("--results", *results, "results root holding <Dataset>/<Task>/<file stem>/<n>/result.csv"), sqlgrade::cli::PathRole::ReadsFolder)->required();
  c->add_flag("--list-errors", *verbose, "print every statement that was not scored, with its reason");
  c->add_flag("--require-all", *require_all,
              "exit 1 when a statement with a gold result has no result.csv or an unusable one (it scores 0 either way)");
  sqlgrade::cli::path_role(c->add_option("--json", *json_out, "also write the run record (docs/run-record.schema.json) to FILE"), sqlgrade::cli::PathRole::WritesFile);
  c->add_option("--name", *name, "the system's name in the run record, diff and report (default: the --results folder's name)");
  auto shard = std::make_shared<std::string>();
  c->add_option("--shard", *shard,
                "grade only shard i of n (\"i/n\", split by statement path; summary.json/.csv cover that shard; see `sqlgrade merge`)");
  cli::add_shard_by(c, f->run.shard_by);
  add_common(c, *f, true);
  cli::add_now(c, f->run.now);
  cli::example(c, "sqlgrade uda run --dataset-dir UDA-Bench/Query --results runs/ --json uda.json");
  c->callback([=] {
    apply_common(*f);
    cli::apply_shard(*shard, f->run.shard_index, f->run.shard_count);
    Options o;
    o.dataset_dir = *dataset_dir, o.results = *results, o.name = *name, o.run = f->run, o.judge = judge_options(*f);
    check_cli_outputs(*f, *dataset_dir, {{*results, "--results", {"result.csv", "sql.json"}}}, *json_out);
    const Run run = evaluate(o);
    if (!json_out->empty()) write_file_atomic(*json_out, render_json(run, o, cli::invocation()));
    print(render_text(run, *verbose));
    if (*require_all) {
      const SummaryCounts t = totals(run);
      if (t.missing_results + t.result_errors > 0) {
        std::fflush(stdout);
        std::fprintf(stderr, "sqlgrade: --require-all: %zu missing result(s) and %zu result error(s) (scored 0; see summary.json)\n",
                     t.missing_results, t.result_errors);
        throw cli::Exit{1};
      }
    }
  });
}

}  // namespace

void register_uda_command(CLI::App& app) {
  auto* uda = app.add_subcommand("uda", "UDA-Bench / OpenQuest accuracy of SQL-over-documents extraction");
  uda->require_subcommand(1);
  cli::example(uda, "sqlgrade uda run --dataset-dir UDA-Bench/Query --results runs/");

  // prepare / gold
  for (bool with_gold : {false, true}) {
    auto f = std::make_shared<CommonFlags>();
    auto dataset_dir = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto list_errors = std::make_shared<bool>(false);
    auto* c = uda->add_subcommand(with_gold ? "gold" : "prepare",
                                  with_gold ? "write each statement's gold_result.csv (and sql.json) into the per-query folders"
                                            : "split the query files into per-query folders with sql.json");
    sqlgrade::cli::path_role(c->add_option("--dataset-dir", *dataset_dir, "Query/<Dataset> (or Query/ for every dataset)"), sqlgrade::cli::PathRole::ReadsFolder)->required();
    cli::add_out_dir(c, *out, "output root: DIR/<Dataset>/<Task>/<file stem>/<n>/", "--out")->required();
    add_common(c, *f, false);
    if (with_gold) {
      c->add_flag("--as-result", f->run.gold_as_result,
                  "also write result.csv = the gold result with file-name ids (a perfect system, for checks and benchmarks)");
      c->add_flag("--list-errors", *list_errors, "print each gold error's whole message (default: its first sentence)");
      cli::add_max_rows(c, f->run.eval.max_rows, "result rows of a gold query before it is stopped (a gold error)");
      cli::add_now(c, f->run.now);
    }
    c->callback([=] {
      apply_common(*f);
      PrepareOptions p;
      p.dataset_dir = *dataset_dir, p.out = *out, p.with_gold = with_gold, p.run = f->run;
      print(render_prepare_text(prepare(p), with_gold, *list_errors));
    });
    cli::example(c, std::string("sqlgrade uda ") + (with_gold ? "gold" : "prepare") +
                        " --dataset-dir UDA-Bench/Query --out-dir runs/" + (with_gold ? " --as-result" : ""));
  }

  register_uda_eval(uda);
  register_uda_run(uda);  // run (whole datasets)
}
