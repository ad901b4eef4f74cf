// `sqlgrade uda prepare|gold|eval|run` — UDA-Bench / OpenQuest accuracy.
#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdio>
#include <iostream>
#include <string_view>

#include "cli_common.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda/judge/judge.hpp"
#include "sqlgrade/uda/judge/llm_judge.hpp"
#include "sqlgrade/uda/judge/llm_trace.hpp"
#include "sqlgrade/uda/driver.hpp"
#include "sqlgrade/core/fs.hpp"

namespace {

using namespace sqlgrade;
using namespace sqlgrade::uda;

// A DuckDB memory size: `\s*[0-9]+(\.[0-9]+)?\s*([KMGT]i?B|B|bytes)\s*`, case-insensitive (hand-written:
// sqlgrade uses no backtracking regex engine).
bool is_memory_size(std::string_view v) {
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  auto up = [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); };
  size_t i = 0, n = v.size();
  while (i < n && space(v[i])) ++i;
  size_t d = i;
  while (i < n && digit(v[i])) ++i;
  if (i == d) return false;
  if (i + 1 < n && v[i] == '.' && digit(v[i + 1])) {
    ++i;
    while (i < n && digit(v[i])) ++i;
  }
  while (i < n && space(v[i])) ++i;
  size_t e = n;
  while (e > i && space(v[e - 1])) --e;
  std::string unit;
  for (size_t k = i; k < e; ++k) unit += up(v[k]);
  if (unit == "B" || unit == "BYTES") return true;
  if (unit.size() < 2 || unit.size() > 3 || std::string_view("KMGT").find(unit[0]) == std::string_view::npos) return false;
  return unit.size() == 2 ? unit[1] == 'B' : unit[1] == 'I' && unit[2] == 'B';
}

struct CommonFlags {
  std::string attributes_file, gt_dir, table_map, judge = "rules";
  RunOptions run;
  // LLM judge (`--judge llm`); empty strings fall back to SQLGRADE_LLM_* / the default cache path.
  std::string llm_provider, llm_base_url, llm_model, llm_api_key, llm_cache, judge_log;
  int llm_concurrency = 4, llm_retries = 3, llm_max_tokens = 0, llm_max_failures = 8;
  double llm_timeout = 60;
};

