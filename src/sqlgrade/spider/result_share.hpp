#pragma once
// The results of the original Spider reading — strict UTF-8 (evaluation.py's sqlite3 default text
// factory), every row — of each distinct (database file, SQL text), executed once (single flight), and
// lent to the test-suite pass of the same `sqlgrade spider --compat both` run when the lent result is
// exactly what test-suite's own reading would return (docs/comparing-runs.md §8):
//   - same file and same SQL text as executed (test-suite's rewrites — `value` → 1, DISTINCT removed,
//     `! =` → `!=`, YEAR(CURDATE()) → 2020 — give another text, hence another key: never lent);
//   - the strict reading succeeded (Ok). Then every text cell was valid UTF-8, so test-suite's lenient
//     reading (invalid bytes dropped) gives the same values. Errors (a strict "Could not decode" is a
//     lenient success), timeouts and results past a cap are never lent: test-suite runs those itself;
//   - the borrower's limits are at least as generous (deadline, result bytes, memory): a statement that
//     finished within the strict pass's limits finishes within them too. Its row cap is applied to the
//     lent result: more rows than the cap is TooLarge, as the engine stops a capped read (test-suite
//     reads a prediction one row past the gold's row count), otherwise the whole result.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "sqlgrade/engine/engine.hpp"
#include "sqlgrade/exec/runner.hpp"

namespace sqlgrade::spider {

class ResultShare {
 public:
  explicit ResultShare(Limits strict_limits);

  // The strict pass: the memoised result of sql on the file `path`, else run()'s (called once however
  // many threads ask). Bounded by bytes (256 MiB): an evicted result is run again when asked again.
  template <class F>
  std::shared_ptr<const ExecResult> strict(const std::string& path, const std::string& sql, F&& run) {
    return memo_.get(path, sql, std::forward<F>(run));
  }

  // The test-suite pass: what its own reading under `lim` returns for sql on `path`, when a strict
  // result determines it (rules above); else null (the caller executes the statement).
  std::shared_ptr<const ExecResult> lend(const std::string& path, const std::string& sql, const Limits& lim) const;

  uint64_t executed() const { return memo_.executions(); }  // statements the strict pass ran
  uint64_t lent() const { return lent_; }                    // results lent to the test-suite pass

 private:
  bool covers(const Limits& lim) const;
  static size_t cost(const std::string& key, const ExecResult& r);

  Limits strict_;
  exec::GoldMemo<ExecResult> memo_;
  mutable std::atomic<uint64_t> lent_{0};
};

}  // namespace sqlgrade::spider
