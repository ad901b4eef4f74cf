#pragma once
// Where a BIRD run executes its queries (--sql_dialect): the SQLite file of each question's database
// (<db_root_path>/<db_id>/<db_id>.sqlite), or — MySQL and PostgreSQL, as the official Mini-Dev scripts —
// one server database holding every table, reached through --dsn (engine/server.hpp: the read-only login,
// the deadline on the server and from the client, psycopg2's and PyMySQL's values). run.cpp asks it for
// a query's result and for the timing of VES / R-VES; nothing else in the run depends on the dialect.
#include <memory>
#include <string>

#include "sqlgrade/bird.hpp"
#include "sqlgrade/engine/engine.hpp"

namespace sqlgrade::bird {

class Backend {
 public:
  virtual ~Backend() = default;
  // The database a question runs on: the key under which gold results are shared.
  virtual std::string location(const std::string& db_id) const = 0;
  // Throws InputError (naming the gold file and line) when a question's database does not exist.
  virtual void check_database(const std::string& db_id, const std::string& gold_file, long line) const = 0;
  virtual ExecResult execute(const std::string& location, const std::string& sql, const Limits& lim) = 0;
  // One timed run for VES / R-VES; ExecResult::seconds is the time to compare (SQLite: the engine call;
  // servers: the time the server reports, engine/server.hpp ServerDb::timed).
  virtual ExecResult timed(const std::string& location, const std::string& sql, const Limits& lim) = 0;
  virtual std::string engine() const = 0;          // "sqlite", "postgresql", "mysql"
  virtual std::string engine_version() = 0;
};

// The backend of `opt.sql_dialect`. Servers: checks --dsn (its scheme must match the dialect) and opens
// one connection, so that an unreachable server or a login that may write is an InputError before any
// question runs. Throws InputError for an unknown dialect.
std::unique_ptr<Backend> make_backend(const Options& opt);

}  // namespace sqlgrade::bird
