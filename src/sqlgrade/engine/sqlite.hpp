#pragma once
// Read-only SQLite access for benchmark databases.
//
// Guarantees (docs/safety.md), besides those of every connection (sqlite_connection.hpp: the "sqlgrade"
// VFS, the value limit, the guarded and checked built-ins, the deadline, the memory cap, the
// authorizer):
//  - the file is opened with SQLITE_OPEN_READONLY (URI mode=ro) and PRAGMA query_only=1;
//  - only one statement per call (trailing text other than whitespace/comments is an error, as in
//    Python's sqlite3 module); row and byte caps, the byte cap checked before each cell is copied;
//  - a statement whose temporary files pass its memory cap spills them into a private folder within
//    Limits::max_spill, removed when it ends (sqlite_spill.hpp);
//  - nothing written beside the file: WAL-mode databases open with immutable=1 (no -wal/-shm); one
//    whose -wal holds frames is refused (InputError), as reading it would need a -shm file. Symlinks
//    are resolved first, so the -wal looked at is the one beside the real file.
// A SqliteDb is not thread-safe: one thread at a time (SqlitePool leases each to one thread).
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sqlgrade/engine/sqlite_connection.hpp"

namespace sqlgrade {

// Configures sqlgrade's SQLite for this process once (allocator, statistics off, VFS; see
// sqlite_runtime.hpp). Done before main() already; every connection calls it again (a no-op).
void sqlite_configure_once();

class SqliteDb : public SqliteConnection {
 public:
  // Opens `path` read-only. Throws InputError if the file does not exist, is not a database, or has
  // un-checkpointed WAL frames beside it.
  explicit SqliteDb(const std::string& path, SqliteOptions opt = {});
  const std::string& path() const { return path_; }

  // Catalogue helpers (read through the same read-only connection).
  std::vector<std::string> table_names();                      // sqlite_master order, incl. sqlite_sequence
  std::vector<std::string> column_names(const std::string& table);  // PRAGMA table_info order

 private:
  std::string path_;
};

// Process-wide settings of the connection pool. The CLI, the server and the Python module can expose
// them as options (SqlitePool::configure).
struct SqlitePoolOptions {
  // Most SQLite connections to files open at once in the process; each holds one file descriptor, its
  // schema and up to 2 MiB of page cache. 0 (default): min(256, soft RLIMIT_NOFILE / 4), at least 4,
  // re-read whenever a connection is opened.
  size_t max_open = 0;
  // Most bytes the pool holds in all — connections (page cache, schema, statements), scratch databases
  // and the values kept with them (the verification search's schema samples) — as measured when each
  // item comes back; past it the least recently used idle items are closed or dropped. 0 (default):
  // kDefaultMaxBytes.
  size_t max_bytes = 0;
  static constexpr size_t kDefaultMaxBytes = size_t(256) << 20;
};

// What sqlgrade keeps of SQLite between uses, shared by all threads and bounded: connections to
// benchmark databases (at most max_open() open at once) and other items kept per database (the
// verification search's scratch databases and schema samples, verify/cache.hpp), all within
// max_bytes(). A lease gives one item to one thread; when it ends the item goes back to the pool as
// idle, its bytes measured again. Opening a new connection at the file bound first closes the least
// recently used idle one; past the byte bound the least recently used idle items go; a leased item is
// never closed. When every connection is leased, lease() waits for one to come back (a thread must not
// hold two leases of database files at once when max_open is at most the number of threads).
class SqlitePool {
 public:
  struct Entry;  // the pool's record of one item
  template <class T>
  class Held {
   public:
    Held(Held&& o) noexcept : entry_(o.entry_), item_(o.item_) { o.entry_ = nullptr; }
    Held& operator=(Held&&) = delete;
    Held(const Held&) = delete;
    ~Held() {
      if (entry_) SqlitePool::give_back(entry_);
    }
    T& operator*() const { return *item_; }
    T* operator->() const { return item_; }

   private:
    friend class SqlitePool;
    Held(Entry* e, T* item) : entry_(e), item_(item) {}
    Entry* entry_;
    T* item_;
  };
  using Lease = Held<SqliteDb>;

  // A connection to `path` opened with `opt` (read-only, as SqliteDb). Throws InputError as SqliteDb.
  static Lease lease(const std::string& path, SqliteOptions opt = {});
  // An item that holds no file, kept under `key`: an idle one, else `make()` (a std::unique_ptr<T>).
  template <class T, class Make>
  static Held<T> hold(const std::string& key, Make&& make) {
    Entry* e = take(key, false, [&]() -> std::unique_ptr<PoolItem> { return make(); });
    return Held<T>(e, static_cast<T*>(item_of(e)));
  }
  static void configure(const SqlitePoolOptions& opt);
  static size_t max_open();        // the file bound in force now
  static size_t open_count();      // connections to files open now, leased or idle
  static size_t max_bytes();       // the byte bound in force now
  static size_t resident_bytes();  // bytes held now, leased or idle (as last measured)
  static size_t item_count();      // items held now, leased or idle
  static void close_idle();        // closes or drops every idle item

 private:
  static Entry* take(const std::string& key, bool file, const std::function<std::unique_ptr<PoolItem>()>& make);
  static void give_back(Entry* e);
  static PoolItem* item_of(Entry* e);
};

}  // namespace sqlgrade
