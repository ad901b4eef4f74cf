#pragma once
// In-memory DuckDB (C API) for CSV gold tables: a memory limit, one thread per query (sqlgrade
// parallelises across queries), an interrupt when a statement passes its deadline.
// A DuckDb can be shared by threads only through connect(): each thread gets its own DuckConn.
#include <memory>
#include <string>
#include <vector>

#include "sqlgrade/engine/engine.hpp"

namespace sqlgrade {

struct DuckOptions {
  std::string memory_limit = "4GB";
  int threads = 1;
  // Off by default: no file reads/writes from SQL (read_csv('/etc/passwd'), COPY TO, ATTACH,
  // INSTALL/LOAD). sqlgrade loads tables through the appender, so it never needs it. The
  // configuration is locked so that SQL cannot turn it back on.
  bool external_access = false;
};

class DuckConn : public Engine {
 public:
  ~DuckConn() override;
  ExecResult execute(std::string_view sql, const Limits& limits) override;
  std::string name() const override { return "duckdb"; }
  // Runs a statement that must succeed (setup); throws std::runtime_error with DuckDB's message.
  void run(std::string_view sql);
  // Creates table `name` with the given column names and SQL types (BIGINT, DOUBLE or VARCHAR) and
  // appends the rows (Int/Real/Text/Null cells) through DuckDB's appender.
  void load_table(const std::string& name, const std::vector<std::string>& columns,
                  const std::vector<std::string>& types, const std::vector<Row>& rows);

 private:
  friend class DuckDb;
  DuckConn() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class DuckDb {
 public:
  explicit DuckDb(DuckOptions opt = {});
  ~DuckDb();
  DuckDb(const DuckDb&) = delete;
  DuckDb& operator=(const DuckDb&) = delete;
  std::unique_ptr<DuckConn> connect();
  static std::string version();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// SQL quoting helpers for DuckDB.
std::string duck_ident(std::string_view name);    // "name" with "" escaped
std::string duck_literal(std::string_view text);  // 'text' with '' escaped

}  // namespace sqlgrade
