// Where a BIRD run executes its queries — see backend.hpp.
#include "sqlgrade/bird/backend.hpp"
#include "sqlgrade/bird/bench.hpp"

#include <sqlite3.h>

#include <filesystem>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/engine/server.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade::bird {

namespace {

namespace fs = std::filesystem;

class SqliteBackend : public Backend {
 public:
  explicit SqliteBackend(std::string root) : root_(std::move(root)) {
    opt_.text_decode = SqliteOptions::TextDecode::Error;  // Python's default text_factory raises
    opt_.empty_is_ok = true;                              // cursor.execute(" ") returns no rows
  }
  std::string location(const std::string& db_id) const override {
    return benchmark().database(root_, db_id);
  }
  void check_database(const std::string& d, const std::string& gold, long line) const override {
    const bool plain = is_plain_name(d);
    std::error_code ec;
    if (plain && fs::is_regular_file(location(d), ec)) return;
    throw InputError(gold, plain ? "database not found: " + location(d)
                                 : "db_id '" + d + "' is not a folder name inside --db_root_path", line);
  }
  ExecResult execute(const std::string& loc, const std::string& sql, const Limits& lim) override {
    return SqlitePool::lease(loc, opt_)->execute(sql, lim);
  }
  ExecResult timed(const std::string& loc, const std::string& sql, const Limits& lim) override {
    return execute(loc, sql, lim);
  }
  std::string engine() const override { return "sqlite"; }
  std::string engine_version() override { return sqlite3_libversion(); }

 private:
  std::string root_;
  SqliteOptions opt_;
};

class ServerBackend : public Backend {
 public:
  explicit ServerBackend(ServerDsn dsn) : dsn_(std::move(dsn)) {
    version_ = ServerPool::lease(dsn_)->server_version();  // connects and checks the login now
  }
  std::string location(const std::string&) const override { return dsn_.uri; }  // one database for all
  void check_database(const std::string&, const std::string&, long) const override {}
  ExecResult execute(const std::string&, const std::string& sql, const Limits& lim) override {
    return ServerPool::lease(dsn_)->execute(sql, lim);
  }
  ExecResult timed(const std::string&, const std::string& sql, const Limits& lim) override {
    return ServerPool::lease(dsn_)->timed(sql, lim);
  }
  std::string engine() const override { return dialect_word(dsn_.dialect); }
  std::string engine_version() override { return version_; }

 private:
  ServerDsn dsn_;
  std::string version_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(const Options& opt) {
  if (opt.sql_dialect == "SQLite") {
    if (!opt.dsn.empty())
      throw InputError("--dsn", "is for --sql_dialect PostgreSQL or MySQL; SQLite databases come from --db_root_path");
    return std::make_unique<SqliteBackend>(opt.db_dir);
  }
  if (opt.sql_dialect != "PostgreSQL" && opt.sql_dialect != "MySQL")
    throw InputError("--sql_dialect", "unknown dialect '" + opt.sql_dialect + "' (SQLite, PostgreSQL, MySQL)");
  if (!opt.data_mode.empty())
    throw InputError("--sql_dialect", "the original BIRD layout (--data_mode) is SQLite only; MySQL and PostgreSQL "
                                      "are Mini-Dev's");
  if (opt.dsn.empty())
    throw InputError("--dsn", "--sql_dialect " + opt.sql_dialect + " needs the database's URI (" +
                                  (opt.sql_dialect == "PostgreSQL" ? "postgresql://reader@host:port/bird"
                                                                   : "mysql://reader@host:port/BIRD?socket=/path") +
                                  "; `sqlgrade db load` creates the database and its read-only login)");
  ServerDsn dsn = parse_server_dsn(opt.dsn, "--dsn");
  if (dialect_name(dsn.dialect) != opt.sql_dialect)
    throw InputError("--dsn", "is a " + std::string(dialect_name(dsn.dialect)) + " URI but --sql_dialect is " +
                                  opt.sql_dialect);
  return std::make_unique<ServerBackend>(std::move(dsn));
}

}  // namespace sqlgrade::bird