void add_common(CLI::App* c, CommonFlags& f, bool eval_flags) {
  c->add_option("--attributes-file", f.attributes_file, "attributes JSON (default: <dataset>/*_attributes.json)");
  c->add_option("--gt-dir", f.gt_dir, "folder with the gold CSV tables (default: the dataset folder)");
  c->add_option("--table-map", f.table_map, "JSON {sql_table: {\"csv\": \"File.csv\", \"attributes\": \"key\"}} overriding name resolution");
  c->add_option("--jobs,-j", f.run.jobs, "worker threads (default: all cores)");
  c->add_option("--memory-limit", f.run.dataset.memory_limit,
                "DuckDB memory limit for the gold tables and queries, e.g. 2GB, 512MiB")
      ->capture_default_str()
      ->check([](const std::string& v) -> std::string {
        return is_memory_size(v) ? "" : "expected a size such as 4GB or 512MiB, got '" + v + "'";
      });
  c->add_option("--gold-timeout", f.run.eval.gold_timeout_s, "seconds each gold query may run on DuckDB")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 86400.0));
  if (eval_flags) {
    c->add_option("--primary-key", f.run.eval.primary_key, "column matching multi-entity rows inside one id (default: first non-id select column)");
    c->add_option("--float-tolerance", f.run.eval.float_tolerance,
                  "float cells match when |p-g| <= tol*max(1,|g|): absolute below |g| = 1, relative above")
        ->capture_default_str();
    c->add_option("--multi-value-sep", f.run.eval.multi_sep, "separator of multi-value cells")->capture_default_str();
    c->add_option("--judge", f.judge, "cell judge: rules (offline, default) or llm (OpenAI-compatible server)")
        ->check(CLI::IsMember({"rules", "llm"}));
    c->add_option("--llm-provider", f.llm_provider, "reference-CLI alias: none = --judge rules, openai = --judge llm")
        ->check(CLI::IsMember({"none", "openai"}));
    c->add_option("--llm-base-url", f.llm_base_url, "chat-completions base URL, e.g. http://127.0.0.1:8000/v1 (env SQLGRADE_LLM_BASE_URL)");
    c->add_option("--llm-model", f.llm_model, "model name as the server knows it (env SQLGRADE_LLM_MODEL)");
    c->add_option("--llm-api-key", f.llm_api_key, "API key, sent as a Bearer token (env SQLGRADE_LLM_API_KEY, preferred)");
    c->add_option("--llm-cache", f.llm_cache, "answer cache (SQLite file; 'none' disables; default $SQLGRADE_LLM_CACHE or ~/.cache/sqlgrade/llm-judge.sqlite)");
    c->add_option("--llm-concurrency", f.llm_concurrency, "requests in flight at once")->capture_default_str()->check(CLI::Range(1, 256));
    c->add_option("--llm-timeout", f.llm_timeout, "seconds per request")->capture_default_str()->check(CLI::Range(0.05, 3600.0));
    c->add_option("--llm-retries", f.llm_retries, "retries on 429/5xx/connection errors (exponential backoff)")->capture_default_str()->check(CLI::Range(0, 20));
    c->add_option("--llm-max-tokens", f.llm_max_tokens, "max_tokens per reply (default: 8 for YES/NO, 12 for counts)")->check(CLI::Range(0, 4096));
    c->add_option("--llm-max-failures", f.llm_max_failures, "stop asking after this many failed calls in a row (0: never)")->capture_default_str()->check(CLI::Range(0, 1000000));
    c->add_option("--judge-log", f.judge_log, "write every judged question and its answer as JSON Lines to FILE");
  }
}

void apply_common(CommonFlags& f) {
  if (!f.attributes_file.empty()) f.run.dataset.attributes_file = f.attributes_file;
  if (!f.gt_dir.empty()) f.run.dataset.gt_dir = f.gt_dir;
  if (!f.table_map.empty()) f.run.dataset.table_map = f.table_map;
}

// The judge of one command, with its optional audit log.
struct JudgeSetup {
  std::unique_ptr<judge::JudgeLog> log;
  std::unique_ptr<judge::Judge> base;
  std::unique_ptr<judge::LoggingJudge> logged;  // non-LLM judge with --judge-log
  judge::LlmJudge* llm = nullptr;
  judge::Judge& get() { return logged ? static_cast<judge::Judge&>(*logged) : *base; }
  // Writes the log; returns the one-line judge summary ("" for the rules judge).
  std::string finish() {
    if (log) log->write();
    return llm ? llm->summary() : std::string();
  }
};

std::unique_ptr<JudgeSetup> make_judge(const CommonFlags& f) {
  auto s = std::make_unique<JudgeSetup>();
  std::string kind = f.judge;
  if (f.llm_provider == "openai") kind = "llm";
  if (f.llm_provider == "none") kind = "rules";
  if (!f.judge_log.empty()) s->log = std::make_unique<judge::JudgeLog>(f.judge_log);
  if (kind == "llm") {
    judge::LlmJudgeOptions o;
    o.client.base_url = f.llm_base_url;
    o.client.model = f.llm_model;
    o.client.api_key = f.llm_api_key;
    judge::apply_llm_env(o.client);
    o.client.timeout_s = f.llm_timeout;
    o.client.connect_timeout_s = std::min(10.0, f.llm_timeout);
    o.client.max_retries = f.llm_retries;
    o.client.concurrency = f.llm_concurrency;
    o.max_tokens = f.llm_max_tokens;
    o.max_consecutive_failures = f.llm_max_failures;
    o.cache_path = f.llm_cache.empty() ? judge::default_cache_path() : f.llm_cache;
    if (o.cache_path == "none") o.cache_path.clear();
    o.log = s->log.get();
    auto j = std::make_unique<judge::LlmJudge>(std::move(o));
    s->llm = j.get();
    s->base = std::move(j);
  } else {
    s->base = std::make_unique<judge::RulesJudge>();
    if (s->log) s->logged = std::make_unique<judge::LoggingJudge>(*s->base, *s->log);
  }
  return s;
}

