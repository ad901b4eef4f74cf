// core/memo.hpp: single flight under real concurrency, LRU bounds by entries and bytes, failures
// never cached (waiters get the same exception, the next caller computes again), counters.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sqlgrade/core/memo.hpp"

using namespace sqlgrade;
using namespace std::chrono_literals;

namespace {

// Starts `n` threads that wait at a gate and then all call fn(thread index) at once.
template <class F>
void race(int n, F fn) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> ts;
  for (int t = 0; t < n; ++t)
    ts.emplace_back([&, t] {
      ++ready;
      while (!go) std::this_thread::yield();
      fn(t);
    });
  while (ready < n) std::this_thread::yield();
  go = true;
  for (auto& th : ts) th.join();
}

}  // namespace

TEST(Memo, ManyThreadsSameKeyComputeOnce) {
  Memo<std::string, int> m;
  std::atomic<int> calls{0};
  std::vector<std::shared_ptr<const int>> got(32);
  race(32, [&](int t) {
    got[t] = m.get("k", [&] {
      ++calls;
      std::this_thread::sleep_for(50ms);  // long enough for every thread to arrive while in flight
      return 42;
    });
  });
  EXPECT_EQ(calls, 1);
  for (auto& g : got) {
    ASSERT_TRUE(g);
    EXPECT_EQ(*g, 42);
    EXPECT_EQ(g.get(), got[0].get());  // one shared value
  }
  EXPECT_EQ(m.misses(), 1u);
  EXPECT_EQ(m.hits(), 31u);
  EXPECT_EQ(m.entries(), 1u);
}

TEST(Memo, DistinctKeysComputeConcurrently) {
  Memo<int, int> m;
  std::atomic<int> running{0}, peak{0}, calls{0};
  race(8, [&](int t) {
    m.get(t % 4, [&] {
      int r = ++running;
      int p = peak;
      while (r > p && !peak.compare_exchange_weak(p, r)) {}
      std::this_thread::sleep_for(30ms);
      --running;
      ++calls;
      return t % 4;
    });
  });
  EXPECT_EQ(calls, 4);   // one computation per distinct key
  EXPECT_GE(peak, 2);    // and not serialised behind one lock
  for (int k = 0; k < 4; ++k) EXPECT_EQ(*m.peek(k), k);
}

TEST(Memo, HitFlagAndCounters) {
  Memo<std::string, std::string> m;
  bool hit = true;
  EXPECT_EQ(*m.get("a", [] { return std::string("x"); }, &hit), "x");
  EXPECT_FALSE(hit);
  EXPECT_EQ(*m.get("a", [] { return std::string("y"); }, &hit), "x");
  EXPECT_TRUE(hit);
  EXPECT_EQ(m.hits(), 1u);
  EXPECT_EQ(m.misses(), 1u);
}

TEST(Memo, EntryBoundEvictsLeastRecentlyUsed) {
  Memo<int, int> m(MemoBounds{3, SIZE_MAX});
  for (int k = 0; k < 3; ++k) m.get(k, [k] { return k; });
  m.get(0, [] { return -1; });        // touch 0: now 1 is the least recently used
  m.get(3, [] { return 3; });         // evicts 1
  EXPECT_EQ(m.entries(), 3u);
  EXPECT_TRUE(m.peek(0));
  EXPECT_FALSE(m.peek(1));
  EXPECT_TRUE(m.peek(2));
  EXPECT_TRUE(m.peek(3));
  int calls = 0;
  EXPECT_EQ(*m.get(1, [&] { ++calls; return 10; }), 10);  // recomputed after eviction
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(m.peek(2));  // and 2 went in its turn
}

