#pragma once
// Loading a candidate's rows into a scratch database under every constraint the schema declares
// (docs/verify.md, "Constraints the witness keeps"). SQLite enforces NOT NULL, UNIQUE, PRIMARY KEY,
// CHECK and immediate foreign keys on each INSERT; on top of that:
//  - a DEFERRABLE INITIALLY DEFERRED foreign key is checked row by row as the row is loaded (a
//    savepoint per row, SQLITE_DBSTATUS_DEFERRED_FKS after it): a row that leaves a deferred key
//    unresolved is refused as an immediate key would refuse it, never first noticed at a COMMIT that
//    the search (which rolls back) never runs;
//  - the schema's guard triggers (schema.hpp: their body only SELECTs, e.g. SELECT RAISE(ABORT, ...)
//    WHERE ...) are in the database: a row one refuses (ABORT, FAIL, IGNORE) is dropped; one that
//    ROLLBACKs the transaction is dropped and the rows kept so far are loaded again in a new one;
//  - a row that an INSERT accepts without writing it (RAISE(IGNORE), ON CONFLICT IGNORE) is not kept.
// revalidate() replays a witness's rows on a fresh database that also has the triggers that write.
#include "sqlgrade/verify/candidate.hpp"
#include "sqlgrade/verify/schema.hpp"
#include "sqlgrade/verify/scratch_db.hpp"

namespace sqlgrade::verify {

enum class Insert { Kept, Refused, TransactionLost };
// One row into `table` inside the caller's transaction, checked as above.
Insert insert_checked(ScratchDb& db, const Schema& s, const std::string& table, const std::vector<std::string>& columns,
                      const Row& row);

// Inserts the candidate's rows (parents first) inside the caller's open transaction; a row the schema
// refuses is dropped. Returns the rows kept; `ok` is false when the rows could not be loaded (the
// transaction could not be begun again after a ROLLBACK).
Candidate load_rows(ScratchDb& db, const Schema& s, const Candidate& c, bool* ok);

// The rows of `c` replayed, in order, on a fresh database with every trigger of the schema (those that
// write included) and committed: true when every row is kept and the COMMIT succeeds.
bool revalidate(const Schema& s, const Candidate& c);

}  // namespace sqlgrade::verify
