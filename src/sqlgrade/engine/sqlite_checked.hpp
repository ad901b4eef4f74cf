#pragma once
// Built-ins whose one call could run for seconds or hours inside a single VM step no matter how big its
// values are, checked before they run and then evaluated by SQLite's own implementation:
//  - printf / format: '%c' with a precision repeats its character in a loop that keeps running after
//    the result has passed the length limit (it then returns NULL): printf('%.*c', 2e9, 'x') took
//    90 s on a loaded machine, 12.4 s idle. A call whose '%c' precision is at least the length limit
//    returns NULL at once — what SQLite returns after its loop;
//  - json_patch: merges objects in O(keys(a) x keys(b)) (18.6 s for two objects of 60,000 keys). A
//    call where that product could pass 2^25 key comparisons (~0.2 s) fails with an error instead;
//  - json_extract, json_remove, json_insert, json_replace, json_set: each of up to 126 paths is looked
//    up in O(size of the JSON) (16 s for 126 paths into a 16 MB array). A call with more than one
//    path where paths x bytes passes 2^26 fails with an error instead.
// Everything else about these functions is SQLite's: the call is made on a private in-memory
// connection (BuiltinHelper) that has SQLite's own built-ins, with the calling connection's length
// limit, on the same thread (so its allocations are charged to the same query). A call also fails at once once the
// statement's deadline has passed.
#include <map>
#include <string>

#include "sqlgrade/engine/sqlite_runtime.hpp"

struct sqlite3;
struct sqlite3_context;
struct sqlite3_stmt;
struct sqlite3_value;

namespace sqlgrade::sqlite_guard {

// An in-memory connection with SQLite's own built-ins, opened on first use, where a checked call is
// evaluated. Not thread-safe: it belongs to one SqliteDb.
class BuiltinHelper {
 public:
  BuiltinHelper() = default;
  ~BuiltinHelper();
  BuiltinHelper(const BuiltinHelper&) = delete;
  BuiltinHelper& operator=(const BuiltinHelper&) = delete;
  // Sets the result of `ctx` to SQLite's `fn(argv...)`, JSON subtypes of arguments and result kept (an
  // enclosing json function embeds such a value rather than quoting it).
  void call(sqlite3_context* ctx, const char* fn, int argc, sqlite3_value** argv);

 private:
  sqlite3_stmt* statement(const char* fn, int argc, sqlite3_value** argv);
  sqlite3* db_ = nullptr;
  std::map<std::string, sqlite3_stmt*> stmts_;  // by function and which arguments carry the JSON subtype
};

// Registers printf, format, json_extract, json_remove, json_insert, json_replace, json_set (any number
// of arguments) and json_patch/2 on `db`.
void register_checked_functions(sqlite3* db, BuiltinHelper* helper, StatementDeadline* dl);

// For tests: the largest '%c' precision of printf(fmt, args...) as SQLite 3.40 reads it (0 when
// there is none), the json_patch cost estimate (keys of a x keys of b), and the multi-path one (paths
// x bytes when there is more than one path).
long long printf_max_char_repeat(const unsigned char* fmt, int argc, sqlite3_value** args);
long long json_patch_cost(const unsigned char* a, long long na, const unsigned char* b, long long nb);
long long json_paths_cost(long long paths, long long json_bytes);

}  // namespace sqlgrade::sqlite_guard
