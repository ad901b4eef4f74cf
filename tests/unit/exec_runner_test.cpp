// exec/runner.hpp: every distinct (database, gold) runs once across threads, verdicts in item order,
// progress counts every item, a failing gold is not memoised.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/exec/runner.hpp"

using namespace sqlgrade;

TEST(ExecRunner, GoldOncePerDatabaseAndTextVerdictsInOrder) {
  std::vector<exec::Item> items;
  for (int i = 0; i < 200; ++i)
    items.push_back({"db" + std::to_string(i % 3), "gold" + std::to_string(i % 5), std::to_string(i)});
  std::mutex mu;
  std::map<std::string, int> gold_runs;
  std::atomic<int> pred_runs{0};
  exec::Steps<std::string, int, std::string> steps{
      [&](const exec::Item& it) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        std::lock_guard<std::mutex> lk(mu);
        ++gold_runs[it.db + "/" + it.gold];
        return it.db + ":" + it.gold;
      },
      [&](const exec::Item& it) {
        ++pred_runs;
        return std::stoi(it.pred);
      },
      [](const exec::Item&, const std::string& g, const int& p) { return g + "#" + std::to_string(p); }};
  exec::GoldMemo<std::string> golds;
  Progress progress("test", items.size(), 0);
  auto out = exec::run(items, steps, golds, 4, &progress);
  ASSERT_EQ(out.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i)
    EXPECT_EQ(out[i], items[i].db + ":" + items[i].gold + "#" + std::to_string(i));
  EXPECT_EQ(gold_runs.size(), 15u);  // 3 databases x 5 golds (i%3, i%5 cover every pair)
  for (auto& [k, n] : gold_runs) EXPECT_EQ(n, 1) << k;
  EXPECT_EQ(golds.executions(), 15u);
  EXPECT_EQ(pred_runs, 200);
}

TEST(ExecRunner, GoldKeySeparatesDatabaseFromText) {
  EXPECT_NE(exec::gold_key({"a", "bc"}), exec::gold_key({"ab", "c"}));
  EXPECT_EQ(exec::gold_key({"a", "bc"}), exec::gold_key({"a", "bc"}));
  EXPECT_EQ(exec::gold_key({"a", "bc"}).size(), 32u);  // a digest: an 8 MiB gold costs 32 bytes of key
  {  // the one key of every gold cache: a pinned SQL clock (--now, a request's now) is part of it
    const std::string real = exec::gold_key({"db", "SELECT date('now')"});
    sqlgrade::sql_clock::ClockScope pin("2020-01-01 00:00:00", "--now");
    EXPECT_NE(exec::gold_key({"db", "SELECT date('now')"}), real);
  }
  exec::GoldMemo<int> m;
  int runs = 0;
  m.get("a", "bc", [&] { return ++runs; });
  m.get("ab", "c", [&] { return ++runs; });
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(*m.peek("a", "bc"), 1);
}

TEST(ExecRunner, FailingGoldIsRetriedAndTheErrorReachesTheCaller) {
  exec::GoldMemo<int> m;
  int runs = 0;
  EXPECT_THROW(m.get("db", "g", [&]() -> int { ++runs; throw std::runtime_error("locked"); }), std::runtime_error);
  EXPECT_EQ(*m.get("db", "g", [&] { return ++runs; }), 2);
  EXPECT_EQ(runs, 2);
}

TEST(ExecRunner, RunEachUsesEveryCoreWhenJobsIsZero) {
  auto out = exec::run_each<size_t>(1000, 0, nullptr, [](size_t i) { return i * i; });
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i * i);
}

TEST(ExecRunner, VerdictMemoChecksEachTripleOnce) {
  // 300 items, 6 distinct (db, gold, prediction) triples: with a verdict memo, each triple's gold,
  // prediction and comparison run once; without it, every item's prediction runs.
  std::vector<exec::Item> items;
  for (int i = 0; i < 300; ++i) items.push_back({"db" + std::to_string(i % 2), "g", "p" + std::to_string(i % 3)});
  std::atomic<int> gold_runs{0}, pred_runs{0}, compares{0};
  exec::Steps<std::string, std::string, std::string> steps{
      [&](const exec::Item& it) {
        ++gold_runs;
        return it.db + ":" + it.gold;
      },
      [&](const exec::Item& it) {
        ++pred_runs;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return it.pred;
      },
      [&](const exec::Item&, const std::string& g, const std::string& p) {
        ++compares;
        return g + "#" + p;
      }};
  exec::GoldMemo<std::string> golds;
  exec::VerdictMemo<std::string> verdicts;
  auto out = exec::run(items, steps, golds, 4, nullptr, &verdicts);
  ASSERT_EQ(out.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) EXPECT_EQ(out[i], items[i].db + ":g#" + items[i].pred) << i;
  EXPECT_EQ(pred_runs, 6);
  EXPECT_EQ(compares, 6);
  EXPECT_EQ(gold_runs, 2);
  EXPECT_EQ(verdicts.misses(), 6u);
  EXPECT_NE(exec::verdict_key("a", "b", "c"), exec::verdict_key("a", "bc", ""));
  exec::run(items, steps, golds, 4, nullptr);
  EXPECT_EQ(pred_runs, 306);
  EXPECT_EQ(gold_runs, 2);  // the gold memo still holds both
}

TEST(ExecRunner, ForEachRunsEveryItemOnceAndRethrows) {
  // The benchmark modules' steps that fill their own slot (Spider 2.0's jobs, UDA's statements).
  std::vector<std::atomic<int>> seen(500);
  Progress progress("test", seen.size(), 0);
  exec::for_each(seen.size(), 3, &progress, [&](size_t i) { ++seen[i]; });
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i].load(), 1) << i;
  EXPECT_THROW(exec::for_each(10, 2, nullptr, [](size_t i) {
                 if (i == 7) throw std::runtime_error("item 7");
               }),
               std::runtime_error);
}
