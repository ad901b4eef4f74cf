// Loading candidate rows under every declared constraint (load.hpp).
#include "sqlgrade/verify/load.hpp"

#include <sqlite3.h>

namespace sqlgrade::verify {

namespace {
// No deferred foreign key is left unresolved on the connection.
bool deferred_keys_resolved(ScratchDb& db) {
  int cur = 0, hi = 0;
  return sqlite3_db_status(db.handle(), SQLITE_DBSTATUS_DEFERRED_FKS, &cur, &hi, 0) == SQLITE_OK && cur == 0;
}
}  // namespace

Insert insert_checked(ScratchDb& db, const Schema& s, const std::string& table, const std::vector<std::string>& columns,
                      const Row& row) {
  const bool deferred = s.fk_enforced && s.deferred_fks;
  if (deferred) db.exec("SAVEPOINT sqlgrade_row");
  const std::string err = db.insert(table, columns, row);
  if (db.autocommit()) return Insert::TransactionLost;  // ON CONFLICT ROLLBACK, RAISE(ROLLBACK)
  // sqlite3_changes counts the rows the INSERT itself wrote (not the triggers'): 0 when it was ignored.
  bool kept = err.empty() && sqlite3_changes(db.handle()) == 1;
  if (deferred) {
    kept = kept && deferred_keys_resolved(db);
    if (!kept) db.exec("ROLLBACK TO sqlgrade_row");
    db.exec("RELEASE sqlgrade_row");
  }
  return kept ? Insert::Kept : Insert::Refused;
}

Candidate load_rows(ScratchDb& db, const Schema& s, const Candidate& c, bool* ok) {
  Candidate kept{{}, {}, c.strategy, c.mutations};
  kept.rows.resize(s.tables.size());
  kept.src.resize(s.tables.size());
  *ok = true;
  for (size_t t = 0; t < s.tables.size() && t < c.rows.size(); ++t) {
    const auto cols = s.tables[t].column_names();
    for (size_t r = 0; r < c.rows[t].size(); ++r) {
      const Insert res = insert_checked(db, s, s.tables[t].name, cols, c.rows[t][r]);
      if (res == Insert::TransactionLost) {
        // The row is dropped; the rows kept so far are loaded again in a new transaction (they were
        // accepted in the same order before, so they are again).
        if (!db.exec("BEGIN").empty()) return *ok = false, kept;
        for (size_t pt = 0; pt <= t; ++pt)
          for (const Row& row : kept.rows[pt])
            if (insert_checked(db, s, s.tables[pt].name, s.tables[pt].column_names(), row) != Insert::Kept) {
              db.exec("ROLLBACK");
              db.exec("BEGIN");
              return *ok = false, kept;
            }
        continue;
      }
      if (res == Insert::Refused) continue;
      kept.rows[t].push_back(c.rows[t][r]);
      kept.src[t].push_back(c.src[t][r]);
    }
  }
  return kept;
}

bool revalidate(const Schema& s, const Candidate& c) {
  ScratchDb db;
  create_schema(db, s, true);
  if (!db.exec("BEGIN").empty()) return false;
  for (size_t t = 0; t < s.tables.size() && t < c.rows.size(); ++t)
    for (const Row& row : c.rows[t])
      if (insert_checked(db, s, s.tables[t].name, s.tables[t].column_names(), row) != Insert::Kept) return false;
  return db.exec("COMMIT").empty();
}

}  // namespace sqlgrade::verify
