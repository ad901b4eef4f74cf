#pragma once
// The one execution runner: items (database, gold, prediction) → each distinct gold computed once
// (core/memo.hpp: single-flight, optionally bounded) → every item on all cores (core/parallel) →
// results in item order, progress ticking. A benchmark supplies its three steps — run the gold, run the
// prediction, compare — and keeps its own rule; this file knows no engine and no benchmark.
//
// Two levels:
// - GoldMemo + run_each: the pieces, for runners whose items do more than one gold/prediction pair
//   (Spider's test-suite evaluator runs each item on several database files and plug_value candidates).
//   They memoise gold with GoldMemo and schedule with run_each.
// - run(): the whole loop for items with one gold and one prediction on one database (BIRD), with an
//   optional verdict memo when a verdict depends on nothing but (database, gold, prediction).
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/core/memo.hpp"
#include "sqlgrade/core/parallel.hpp"

namespace sqlgrade::exec {

// The one cache key of a gold, for every cache of golds (this memo, the reward server's gold cache in
// verdict/gold_cache.hpp): SHA-256 of the parts that decide its result (the database, its version, the
// gold text, ...), each length-prefixed, and the calling thread's pinned SQL clock when there is one.
std::string gold_key(std::initializer_list<std::string_view> parts);
// The memo key of a verdict: gold_key of ("verdict", database, gold, prediction).
std::string verdict_key(std::string_view db, std::string_view gold_sql, std::string_view pred);

// Gold results keyed by gold_key(); unbounded by default (one CLI run), bounded for long-lived users.
template <class Gold>
class GoldMemo {
 public:
  explicit GoldMemo(MemoBounds bounds = {}, typename Memo<std::string, Gold>::Cost cost = nullptr,
                    typename Memo<std::string, Gold>::Keep keep = nullptr)
      : memo_(bounds, std::move(cost), std::move(keep)) {}

  // The gold of (db, gold_sql): memoised, else run() (called once however many threads ask).
  template <class F>
  std::shared_ptr<const Gold> get(std::string_view db, std::string_view gold_sql, F&& run, bool* hit = nullptr) {
    return memo_.get(gold_key({db, gold_sql}), std::forward<F>(run), hit);
  }
  std::shared_ptr<const Gold> peek(std::string_view db, std::string_view gold_sql) const {
    return memo_.peek(gold_key({db, gold_sql}));
  }
  uint64_t executions() const { return memo_.misses(); }  // golds computed (misses)

 private:
  Memo<std::string, Gold> memo_;
};

// fn(i) for every i in [0, n) on `jobs` threads (0 = every core); results in item order.
template <class R, class F>
std::vector<R> run_each(size_t n, unsigned jobs, Progress* progress, F&& fn) {
  std::vector<R> out(n);
  parallel_for(n, jobs == 0 ? resolve_jobs(0) : jobs, [&](size_t i) { out[i] = fn(i); }, progress);
  return out;
}

// fn(i) for every i in [0, n) on `jobs` threads (0 = every core), for steps that fill their own slot.
template <class F>
void for_each(size_t n, unsigned jobs, Progress* progress, F&& fn) {
  parallel_for(n, jobs == 0 ? resolve_jobs(0) : jobs, [&](size_t i) { fn(i); }, progress);
}

// One item: which database, which gold, which prediction (texts or paths, as the benchmark reads them).
struct Item {
  std::string db;
  std::string gold;
  std::string pred;
};

// What a benchmark supplies to run().
template <class Gold, class Pred, class Verdict>
struct Steps {
  std::function<Gold(const Item&)> run_gold;
  std::function<Pred(const Item&)> run_pred;
  std::function<Verdict(const Item&, const Gold&, const Pred&)> compare;
};

// Verdicts keyed by verdict_key(): for benchmarks whose verdict depends on the triple alone.
template <class Verdict>
using VerdictMemo = Memo<std::string, Verdict>;

// Every item: gold through `golds` (once per distinct (db, gold)), prediction, comparison — on `jobs`
// threads, verdicts in item order. With `verdicts`, each distinct (db, gold, prediction) is checked
// once (single flight) and the others share its verdict, neither gold nor prediction running for them.
template <class Gold, class Pred, class Verdict>
std::vector<Verdict> run(const std::vector<Item>& items, const Steps<Gold, Pred, Verdict>& steps,
                         GoldMemo<Gold>& golds, unsigned jobs, Progress* progress,
                         VerdictMemo<Verdict>* verdicts = nullptr) {
  return run_each<Verdict>(items.size(), jobs, progress, [&](size_t i) {
    const Item& it = items[i];
    auto check = [&] {
      std::shared_ptr<const Gold> g = golds.get(it.db, it.gold, [&] { return steps.run_gold(it); });
      Pred p = steps.run_pred(it);
      return steps.compare(it, *g, p);
    };
    if (!verdicts) return check();
    return *verdicts->get(verdict_key(it.db, it.gold, it.pred), check);
  });
}

}  // namespace sqlgrade::exec
