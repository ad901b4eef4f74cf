#pragma once
// The reward server on the adversarial corpus database, under every layout the benchmarks use:
// <dir>/adv.sqlite and <dir>/adv/adv.sqlite (safety_reward_test, safety_bounds_test).
#include <memory>

#include "safety_corpus.hpp"
#include "sqlgrade/serve/server.hpp"
#include "test_support.hpp"

namespace sqlgrade::test {

struct AdvServer {
  TempDir tmp;
  std::unique_ptr<serve::RewardServer> server;
  AdvServer() {
    make_sqlite(tmp / "dbs" / "adv.sqlite", adversarial_db_script());
    make_sqlite(tmp / "dbs" / "adv" / "adv.sqlite", adversarial_db_script());
    serve::ServerOptions o;
    o.db_dir = (tmp / "dbs").string();
    o.max_concurrency = 2;
    o.grader.timeout_s = 5;
    server = std::make_unique<serve::RewardServer>(o);
  }
};

}  // namespace sqlgrade::test
