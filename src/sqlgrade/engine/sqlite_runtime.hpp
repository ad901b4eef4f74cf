#pragma once
// How sqlgrade's SQLite is set up for the whole process, so that every bound of a query holds by
// construction rather than by inspecting the SQL (docs/safety.md, "Execution bounds: mechanism").
//
// sqlgrade links its own copy of SQLite (Debian's libsqlite3.a; its symbols are hidden inside the
// Python module), so nothing else can initialise it first and this configuration always applies:
//  - an allocator that charges every byte SQLite allocates on a thread to the query that thread is
//    running (QueryBudget). Past the query's memory cap an allocation fails and the query stops
//    ("memory cap", TooLarge); a large allocation (64 KiB or more) after the query's deadline fails
//    too (Timeout). Every built-in that builds a big value (randomblob, hex, printf, upper, quote,
//    substr, json_*, group_concat, ...) allocates it before doing the work, so once the deadline has
//    passed no such call can start — a single call, which the progress handler cannot interrupt, is
//    bounded by the value length limit instead of running on for seconds. Thread-local, no lock,
//    SQLite's own memory statistics stay off;
//  - a VFS, "sqlgrade", registered as the process's default, that opens database files through the
//    system's one only read-only and keeps every temporary file (sorter runs, temporary b-trees of
//    DISTINCT/GROUP BY/ORDER BY, statement journals) in memory charged to the same budget: SQLite cannot
//    create, write or delete a file. Only when a statement's memory cap would be passed, and only for a
//    statement that may spill (StatementScope), does a temporary file move to disk: into the statement's
//    private folder, within its quota, removed when the statement ends (sqlite_spill.hpp).
#include <chrono>

#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/engine/engine.hpp"

namespace sqlgrade::sqlite_guard {

// The statement a connection is running: its wall-clock deadline (core/deadline.hpp, the one Deadline
// type) and whether it has fired, shared with its progress handler, the deadline-aware built-ins and the
// allocator. Once fired it stays fired until the next statement is armed.
struct StatementDeadline {
  Deadline limit;  // none: the statement has no deadline (or none is running)
  bool fired = false;
  // True (and `fired` set) once the deadline has passed, or once the work this thread does was
  // cancelled (core/cancel.hpp: the reward server's client hung up, its request budget ran out, or the
  // server is shutting down): the statement then stops as at its deadline.
  bool expired() {
    if (!fired && limit.expired()) fired = true;
    return fired;
  }
};

class SpillArea;  // sqlite_spill.hpp

// What one query may still allocate inside SQLite. `used` is the net number of bytes SQLite allocated
// on the thread since the query began (frees of older blocks can make it negative).
struct QueryBudget {
  long long used = 0;
  long long peak = 0;             // the largest `used` reached (what the statement needed in memory)
  long long cap = 0;              // bytes; 0: no cap
  StatementDeadline* deadline = nullptr;   // large allocations fail once it has passed
  SpillArea* spill = nullptr;     // where temporary files go rather than past `cap` (null: nowhere)
  bool over_cap = false;          // an allocation was refused: the cap would have been passed
  bool late = false;              // a large allocation was refused: the deadline had passed
};

// Makes `b` the calling thread's budget for its lifetime (the previous one comes back afterwards).
class BudgetScope {
 public:
  explicit BudgetScope(QueryBudget& b);
  ~BudgetScope();
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;

 private:
  QueryBudget* prev_;
};

// One statement's bounds on the calling thread, from before it is prepared until after it is finalised:
// its deadline armed (`limits.timeout_s`; cancellation of the thread's work included), the budget the
// allocator charges (`limits.max_memory`, the deadline inside a step) and, when `may_spill` and
// `limits.max_spill` allow it, the private folder its temporary files spill into past the cap. The
// destructor disarms the deadline and removes the folder. Every statement sqlgrade runs on SQLite runs
// inside one (SqliteConnection), so no kind of connection can skip a bound.
class StatementScope {
 public:
  StatementScope(StatementDeadline& dl, const Limits& limits, bool may_spill);
  ~StatementScope();
  StatementScope(const StatementScope&) = delete;
  StatementScope& operator=(const StatementScope&) = delete;
  QueryBudget& budget() { return budget_; }
  // Temporary files needed more disk than the statement's quota (or the process's spill limit) allows.
  bool spill_over_quota() const;
  bool spill_crowded() const;  // ... because of the process's limit: other statements held the space
  long long spill_peak() const;  // the most bytes its temporary files held on disk at once

 private:
  StatementDeadline& dl_;
  QueryBudget budget_;
  SpillArea* spill_ = nullptr;
  BudgetScope scope_;
};

// Installs the allocator (with SQLite's memory statistics off) and registers the VFS, once; runs
// before main() and again (as a no-op) before the first connection opens. Returns whether the
// allocator is in place: false only if something initialised this SQLite before sqlgrade could
// configure it (possible only when linked against a shared libsqlite3 that another component of the
// process uses). The VFS is registered either way.
bool configure_once();
bool allocator_installed();

// Name of the VFS every connection opens with (also the process's default VFS).
const char* vfs_name();
// Name of the system's own VFS, which can write files: only for the two files sqlgrade writes with SQLite
// on purpose — a counterexample database (SqliteScratch::save_copy) and the UDA LLM judge's cache
// (open_cache_file) — both through engine functions.
const char* file_vfs_name();

}  // namespace sqlgrade::sqlite_guard