void print_errors(const std::vector<DatasetSummary>& sums, bool list) {
  SummaryCounts t;
  for (auto& s : sums)
    for (auto& q : s.queries) {
      t.add(q);
      if (list && q.status != "ok") std::printf("%-14s %s: %s\n", q.error_kind.c_str(), q.path.c_str(), q.reason.c_str());
    }
  if (!list && t.statements != t.scored)
    std::printf("not scored: %zu missing result(s), %zu result error(s), %zu gold error(s) "
                "(reasons: --list-errors or summary.json)\n",
                t.missing_results, t.result_errors, t.gold_errors);
}

}  // namespace

void register_uda_command(CLI::App& app) {
  auto* uda = app.add_subcommand("uda", "UDA-Bench / OpenQuest accuracy of SQL-over-documents extraction");
  uda->require_subcommand(1);

  // prepare / gold
  for (bool with_gold : {false, true}) {
    auto f = std::make_shared<CommonFlags>();
    auto dataset_dir = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto* c = uda->add_subcommand(with_gold ? "gold" : "prepare",
                                  with_gold ? "write each statement's gold_result.csv (and sql.json) into the per-query folders"
                                            : "split the query files into per-query folders with sql.json");
    c->add_option("--dataset-dir", *dataset_dir, "Query/<Dataset> (or Query/ for every dataset)")->required();
    c->add_option("--out", *out, "output root: <out>/<Dataset>/<Task>/<file stem>/<n>/")->required();
    add_common(c, *f, false);
    if (with_gold)
      c->add_flag("--as-result", f->run.gold_as_result,
                  "also write result.csv = the gold result with file-name ids (a perfect system, for checks and benchmarks)");
    c->callback([=] {
      apply_common(*f);
      auto sums = prepare_datasets(*dataset_dir, *out, with_gold, f->run);
      size_t n = 0, bad = 0;
      for (auto& s : sums)
        for (auto& q : s.queries) {
          ++n;
          if (q.status != "ok") ++bad;
        }
      if (with_gold) print_errors(sums, true);
      std::printf("%zu statements in %zu dataset(s)%s\n", n, sums.size(),
                  with_gold ? (", " + std::to_string(n - bad) + " gold results, " + std::to_string(bad) + " gold errors").c_str() : "");
    });
  }

  // eval (one query)
  {
    auto f = std::make_shared<CommonFlags>();
    struct EvalFlags {
      std::string dataset, dataset_dir, query_root = "Query", sql_file, result_csv, output_dir, task;
      int query_id = 0;
      bool quiet = false;
    };
    auto e = std::make_shared<EvalFlags>();
    auto* c = uda->add_subcommand("eval", "evaluate one query's result.csv");
    c->add_option("--dataset", e->dataset, "dataset name, resolved as <query-root>/<name>");
    c->add_option("--query-root", e->query_root, "folder holding the datasets")->capture_default_str();
    c->add_option("--dataset-dir", e->dataset_dir, "dataset folder (instead of --dataset)");
    c->add_option("--sql-file", e->sql_file, "sql.json, or a .sql file (with --query-id for one of its statements)")->required();
    c->add_option("--query-id", e->query_id, "1-based statement number inside a .sql file");
    c->add_option("--result-csv", e->result_csv, "the system's result (default: result.csv beside sql.json)");
    c->add_option("--output-dir", e->output_dir, "where acc.json and the CSVs go (default: <result dir>/acc_result)");
    c->add_option("--task", e->task, "task name (informational)");
    c->add_flag("--quiet,-q", e->quiet, "do not print acc.json");
    add_common(c, *f, true);
    c->callback([=] {
      apply_common(*f);
      fs::path ddir = !e->dataset_dir.empty() ? fs::path(e->dataset_dir) : fs::path(e->query_root) / e->dataset;
      if (e->dataset_dir.empty() && e->dataset.empty()) throw InputError("", "give --dataset-dir or --dataset");
      std::string sql;
      fs::path sqlf = e->sql_file;
      if (sqlf.extension() == ".json") {
        auto j = nlohmann::json::parse(read_file(sqlf), nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("sql") || !j["sql"].is_string())
          throw InputError(sqlf.string(), "expected a JSON object with a \"sql\" string");
        sql = j["sql"];
      } else {
        auto stmts = split_sql_statements(read_file(sqlf), sqlf.string());
        if (stmts.empty()) throw InputError(sqlf.string(), "no SQL statement in the file");
        int id = e->query_id > 0 ? e->query_id : 1;
        if (e->query_id == 0 && stmts.size() > 1)
          throw InputError(sqlf.string(), std::to_string(stmts.size()) + " statements in the file; choose one with --query-id");
        if (id > static_cast<int>(stmts.size()))
          throw InputError(sqlf.string(), "--query-id " + std::to_string(id) + " but the file has " + std::to_string(stmts.size()) + " statements");
        sql = stmts[id - 1].sql;
      }
      fs::path result = !e->result_csv.empty() ? fs::path(e->result_csv) : sqlf.parent_path() / "result.csv";
      if (!fs::exists(result)) throw InputError(result.string(), "result file not found");
      fs::path out = !e->output_dir.empty() ? fs::path(e->output_dir) : result.parent_path() / "acc_result";
      Dataset ds(ddir, f->run.dataset);
      auto jd = make_judge(*f);
      Evaluator ev(ds, f->run.eval, jd->get());
      auto conn = ds.connect();
      judge::QueryTrace trace(result.string());  // per-query judge counts for acc.json
      QueryEval r = ev.evaluate(*conn, sql, result);
      write_query_outputs(out, r, f->run.eval);
      if (!e->quiet) std::printf("%s\n", acc_json(r, f->run.eval).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
      if (std::string js = jd->finish(); !js.empty()) std::fprintf(stderr, "%s\n", js.c_str());
      if (r.status != "ok") {
        std::fprintf(stderr, "sqlgrade: %s\n", cli::first_line(r.reason).c_str());
        throw cli::Exit{1};
      }
    });
  }

  // run (whole datasets)
  {
    auto f = std::make_shared<CommonFlags>();
    auto dataset_dir = std::make_shared<std::string>();
    auto results = std::make_shared<std::string>();
    auto verbose = std::make_shared<bool>(false);
    auto require_all = std::make_shared<bool>(false);
    auto* c = uda->add_subcommand("run", "evaluate every statement of the datasets against <results>/<Dataset>/<Task>/<stem>/<n>/result.csv; summary per dataset");
    c->add_option("--dataset-dir", *dataset_dir, "Query/<Dataset> (or Query/ for every dataset)")->required();
    c->add_option("--results", *results, "results root holding <Dataset>/<Task>/<file stem>/<n>/result.csv")->required();
    c->add_flag("--list-errors", *verbose, "print every statement that was not scored, with its reason");
    c->add_flag("--require-all", *require_all,
                "exit 1 when a statement with a gold result has no result.csv or an unusable one (it scores 0 either way)");
    add_common(c, *f, true);
    c->callback([=] {
      apply_common(*f);
      auto jd = make_judge(*f);
      auto sums = run_datasets(*dataset_dir, *results, f->run, jd->get());
      std::printf("%s", summary_table(sums).c_str());
      print_errors(sums, *verbose);
      if (std::string js = jd->finish(); !js.empty()) std::printf("%s\n", js.c_str());
      if (*require_all) {
        SummaryCounts t;
        for (auto& s : sums) t.add(s.counts());
        if (t.missing_results + t.result_errors > 0) {
          std::fflush(stdout);
          std::fprintf(stderr, "sqlgrade: --require-all: %zu missing result(s) and %zu result error(s) (scored 0; see summary.json)\n",
                       t.missing_results, t.result_errors);
          throw cli::Exit{1};
        }
      }
    });
  }
}
