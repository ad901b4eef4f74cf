// `sqlgrade serve` (HTTP reward server, NeMo Gym spider2_lite compatible) and
// `sqlgrade extract-sql` (model answer on stdin -> SQL on stdout).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "flags.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/json.hpp"
#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/serve/http.hpp"
#include "sqlgrade/serve/wire.hpp"
#include "serve_common.hpp"

namespace {

struct ServeArgs {
  sqlgrade::serve::ServerOptions so;
  sqlgrade::serve::HttpOptions http;
  double max_result_mb = 64, cache_mb = 256, max_body_mb = 16, max_buffered_mb = 256, max_reply_mb = 64;
  bool log_requests = false;
  int max_concurrency = 0;
  bool word_boundary = false, nemo_strict = false, keep_think = false;
  sqlgrade::cli::DialectFlags dialects;
  std::string preset = "sqlgrade";
  std::string failure_codes = "sqlgrade";
};

struct ExtractArgs {
  bool word_boundary = false, nemo_strict = false, no_raw = false, jsonl = false, keep_think = false;
  std::string preset = "sqlgrade";
};

// --extract-preset: one of answer::preset_names() (CLI::IsMember has checked it; sqlgrade is the default).
sqlgrade::ExtractPreset preset_of(const std::string& name) {
  return sqlgrade::answer::preset_from_name(name).value_or(sqlgrade::ExtractPreset::Sqlgrade);
}
void add_preset_flag(CLI::App* app, std::string& dst) {
  app->add_option("--extract-preset", dst,
                  "sqlgrade (default), or NeMo Gym bird_sql's extraction and failure codes of one version: "
                  "gym-bird-0.4 (SELECT 1 filler), gym-bird-0.7 (no SQL block: score 0)")
      ->check(CLI::IsMember(sqlgrade::answer::preset_names()));
}

void run_serve(ServeArgs& a) {
  using namespace sqlgrade::serve;
  sqlgrade::cli::apply_dialect_flags(a.dialects, a.so);
  sqlgrade::cli::check_server_folders(a.so, "serve");
  a.so.max_concurrency = a.max_concurrency > 0 ? static_cast<unsigned>(a.max_concurrency) : 0;
  a.so.grader.max_result_bytes = sqlgrade::cli::mib_to_bytes(a.max_result_mb);
  a.so.grader.gold_cache_bytes = sqlgrade::cli::mib_to_bytes(a.cache_mb);
  a.so.grader.extract.word_boundary = a.word_boundary;
  a.so.grader.extract.tags_and_json = !a.nemo_strict;
  a.so.grader.extract.after_think = !(a.nemo_strict || a.keep_think);
  a.so.grader.gym_failure_codes = a.failure_codes == "gym";
  a.so.grader.extract.preset = preset_of(a.preset);
  a.http.max_body_bytes = sqlgrade::cli::mib_to_bytes(a.max_body_mb);
  a.http.max_buffered_bytes = sqlgrade::cli::mib_to_bytes(a.max_buffered_mb);
  // A reply is held in the HTTP buffer until its client takes it: it cannot be larger than the buffer.
  a.so.max_reply_bytes = sqlgrade::cli::mib_to_bytes(std::min(a.max_reply_mb, std::max(a.max_buffered_mb, a.max_body_mb)));
  if (a.log_requests) a.http.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  RewardServer server(a.so);
  serve_http(server, a.http, [&](int port) {
    std::printf("sqlgrade serve: listening on http://%s:%d (max-concurrency %u, queue %zu, timeout %g s)\n",
                a.http.host.c_str(), port, server.options().max_concurrency, server.options().max_queue,
                server.options().grader.timeout_s);
    std::fflush(stdout);
  });
  ServerStats s = server.stats();
  std::fprintf(stderr,
               "sqlgrade serve: stopped after %llu verifies (%llu rejected busy, %llu bad requests; gold cache "
               "%llu hits / %llu misses)\n",
               (unsigned long long)s.verifies, (unsigned long long)s.rejected_busy, (unsigned long long)s.bad_requests,
               (unsigned long long)s.gold_cache_hits, (unsigned long long)s.gold_cache_misses);
}

void run_extract(const ExtractArgs& a) {
  using sqlgrade::answer::extract_sql;
  sqlgrade::answer::ExtractOptions opt;
  opt.word_boundary = a.word_boundary;
  opt.tags_and_json = !a.nemo_strict;
  opt.raw_fallback = !a.no_raw;
  opt.after_think = !(a.nemo_strict || a.keep_think);
  opt.preset = preset_of(a.preset);
  if (!a.jsonl) {
    const std::string text = sqlgrade::read_stdin();  // bounded by --max-input-mb, as every input file
    auto ex = extract_sql(text, opt);
    if (!ex.sql) {
      std::fprintf(stderr, "sqlgrade extract-sql: no SQL found\n");
      throw sqlgrade::cli::Exit{1};
    }
    std::fwrite(ex.sql->data(), 1, ex.sql->size(), stdout);
    std::fputc('\n', stdout);
    return;
  }
  // JSONL: each line is a JSON string (the model text) or an object (NeMo verify request/rollout).
  const std::string input = sqlgrade::read_stdin();
  std::string out;
  long n = 0;
  for (size_t pos = 0; pos < input.size();) {
    size_t nl = input.find('\n', pos);
    if (nl == std::string::npos) nl = input.size();
    const std::string_view line(input.data() + pos, nl - pos);
    pos = nl + 1;
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    sqlgrade::check_json_depth(line, "<stdin>", n);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) throw sqlgrade::InputError("<stdin>", "not valid JSON", n);
    std::string text;
    if (j.is_string()) {
      text = j.get<std::string>();
    } else if (j.is_object()) {
      try {
        text = sqlgrade::verdicts::model_text(j);
      } catch (const std::exception& e) {
        throw sqlgrade::InputError("<stdin>", e.what(), n);
      }
    } else {
      throw sqlgrade::InputError("<stdin>", "expected a JSON string or object", n);
    }
    auto ex = extract_sql(text, opt);
    nlohmann::json o;
    if (j.is_object() && j.contains("instance_id")) o["instance_id"] = j["instance_id"];
    o["extracted_sql"] = ex.sql ? nlohmann::json(*ex.sql) : nlohmann::json();
    o["source"] = sqlgrade::answer::to_string(ex.source);
    out += o.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

// The bounds of issue 19 (findings 7-8; docs/serve.md "Safety and resources").
void register_serve_bounds(CLI::App* s, ServeArgs& a) {
  s->add_option("--max-reply-mb", a.max_reply_mb,
                "largest reply as serialised, MiB (escapes counted): /execute cuts its rows to fit, other replies "
                "over it get 413")
      ->default_val(64)
      ->check(sqlgrade::cli::bounded("buffered_mb"));
  s->add_option("--write-timeout", a.http.write_timeout_s,
                "seconds for a client to take its reply; a client that does not read is then disconnected")
      ->default_val(10.0)
      ->check(sqlgrade::cli::bounded("timeout"));
  s->add_option("--request-budget", a.so.request_budget_s,
                "seconds one request may take from admission to reply (its queries stop then; /get_reward rollouts "
                "not graded by then score 0, flagged)")
      ->default_val(120.0)
      ->check(sqlgrade::cli::bounded("timeout"));
  s->add_option("--shutdown-grace", a.http.shutdown_grace_s,
                "SIGINT/SIGTERM: seconds for requests in progress to finish before they are cancelled (a second "
                "signal cancels at once; a tiny value such as 0.001 cancels at once too)")
      ->default_val(2.0)
      ->check(sqlgrade::cli::bounded("timeout"));
}

// How /verify reads and answers (extraction, presets, reward components).
void register_serve_extraction(CLI::App* s, ServeArgs& a) {
  s->add_flag("--word-boundary", a.word_boundary, "raw-text SQL fallback needs a word boundary before the keyword");
  s->add_flag("--nemo-strict", a.nemo_strict,
              "extract SQL exactly as NeMo Gym (no <answer>/<solution>/JSON, the reasoning read too)");
  s->add_flag("--keep-think", a.keep_think,
              "read the whole model output, <think> reasoning included (default: only the text after the last "
              "</think>; an unclosed <think> is no SQL)");
  add_preset_flag(s, a.preset);
  s->add_option("--failure-codes", a.failure_codes,
                "sqlgrade (default): failure_reason says what happened (result_mismatch, timeout, refuted, ...); gym: "
                "only NeMo Gym's words, which its response models accept (the Gym folder's servers)")
      ->check(CLI::IsMember({"sqlgrade", "gym"}));
  s->add_flag("--reward-components", a.so.reward_components,
              "every /verify reply carries reward_components, as if each request asked (NeMo Gym multi-reward)");
}

}  // namespace

static void register_extract_command(CLI::App& app);

void register_serve_command(CLI::App& app) {
  auto sa = std::make_shared<ServeArgs>();
  auto* s = app.add_subcommand("serve", "HTTP/JSON reward server (NeMo Gym spider2_lite compatible)");
  sqlgrade::cli::add_db(s, sa->so.db_dir,
                        "Spider 2.0-Lite databases: <dir>/<db_id>.sqlite (the default of the other folders; at least "
                        "one of --db, --spider-db-dir, --bird-db-dir)",
                        "--db-dir");
  s->add_option("--port", sa->http.port, "TCP port (0 = any free port, printed on stdout)")
      ->default_val(8000)
      ->check(sqlgrade::cli::bounded("port"));
  s->add_option("--host", sa->http.host, "address to bind")->default_val("127.0.0.1");
  s->add_option("--max-concurrency", sa->max_concurrency, "verifies running at once (default: max(4, 2 x cores))")
      ->check(sqlgrade::cli::bounded("max_concurrency"));
  s->add_option("--max-queue", sa->so.max_queue, "verifies waiting for a slot before 503")
      ->default_val(64)
      ->check(sqlgrade::cli::bounded("max_queue"));
  s->add_option("--queue-timeout", sa->so.queue_timeout_s,
                "seconds a request may wait for a worker; then 503 with Retry-After (saturation)")
      ->default_val(30.0)
      ->check(sqlgrade::cli::bounded("timeout"));
  sqlgrade::cli::add_timeout(s, sa->so.grader.timeout_s, "per-query deadline for predictions, seconds")->default_val(30.0);
  sqlgrade::cli::add_now(s, sa->so.grader.now);  // a request's own `now` wins (docs/serve.md)
  s->add_option("--gold-timeout", sa->so.grader.gold_timeout_s, "per-query deadline for gold SQL (default: --timeout)")
      ->check(sqlgrade::cli::bounded("timeout"));
  sqlgrade::cli::path_role(s->add_option("--spider-db-dir", sa->so.spider_db_dir, "Spider databases <dir>/<db_id>/*.sqlite (default: --db-dir)"), sqlgrade::cli::PathRole::ReadsFolder);
  sqlgrade::cli::path_role(s->add_option("--bird-db-dir", sa->so.bird_db_dir, "BIRD databases <dir>/<db_id>/<db_id>.sqlite (default: --db-dir)"), sqlgrade::cli::PathRole::ReadsFolder);
  s->add_option("--benchmark", sa->so.default_benchmark,
                 "benchmark of a request that names none: spider2 (default), spider or bird (NeMo Gym's "
                 "bird_sql and Spider rows carry no `benchmark`)");
  sqlgrade::cli::add_dialect_flags(s, sa->dialects);
  sqlgrade::cli::path_role(s->add_option("--spider2-gold-dir", sa->so.grader.spider2_gold_dir,
                 "official Spider 2.0-Lite gold folder (spider2lite_eval.jsonl, exec_result/): requests without "
                 "gold_sql/gold_result are graded against the official gold CSVs of their instance_id"), sqlgrade::cli::PathRole::ReadsFolder);
  s->add_option("--max-rows", sa->so.grader.max_rows, "result row cap per query")
      ->default_val(1000000)
      ->check(sqlgrade::cli::bounded("max_rows"));
  s->add_option("--max-execute-rows", sa->so.max_execute_rows, "POST /execute: cap on a request's max_rows")
      ->default_val(10000)
      ->check(sqlgrade::cli::bounded("max_rows"));
  s->add_option("--max-batch", sa->so.max_batch, "POST /get_reward (OpenRLHF): rollouts per request")
      ->default_val(4096)
      ->check(sqlgrade::cli::bounded("max_batch"));
  s->add_option("--max-result-mb", sa->max_result_mb, "result size cap per query, MiB")
      ->default_val(64)
      ->check(sqlgrade::cli::bounded("result_mb"));
  s->add_option("--cache-entries", sa->so.grader.gold_cache_entries, "gold results kept")
      ->default_val(4096)
      ->check(sqlgrade::cli::bounded("cache_entries"));
  s->add_option("--cache-mb", sa->cache_mb, "memory for cached gold results, MiB")
      ->default_val(256)
      ->check(sqlgrade::cli::bounded("cache_mb"));
  s->add_option("--max-body-mb", sa->max_body_mb,
                 "largest request body, MiB, on the wire and again after gzip/deflate decoding (413 beyond)")
      ->default_val(16)
      ->check(sqlgrade::cli::bounded("body_mb"));
  s->add_option("--max-buffered-mb", sa->max_buffered_mb,
                 "request bodies and unread replies held at once over all connections, MiB (the longest-waiting "
                 "connection gives way)")
      ->default_val(256)
      ->check(sqlgrade::cli::bounded("buffered_mb"));
  s->add_option("--max-connections", sa->http.max_connections,
                 "open connections (the one waiting longest for its request gives way)")
      ->default_val(512)
      ->check(sqlgrade::cli::bounded("max_connections"));
  s->add_option("--request-timeout", sa->http.request_timeout_s,
                 "seconds for a whole request (headers and body) to arrive (its reply: --write-timeout)")
      ->default_val(30.0)
      ->check(sqlgrade::cli::bounded("timeout"));
  register_serve_bounds(s, *sa);
  register_serve_extraction(s, *sa);
  s->add_flag("--log-requests", sa->log_requests, "one line per request on stderr");
  s->callback([sa] { run_serve(*sa); });
  sqlgrade::cli::example(s, "sqlgrade serve --db spider2-lite/databases --spider2-gold-dir spider2-lite/gold --port 8000");
  register_extract_command(app);
}

static void register_extract_command(CLI::App& app) {
  auto ea = std::make_shared<ExtractArgs>();
  auto* e = app.add_subcommand("extract-sql", "extract the SQL from a model answer (stdin) as NeMo Gym does");
  e->add_flag("--word-boundary", ea->word_boundary, "raw-text fallback needs a word boundary before the keyword");
  e->add_flag("--nemo-strict", ea->nemo_strict,
              "exactly NeMo Gym: no <answer>/<solution> tags, no {\"answer\": ...}, the reasoning read too");
  e->add_flag("--keep-think", ea->keep_think,
              "read the whole answer, <think> reasoning included (default: only the text after the last </think>; "
              "an unclosed <think> is no SQL)");
  add_preset_flag(e, ea->preset);
  e->add_flag("--no-raw", ea->no_raw, "no raw-text fallback (only fenced blocks, tags, JSON)");
  e->add_flag("--jsonl", ea->jsonl,
              "stdin is JSONL (a string, or an object with `response`/`model_output`); prints one JSON per line");
  e->callback([ea] { run_extract(*ea); });
  sqlgrade::cli::example(e, "sqlgrade extract-sql < model_answer.txt");
}
