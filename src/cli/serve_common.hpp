#pragma once
// What `sqlgrade serve` and `sqlgrade rewards` share: the checks of their database folders (the same
// RewardServer grades both, serve_cmd.cpp and rewards_cmd.cpp).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/verdict/registry.hpp"
#include "sqlgrade/verdict/request.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/serve/server.hpp"

namespace sqlgrade::cli {

inline void require_dir(const std::string& d, const char* flag) {
  std::error_code ec;
  if (!std::filesystem::is_directory(d, ec))
    throw sqlgrade::InputError(d, std::string("not a directory (") + flag + ")");
}

// Any one database folder is enough (a BIRD-only job needs no Spider 2.0 databases); a benchmark
// whose folder is missing is refused per request (RewardServer::db_path). --benchmark is normalised.
inline void check_server_folders(sqlgrade::serve::ServerOptions& so, const std::string& command) {
  if (so.db_dir.empty() && so.spider_db_dir.empty() && so.bird_db_dir.empty() && so.postgresql_dsn.empty() &&
      so.mysql_dsn.empty())
    throw sqlgrade::InputError("", command + " needs a database folder: --db (--db-dir), --spider-db-dir or --bird-db-dir "
                                             "(or a server database: --dsn)");
  if (!so.db_dir.empty()) require_dir(so.db_dir, "--db");
  if (!so.spider_db_dir.empty()) require_dir(so.spider_db_dir, "--spider-db-dir");
  if (!so.bird_db_dir.empty()) require_dir(so.bird_db_dir, "--bird-db-dir");
  if (!so.grader.spider2_gold_dir.empty()) require_dir(so.grader.spider2_gold_dir, "--spider2-gold-dir");
  if (!so.default_benchmark.empty()) {
    try {
      so.default_benchmark = sqlgrade::verdicts::benchmark_named(so.default_benchmark).name();
    } catch (const std::exception& e) {
      throw sqlgrade::InputError("--benchmark", e.what());
    }
  }
}

// --dsn URI (repeatable: one PostgreSQL and one MySQL database, the scheme says which) and --dialect.
struct DialectFlags {
  std::vector<std::string> dsns;
  std::string dialect;
};

inline void add_dialect_flags(CLI::App* c, DialectFlags& f) {
  c->add_option("--dsn", f.dsns,
                "BIRD on a server: postgresql://reader@host/bird or mysql://reader@host/BIRD?socket=... (a login that "
                "can only read; sqlgrade db load); once per dialect; requests choose it with `dialect`");
  c->add_option("--dialect", f.dialect,
                "dialect of a request that names none: sqlite (default), postgresql or mysql (with --dsn)");
}

// Each --dsn parsed and opened once (an unreachable server or a login that may write stops the command
// here, not at the first request), then set in `so`.
inline void apply_dialect_flags(const DialectFlags& f, sqlgrade::serve::ServerOptions& so) {
  for (const std::string& uri : f.dsns) {
    const sqlgrade::ServerDsn dsn = sqlgrade::parse_server_dsn(uri, "--dsn");
    std::string& slot = dsn.dialect == sqlgrade::ServerDialect::PostgreSQL ? so.postgresql_dsn : so.mysql_dsn;
    if (!slot.empty()) throw sqlgrade::InputError("--dsn", std::string("two ") + sqlgrade::dialect_name(dsn.dialect) + " databases");
    (void)sqlgrade::ServerPool::lease(dsn)->server_version();
    slot = uri;
  }
  if (!f.dialect.empty()) {
    try {
      so.default_dialect = sqlgrade::verdicts::dialect_of(f.dialect);
    } catch (const std::exception& e) {
      throw sqlgrade::InputError("--dialect", e.what());
    }
    if (so.default_dialect != "sqlite" && (so.default_dialect == "postgresql" ? so.postgresql_dsn : so.mysql_dsn).empty())
      throw sqlgrade::InputError("--dialect", so.default_dialect + " needs its database: --dsn " + so.default_dialect + "://...");
  }
}

}  // namespace sqlgrade::cli