TEST(Memo, ByteBoundUsesTheCostFunction) {
  Memo<int, std::string> m(MemoBounds{SIZE_MAX, 100}, [](const int&, const std::string& v) { return v.size(); });
  m.get(1, [] { return std::string(40, 'a'); });
  m.get(2, [] { return std::string(40, 'b'); });
  EXPECT_EQ(m.bytes(), 80u);
  m.get(3, [] { return std::string(40, 'c'); });  // 120 > 100: the oldest goes
  EXPECT_EQ(m.bytes(), 80u);
  EXPECT_FALSE(m.peek(1));
  EXPECT_TRUE(m.peek(2));
  EXPECT_TRUE(m.peek(3));
  // larger than the whole bound: returned, not kept, nothing evicted for it
  auto big = m.get(4, [] { return std::string(500, 'd'); });
  EXPECT_EQ(big->size(), 500u);
  EXPECT_FALSE(m.peek(4));
  EXPECT_EQ(m.entries(), 2u);
  EXPECT_EQ(m.bytes(), 80u);
}

TEST(Memo, EvictedValueStaysAliveForItsHolder) {
  Memo<int, std::string> m(MemoBounds{1, SIZE_MAX});
  auto a = m.get(1, [] { return std::string("first"); });
  m.get(2, [] { return std::string("second"); });
  EXPECT_FALSE(m.peek(1));
  EXPECT_EQ(*a, "first");
}

TEST(Memo, ExceptionIsNotCachedAndReachesWaiters) {
  Memo<std::string, int> m;
  std::atomic<int> calls{0}, threw{0};
  race(16, [&](int) {
    try {
      m.get("k", [&]() -> int {
        ++calls;
        std::this_thread::sleep_for(50ms);
        throw std::runtime_error("boom");
      });
    } catch (const std::runtime_error& e) {
      if (std::string(e.what()) == "boom") ++threw;
    }
  });
  EXPECT_EQ(calls, 1);   // the waiters did not each retry the failing computation
  EXPECT_EQ(threw, 16);  // all of them saw its exception
  EXPECT_EQ(m.entries(), 0u);
  EXPECT_EQ(*m.get("k", [] { return 7; }), 7);  // the next request computes again
  EXPECT_EQ(*m.get("k", [] { return 8; }), 7);
}

TEST(Memo, KeepFalseIsReturnedToWaitersButNotKept) {
  Memo<int, int> m({}, nullptr, [](const int& v) { return v >= 0; });  // negative = transient failure
  std::atomic<int> calls{0};
  std::vector<int> got(8);
  race(8, [&](int t) {
    got[t] = *m.get(1, [&] {
      ++calls;
      std::this_thread::sleep_for(30ms);
      return -5;
    });
  });
  EXPECT_EQ(calls, 1);
  for (int g : got) EXPECT_EQ(g, -5);
  EXPECT_EQ(m.entries(), 0u);
  EXPECT_EQ(*m.get(1, [] { return 3; }), 3);
  EXPECT_EQ(m.entries(), 1u);
}

TEST(Memo, ZeroEntriesKeepsNothingButStillSharesInFlight) {
  Memo<int, int> m(MemoBounds{0, SIZE_MAX});
  EXPECT_EQ(*m.get(1, [] { return 1; }), 1);
  EXPECT_EQ(m.entries(), 0u);
  int calls = 0;
  m.get(1, [&] { ++calls; return 1; });
  EXPECT_EQ(calls, 1);
}

TEST(Memo, StressBoundedManyKeysManyThreads) {
  // Every value read equals its key's function whatever evictions happen concurrently, and the bounds
  // hold at the end.
  Memo<int, long> m(MemoBounds{16, 16 * 8}, [](const int&, const long&) { return size_t(8); });
  std::atomic<int> bad{0};
  race(8, [&](int t) {
    for (int i = 0; i < 2000; ++i) {
      int k = (i * 7 + t * 13) % 64;
      long v = *m.get(k, [k] { return long(k) * 1000 + 1; });
      if (v != long(k) * 1000 + 1) ++bad;
    }
  });
  EXPECT_EQ(bad, 0);
  EXPECT_LE(m.entries(), 16u);
  EXPECT_LE(m.bytes(), 128u);
  EXPECT_EQ(m.hits() + m.misses(), 8u * 2000u);
}
