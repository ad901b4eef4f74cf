#pragma once
// What the verification search keeps per database between instances (issue 31): items of the engine's
// SqlitePool, so that they share one byte bound with the connections to benchmark databases and the
// least recently used go first (SqlitePoolOptions::max_bytes). Before, every database the search had
// seen stayed in memory for the life of the process: its schema sample, and an in-memory copy of its
// schema per worker thread (+679 MiB in the reward server after 100 databases).
//  - schema_of (schema.hpp): the schema and its sample, an idle item between uses, counted by the heap
//    it holds (schema_bytes); a caller holds a shared_ptr, so dropping the item never pulls it away;
//  - lease_work_db: an in-memory database with the schema created, leased by one search at a time and
//    counted by what SQLite holds for it.
#include <cstddef>

#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/verify/schema.hpp"
#include "sqlgrade/verify/scratch_db.hpp"

namespace sqlgrade::verify {

using WorkDb = SqlitePool::Held<ScratchDb>;
// An in-memory database with `s`'s tables, indexes and views (create_schema), for one search.
WorkDb lease_work_db(const Schema& s);

// The bounds of one search over candidates, for its lifetime: a CancelToken under the thread's current
// one (the reward server's request) whose deadline is the search's budget plus as much again (at least
// one query's timeout) for shrinking and re-checking a difference found near the end — so a search
// never runs past about twice its budget. Every query on a candidate reads it through the engine's
// deadline check (the progress handler and the allocator's guard inside a step); stopped() tells the
// search loop to stop (deadline, or the request cancelled: hang-up, request budget, shutdown).
class SearchScope {
 public:
  SearchScope(double budget_s, double query_timeout_s);
  bool stopped() const { return token_.cancelled(); }

 private:
  CancelToken token_;
  CancelScope scope_;
};

// Heap bytes a schema holds (names, DDL, columns with their domains, the sampled rows).
size_t schema_bytes(const Schema& s);

}  // namespace sqlgrade::verify
