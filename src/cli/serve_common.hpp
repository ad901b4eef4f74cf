#pragma once
// What `sqlgrade serve` and `sqlgrade rewards` share: the checks of their database folders (the same
// RewardServer grades both, serve_cmd.cpp and rewards_cmd.cpp).
#include <filesystem>
#include <string>

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
  if (so.db_dir.empty() && so.spider_db_dir.empty() && so.bird_db_dir.empty())
    throw sqlgrade::InputError("", command + " needs a database folder: --db (--db-dir), --spider-db-dir or --bird-db-dir");
  if (!so.db_dir.empty()) require_dir(so.db_dir, "--db");
  if (!so.spider_db_dir.empty()) require_dir(so.spider_db_dir, "--spider-db-dir");
  if (!so.bird_db_dir.empty()) require_dir(so.bird_db_dir, "--bird-db-dir");
  if (!so.verifier.spider2_gold_dir.empty()) require_dir(so.verifier.spider2_gold_dir, "--spider2-gold-dir");
  if (!so.default_benchmark.empty()) {
    try {
      so.default_benchmark = sqlgrade::verdicts::bench_name(sqlgrade::verdicts::bench_from_name(so.default_benchmark));
    } catch (const std::exception& e) {
      throw sqlgrade::InputError("--benchmark", e.what());
    }
  }
}

}  // namespace sqlgrade::cli
