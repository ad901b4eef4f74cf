// `sqlgrade rewards`: a JSONL file of /verify request bodies -> one /verify reply per line, graded by
// the reward server's own code (serve/rewards.hpp) without HTTP: the rules of a request (gold
// alternatives, `order`, `shaping`, `verify`, extraction options) are the library's, the same for
// `sqlgrade serve`, the Python package and this command.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "cli_common.hpp"
#include "flags.hpp"
#include "serve_common.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/serve/rewards.hpp"

namespace {

struct RewardsArgs {
  sqlgrade::serve::RewardsOptions o;
  std::string out;
  sqlgrade::cli::DialectFlags dialects;
  double max_result_mb = 64;
  bool no_progress = false;  // rewards draws no progress bar: accepted as on every command that executes queries
};

void run_rewards(RewardsArgs& a) {
  sqlgrade::cli::apply_dialect_flags(a.dialects, a.o.server);
  sqlgrade::cli::check_server_folders(a.o.server, "rewards");
  if (!a.out.empty()) {  // not over the requests nor a database or gold file the replies are graded on
    const auto& so = a.o.server;
    sqlgrade::check_outputs_spare_inputs(
        {{a.out, "--out"}}, {{a.o.requests_path == "-" ? "" : a.o.requests_path, "--requests"},
                             {so.db_dir, "--db", {".sqlite"}}, {so.spider_db_dir, "--spider-db-dir", {".sqlite"}},
                             {so.bird_db_dir, "--bird-db-dir", {".sqlite"}}, {so.grader.spider2_gold_dir, "--spider2-gold-dir"}});
  }
  a.o.server.grader.max_timeout_s = a.o.server.grader.timeout_s;
  a.o.server.grader.max_result_bytes = sqlgrade::cli::mib_to_bytes(a.max_result_mb);  // a request may lower it, as with serve
  std::string text;
  for (const std::string& line : sqlgrade::serve::grade_request_file(a.o)) text += line + "\n";
  if (a.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    sqlgrade::write_file_atomic(a.out, text);  // all or nothing: a bad line writes no file
  }
}

}  // namespace

void register_rewards_command(CLI::App& app) {
  auto ra = std::make_shared<RewardsArgs>();
  auto* c = app.add_subcommand("rewards",
                               "grade a JSONL file of /verify request bodies (one reply per line, in order), exactly "
                               "as `sqlgrade serve` answers POST /verify");
  sqlgrade::cli::path_role(c->add_option("--requests", ra->o.requests_path,
                "JSON Lines: one /verify body per line (db_id, model_output or sql, gold_sql (a string or a list "
                "of alternatives) or gold_result, order, shaping, ...; docs/serve.md); - = stdin"), sqlgrade::cli::PathRole::ReadsFile)
      ->required();
  sqlgrade::cli::add_out(c, ra->out, "write the replies here (atomically; default: stdout)");
  sqlgrade::cli::add_db(c, ra->o.server.db_dir,
                        "Spider 2.0-Lite databases: <dir>/<db_id>.sqlite (the default of the other folders; at least "
                        "one of --db, --spider-db-dir, --bird-db-dir)",
                        "--db-dir");
  sqlgrade::cli::path_role(c->add_option("--spider-db-dir", ra->o.server.spider_db_dir, "Spider databases <dir>/<db_id>/*.sqlite (default: --db)"), sqlgrade::cli::PathRole::ReadsFolder);
  sqlgrade::cli::path_role(c->add_option("--bird-db-dir", ra->o.server.bird_db_dir, "BIRD databases <dir>/<db_id>/<db_id>.sqlite (default: --db)"), sqlgrade::cli::PathRole::ReadsFolder);
  c->add_option("--benchmark", ra->o.server.default_benchmark,
                "benchmark of a request that names none: spider2 (default), spider or bird");
  sqlgrade::cli::add_dialect_flags(c, ra->dialects);
  sqlgrade::cli::path_role(c->add_option("--spider2-gold-dir", ra->o.server.grader.spider2_gold_dir,
                "official Spider 2.0-Lite gold folder: requests without gold_sql/gold_result use their instance_id"), sqlgrade::cli::PathRole::ReadsFolder);
  sqlgrade::cli::add_timeout(c, ra->o.server.grader.timeout_s, "per-query deadline for predictions, seconds")
      ->default_val(30.0);
  sqlgrade::cli::add_jobs(c, ra->o.jobs);
  sqlgrade::cli::add_max_rows(c, ra->o.server.grader.max_rows, "result row cap per query (as serve --max-rows)");
  sqlgrade::cli::add_max_result_mb(c, ra->max_result_mb, "result size cap per query, MiB (as serve --max-result-mb)");
  sqlgrade::cli::add_no_progress(c, ra->no_progress);
  sqlgrade::cli::add_now(c, ra->o.server.grader.now);  // a request's own `now` wins
  c->callback([ra] { run_rewards(*ra); });
  sqlgrade::cli::example(c, "sqlgrade rewards --requests rollouts.jsonl --db spider2-lite/databases --out rewards.jsonl");
}
