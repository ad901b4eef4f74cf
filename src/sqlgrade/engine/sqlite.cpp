#include "sqlgrade/engine/sqlite.hpp"

#include <cstdio>
#include <filesystem>

#include "sqlgrade/engine/sqlite_runtime.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade {

namespace {

// How a database is opened without writing anything beside it. A read-only connection to a WAL-mode
// database (or to any database with a -wal file next to it: SQLite then reads the WAL whatever the
// header says) creates -wal and -shm files in its folder, and fails on read-only media. With no WAL
// content to read, `immutable=1` reads the main file alone and creates nothing. WAL content cannot be
// read without a shared-memory index (the -shm file SQLite would create), so such a database is
// refused with a one-line error instead (the user can checkpoint it).
// `real` is the file's canonical path: SQLite resolves symlinks itself and would read the -wal beside
// the real file, so that is the one to look at (a check beside a symlink missed it, and a -shm file
// appeared beside the real database). `shown` names the file in the error.
bool opens_immutable(const std::string& real, const std::string& shown) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path wal = real + "-wal";
  const bool has_wal = fs::exists(fs::symlink_status(wal, ec));
  if (has_wal) {
    auto size = fs::file_size(wal, ec);
    // 32 bytes: a WAL header without a single frame (a checkpointed, truncated or reset log).
    if (ec || size > 32)
      throw InputError(shown, (real != shown ? "the -wal file beside its real file " + real : std::string("its -wal file")) +
                                  " holds changes not yet written into the database; sqlgrade opens databases "
                                  "read-only and writes nothing beside them, so it cannot read them (checkpoint it "
                                  "first: sqlite3 <file> 'PRAGMA wal_checkpoint(TRUNCATE)')");
  }
  unsigned char header[20] = {0};
  if (std::FILE* f = std::fopen(real.c_str(), "rb")) {
    size_t got = std::fread(header, 1, sizeof header, f);
    std::fclose(f);
    if (got < sizeof header) return has_wal;
  }
  // Bytes 18 and 19 of the header: file format write/read versions, 2 = WAL.
  return has_wal || header[18] == 2 || header[19] == 2;
}

}  // namespace

void sqlite_configure_once() { sqlite_guard::configure_once(); }

namespace {

// file:<absolute path>?mode=ro[&immutable=1]: the URI form enforces mode=ro even when the path has odd
// characters.
std::string open_uri(const std::string& real, bool immutable) {
  std::string uri = "file:";
  for (char c : real) {
    if (c == '?' || c == '#' || c == '%') {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", static_cast<unsigned char>(c));
      uri += b;
    } else {
      uri += c;
    }
  }
  return uri + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
}

// The canonical path of the database `path` names (symlinks resolved), or InputError.
std::string real_database_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw InputError(path, fs::exists(path, ec) ? "not a regular file" : "database file not found");
  fs::path real = fs::canonical(path, ec);
  if (ec) throw InputError(path, "cannot resolve its path: " + ec.message());
  return real.string();
}

}  // namespace

namespace {
// The URI a database file is opened with (InputError when it cannot be: see opens_immutable).
std::string database_uri(const std::string& path) {
  sqlite_configure_once();
  const std::string real = real_database_path(path);
  return open_uri(real, opens_immutable(real, path));
}
}  // namespace

SqliteDb::SqliteDb(const std::string& path, SqliteOptions opt)
    : SqliteConnection(Kind::ReadOnlyFile, database_uri(path), path, opt), path_(path) {}

std::vector<std::string> SqliteDb::table_names() {
  std::vector<std::string> out;
  auto r = execute("SELECT name FROM sqlite_master WHERE type='table'", Limits{0, 1000000, 1u << 30});
  for (auto& row : r.table.rows) out.push_back(py::text(row[0]));
  return out;
}

std::vector<std::string> SqliteDb::column_names(const std::string& table) {
  std::vector<std::string> out;
  std::string q = "PRAGMA table_info(\"" + replace_all(table, "\"", "\"\"") + "\")";
  auto r = execute(q, Limits{0, 1000000, 1u << 30});
  for (auto& row : r.table.rows) out.push_back(py::text(row[1]));
  return out;
}

}  // namespace sqlgrade
