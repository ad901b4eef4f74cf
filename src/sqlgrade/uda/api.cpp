// The public entry points of include/sqlgrade/uda.hpp: one call per `sqlgrade uda` subcommand over
// the driver (run.cpp, eval.cpp, outputs.cpp), the judge each call builds, and what the commands print.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>

#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda.hpp"
#include "sqlgrade/uda/driver.hpp"
#include "sqlgrade/uda/judge/judge.hpp"
#include "sqlgrade/uda/judge/llm_cache.hpp"
#include "sqlgrade/uda/judge/llm_judge.hpp"
#include "sqlgrade/uda/judge/llm_trace.hpp"
#include "sqlgrade/core/json.hpp"

namespace sqlgrade::uda {

namespace {

// The judge of one call, with its optional audit log.
struct JudgeSetup {
  std::unique_ptr<judge::JudgeLog> log;
  std::unique_ptr<judge::Judge> base;
  std::unique_ptr<judge::LoggingJudge> logged;  // non-LLM judge with a log
  judge::LlmJudge* llm = nullptr;
  judge::Judge& get() { return logged ? static_cast<judge::Judge&>(*logged) : *base; }
  // Writes the log; returns the one-line judge summary ("" for the rules judge).
  std::string finish() {
    if (log) log->write();
    return llm ? llm->summary() : std::string();
  }
};

// The files the judge writes — the log (--judge-log) and the LLM's answer cache — never replace what the
// call reads (issue 31: the CLI checked the log, the Python API nothing; the cache was not checked).
void check_judge_outputs(const JudgeOptions& f, const std::vector<IoPath>& inputs) {
  std::vector<IoPath> out{{f.log, "--judge-log"}};
  if (f.kind == JudgeOptions::Kind::Llm) {
    const std::string cache = f.cache.empty() ? judge::default_cache_path() : f.cache;
    if (cache != "none") out.push_back({cache, "--llm-cache"});
  }
  check_outputs_spare_inputs(out, inputs);
}

std::unique_ptr<JudgeSetup> make_judge(const JudgeOptions& f) {
  auto s = std::make_unique<JudgeSetup>();
  if (!f.log.empty()) s->log = std::make_unique<judge::JudgeLog>(f.log);
  if (f.kind == JudgeOptions::Kind::Llm) {
    judge::LlmJudgeOptions o;
    o.client.base_url = f.base_url;
    o.client.model = f.model;
    o.client.api_key = f.api_key;
    judge::apply_llm_env(o.client);
    o.client.timeout_s = f.timeout_s;
    o.client.connect_timeout_s = std::min(10.0, f.timeout_s);
    o.client.max_retries = f.retries;
    o.client.concurrency = f.concurrency;
    o.max_tokens = f.max_tokens;
    o.max_consecutive_failures = f.max_failures;
    o.cache_path = f.cache.empty() ? judge::default_cache_path() : f.cache;
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

// The statement `uda eval` grades: sql.json's "sql", or one statement of a .sql file.
std::string query_sql(const fs::path& sqlf, int query_id) {
  if (sqlf.extension() == ".json") {
    const std::string text = read_file(sqlf);
    check_json_depth(text, sqlf.string());
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("sql") || !j["sql"].is_string())
      throw InputError(sqlf.string(), "expected a JSON object with a \"sql\" string");
    return j["sql"];
  }
  auto stmts = split_sql_statements(read_file(sqlf), sqlf.string());
  if (stmts.empty()) throw InputError(sqlf.string(), "no SQL statement in the file");
  int id = query_id > 0 ? query_id : 1;
  if (query_id == 0 && stmts.size() > 1)
    throw InputError(sqlf.string(), std::to_string(stmts.size()) + " statements in the file; choose one with --query-id");
  if (id > static_cast<int>(stmts.size()))
    throw InputError(sqlf.string(), "--query-id " + std::to_string(id) + " but the file has " + std::to_string(stmts.size()) + " statements");
  return stmts[id - 1].sql;
}

// The statements not scored: each with its reason (list), or one count line.
// The readable head of an error: up to the end of the engine message's first sentence, at most 200
// bytes (DuckDB appends every candidate overload and the query text, hundreds of bytes more).
std::string short_reason(const std::string& reason) {
  size_t start = reason.find("Error: ");
  start = start == std::string::npos ? 0 : start + 7;
  size_t end = reason.size();
  for (const char* stop : {". ", "! ", "? "}) {
    const size_t at = reason.find(stop, start);
    if (at != std::string::npos) end = std::min(end, at + 1);
  }
  if (end > 200) {
    end = 200;
    while (end > 0 && (static_cast<unsigned char>(reason[end]) & 0xC0) == 0x80) --end;  // not inside a UTF-8 sequence
    return reason.substr(0, end) + "...";
  }
  return reason.substr(0, end);
}

// list: one line per statement not scored; full: its whole reason, else short_reason.
std::string render_errors(const std::vector<DatasetSummary>& sums, bool list, bool full = true) {
  std::string out;
  char buf[512];
  SummaryCounts t;
  for (auto& s : sums)
    for (auto& q : s.queries) {
      t.add(q);
      if (list && q.status != "ok") {
        std::string kind = q.error_kind;  // printf's %-14s
        if (kind.size() < 14) kind.resize(14, ' ');
        out += kind + " " + q.path + ": " + (full ? q.reason : short_reason(q.reason)) + "\n";
      }
    }
  if (!list && t.statements != t.scored) {
    std::snprintf(buf, sizeof buf,
                  "not scored: %zu missing result(s), %zu result error(s), %zu gold error(s) "
                  "(reasons: --list-errors or summary.json)\n",
                  t.missing_results, t.result_errors, t.gold_errors);
    out += buf;
  }
  return out;
}

}  // namespace

std::string memory_size_error(const std::string& v) {
  return is_memory_size(v) ? std::string() : "expected a size such as 4GB or 512MiB, got '" + v + "'";
}

JudgeOptions::Kind JudgeOptions::kind_from_name(const std::string& name) {
  if (name == "rules") return Kind::Rules;
  if (name == "llm") return Kind::Llm;
  throw InputError("--judge", name + " not in {rules,llm}");  // the wording of the CLI's member check
}

// Hand-written (sqlgrade uses no backtracking regex engine).
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

std::vector<DatasetSummary> prepare(const PrepareOptions& opt) {
  const sql_clock::ClockScope clock(opt.run.now, "--now");  // the gold queries read this clock
  return prepare_datasets(opt.dataset_dir, opt.out, opt.with_gold, opt.run);
}

std::string render_prepare_text(const std::vector<DatasetSummary>& sums, bool with_gold, bool full_errors) {
  size_t n = 0, bad = 0;
  for (auto& s : sums)
    for (auto& q : s.queries) {
      ++n;
      if (q.status != "ok") ++bad;
    }
  std::string out = with_gold ? render_errors(sums, true, full_errors) : std::string();
  out += std::to_string(n) + " statements in " + std::to_string(sums.size()) + " dataset(s)";
  if (with_gold) out += ", " + std::to_string(n - bad) + " gold results, " + std::to_string(bad) + " gold errors";
  if (with_gold && bad > 0 && !full_errors) out += " (whole messages: --list-errors or gold_summary.json)";
  return out + "\n";
}

QueryReport evaluate_query(const QueryOptions& opt) {
  const sql_clock::ClockScope clock(opt.run.now, "--now");
  if (opt.dataset_dir.empty() && opt.dataset.empty()) throw InputError("", "give --dataset-dir or --dataset");
  const fs::path ddir = !opt.dataset_dir.empty() ? fs::path(opt.dataset_dir) : fs::path(opt.query_root) / opt.dataset;
  const fs::path sqlf = opt.sql_file;
  const std::string sql = query_sql(sqlf, opt.query_id);
  const fs::path result = !opt.result_csv.empty() ? fs::path(opt.result_csv) : sqlf.parent_path() / "result.csv";
  if (!fs::exists(result)) throw InputError(result.string(), "result file not found");
  const fs::path out = !opt.output_dir.empty() ? fs::path(opt.output_dir) : result.parent_path() / "acc_result";
  {  // the output folder is replaced whole: it must hold no input (issue 19, finding 11)
    std::vector<IoPath> in = dataset_inputs(ddir, opt.run.dataset);
    in.push_back({sqlf, "--sql-file"});
    in.push_back({result, "--result-csv"});
    check_output_folder_spares_inputs({out, "--output-dir"}, in);
    check_judge_outputs(opt.judge, in);
  }
  Dataset ds(ddir, opt.run.dataset);
  auto jd = make_judge(opt.judge);
  Evaluator ev(ds, opt.run.eval, jd->get());
  auto conn = ds.connect();
  judge::QueryTrace trace(result.string());  // per-query judge counts for acc.json
  QueryEval r = ev.evaluate(*conn, sql, result);
  const std::string acc = acc_file_text(acc_json(r, opt.run.eval));
  write_query_outputs(out, r, acc);
  QueryReport rep;
  rep.ok = r.status == "ok";
  rep.error_kind = r.error_kind;
  rep.reason = r.reason;
  rep.acc_json = acc.substr(0, acc.size() - 1);  // without the file's final newline
  rep.judge_summary = jd->finish();
  return rep;
}

Run evaluate(const Options& opt) {
  runs::shard_option(opt.run.shard_index, opt.run.shard_count, opt.run.shard_by);  // a bad shard: before anything runs
  const sql_clock::ClockScope clock(opt.run.now, "--now");
  {
    std::vector<IoPath> in{{opt.results, "--results", {"result.csv", "sql.json"}}};
    for (const auto& dir : dataset_dirs(opt.dataset_dir))
      for (auto& i : dataset_inputs(dir, opt.run.dataset)) in.push_back(std::move(i));
    check_judge_outputs(opt.judge, in);
  }
  auto jd = make_judge(opt.judge);
  Run run;
  run.started_at = runs::utc_now_iso8601();
  const auto t0 = std::chrono::steady_clock::now();
  run.datasets = run_datasets(opt.dataset_dir, opt.results, opt.run, jd->get());
  run.judge_summary = jd->finish();
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

std::string render_text(const Run& run, bool list_errors) {
  std::string out = summary_table(run.datasets) + render_errors(run.datasets, list_errors);
  if (!run.judge_summary.empty()) out += run.judge_summary + "\n";
  return out;
}

SummaryCounts totals(const Run& run) {
  SummaryCounts t;
  for (auto& s : run.datasets) t.add(s.counts());
  return t;
}

}  // namespace sqlgrade::uda
