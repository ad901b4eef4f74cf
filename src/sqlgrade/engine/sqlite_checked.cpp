// printf/format and json_patch, checked before SQLite's own implementation runs (sqlite_checked.hpp).
#include "sqlgrade/engine/sqlite_checked.hpp"

#include <sqlite3.h>

#include <climits>
#include <string>
#include <string_view>

namespace sqlgrade::sqlite_guard {

// ---------------------------------------------------------------- printf's '%c' repetitions

namespace {

// printf's arguments as SQLite's SQL printf reads them (getIntArg: in order, 0 once they run out).
struct Args {
  int argc;
  sqlite3_value** argv;
  int used = 0;
  long long next_int() { return used < argc ? sqlite3_value_int64(argv[used++]) : 0; }
  void skip() { used += used < argc; }
};

// How sqlite3_str_vappendf (SQLite 3.40) reads the flags, width and precision of one conversion
// starting at `f` (just after the '%'). Returns the precision (-1: none) and leaves `f` on the
// conversion character; `*` widths and precisions take an argument each.
int read_spec(const unsigned char*& f, Args& args) {
  int precision = -1;
  unsigned char c = *f;
  for (bool done = false; !done;) {
    switch (c) {
      case '-': case '+': case ' ': case '#': case '!': case '0': case ',':
        break;
      case 'l':
        c = *++f;
        if (c == 'l') c = *++f;
        done = true;
        break;
      case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        while ((c = *++f) >= '0' && c <= '9') {
        }
        if (c != '.' && c != 'l') done = true;
        else --f;
        break;
      case '*':
        args.next_int();  // the width
        if ((c = f[1]) != '.' && c != 'l') {
          c = *++f;
          done = true;
        }
        break;
      case '.': {
        c = *++f;
        if (c == '*') {
          precision = static_cast<int>(args.next_int());
          if (precision < 0) precision = precision >= -INT_MAX ? -precision : -1;
          c = *++f;
        } else {
          unsigned px = 0;
          for (; c >= '0' && c <= '9'; c = *++f) px = px * 10 + (c - '0');
          precision = static_cast<int>(px & 0x7fffffff);
        }
        if (c == 'l') --f;
        else done = true;
        break;
      }
      default:
        done = true;
        break;
    }
    if (!done && (c = *++f) == 0) break;
  }
  return precision;
}

}  // namespace

long long printf_max_char_repeat(const unsigned char* fmt, int argc, sqlite3_value** argv) {
  Args args{argc, argv};
  long long most = 0;
  for (const unsigned char* f = fmt; *f; ++f) {
    if (*f != '%') continue;
    if (*++f == 0) break;
    int precision = read_spec(f, args);
    const unsigned char c = *f;
    if (c == '%' || c == 'n') continue;  // no argument in SQL printf
    static const char kConversions[] = "dsgzqQwcouxXfeEGipr";
    if (c == 0 || !std::char_traits<char>::find(kConversions, sizeof kConversions - 1, static_cast<char>(c)))
      break;  // an unknown conversion (or %T/%S, internal ones) ends SQLite's output
    if (c == 'c' && precision > most) most = precision;
    args.skip();
    if (*f == 0) break;
  }
  return most;
}

// ---------------------------------------------------------------- json_patch's cost

namespace {

// Upper bound on the object keys in a JSON text: closing quotes followed (after whitespace) by ':'.
long long key_count(const unsigned char* s, long long n) {
  long long keys = 0;
  for (long long i = 0; i < n; ++i) {
    if (s[i] != '"') continue;
    long long j = i + 1;
    while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) ++j;
    keys += j < n && s[j] == ':';
  }
  return keys;
}

}  // namespace

long long json_patch_cost(const unsigned char* a, long long na, const unsigned char* b, long long nb) {
  if (!a || !b) return 0;
  return key_count(a, na) * key_count(b, nb);
}

// ---------------------------------------------------------------- SQLite's own implementation

BuiltinHelper::~BuiltinHelper() {
  for (auto& kv : stmts_) sqlite3_finalize(kv.second);
  if (db_) sqlite3_close(db_);
}

// "SELECT fn(?1, json(?2), ...)": an argument that carries the JSON subtype (a json function's result,
// which json_set/json_array/... embed as JSON rather than as a string) goes through json(), which
// gives the same text back with the subtype a bound parameter cannot carry.
sqlite3_stmt* BuiltinHelper::statement(const char* fn, int argc, sqlite3_value** argv) {
  std::string key = std::string(fn) + "/";
  for (int i = 0; i < argc; ++i) key += sqlite3_value_subtype(argv[i]) == 'J' ? 'j' : '.';
  auto it = stmts_.find(key);
  if (it != stmts_.end()) return it->second;
  if (!db_) {
    if (sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, vfs_name()) !=
        SQLITE_OK) {
      sqlite3_close(db_);
      db_ = nullptr;
      return nullptr;
    }
  }
  std::string sql = std::string("SELECT ") + fn + "(";
  for (int i = 1; i <= argc; ++i) {
    const std::string param = "?" + std::to_string(i);
    sql += (i > 1 ? "," : "") + (key[key.size() - argc + i - 1] == 'j' ? "json(" + param + ")" : param);
  }
  sql += ")";
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return nullptr;
  stmts_[key] = st;
  return st;
}

void BuiltinHelper::call(sqlite3_context* ctx, const char* fn, int argc, sqlite3_value** argv) {
  sqlite3_stmt* st = statement(fn, argc, argv);
  if (!st) return sqlite3_result_error_nomem(ctx);
  // The caller's length limit, so that SQLite's function sees the bounds it would see there.
  const int limit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
  if (sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, -1) != limit) sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, limit);
  for (int i = 0; i < argc; ++i) sqlite3_bind_value(st, i + 1, argv[i]);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    sqlite3_value* v = sqlite3_column_value(st, 0);
    const unsigned subtype = sqlite3_value_subtype(v);
    sqlite3_result_value(ctx, v);
    if (subtype) sqlite3_result_subtype(ctx, subtype);  // the JSON subtype of a json function's result
  } else if (rc == SQLITE_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else if (rc == SQLITE_TOOBIG) {
    sqlite3_result_error_toobig(ctx);
  } else {
    sqlite3_result_error(ctx, sqlite3_errmsg(db_), -1);
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
}

namespace {

struct Checked {
  BuiltinHelper* helper;
  StatementDeadline* dl;
  const char* name;
};

// After the statement's deadline no checked call starts.
bool past_deadline(sqlite3_context* ctx, const Checked& c) {
  if (!(c.dl && c.dl->expired())) return false;
  sqlite3_result_error(ctx, "interrupted", -1);
  return true;
}

void printf_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const Checked& c = *static_cast<Checked*>(sqlite3_user_data(ctx));
  if (past_deadline(ctx, c)) return;
  if (argc < 1) return;
  const unsigned char* fmt = sqlite3_value_text(argv[0]);
  if (!fmt) return;
  // A '%c' repeated at least the length limit times passes it: SQLite's result is NULL.
  const long long limit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
  if (printf_max_char_repeat(fmt, argc - 1, argv + 1) >= limit) return;
  c.helper->call(ctx, c.name, argc, argv);
}

constexpr long long kMaxPatchPairs = 1LL << 25;

void json_patch_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const Checked& c = *static_cast<Checked*>(sqlite3_user_data(ctx));
  if (past_deadline(ctx, c)) return;
  const unsigned char* a = sqlite3_value_text(argv[0]);
  const long long na = sqlite3_value_bytes(argv[0]);
  const unsigned char* b = sqlite3_value_text(argv[1]);
  const long long nb = sqlite3_value_bytes(argv[1]);
  if (json_patch_cost(a, na, b, nb) > kMaxPatchPairs) {
    sqlite3_result_error(ctx, "json_patch: objects too large to merge (over 2^25 key comparisons)", -1);
    return;
  }
  c.helper->call(ctx, c.name, argc, argv);
}

// json_extract, json_remove (a path per argument) and json_insert/replace/set (path, value pairs) look
// every path up in turn, each in O(size of the JSON): 126 paths into a 16 MB array took 16 s in one
// call. One path is linear; more are refused when paths x bytes passes 2^26 (4 paths into 16 MiB, 64
// into 1 MiB; ~0.2 s of lookups).
constexpr long long kMaxPathBytes = 1LL << 26;

void json_paths_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const Checked& c = *static_cast<Checked*>(sqlite3_user_data(ctx));
  if (past_deadline(ctx, c)) return;
  const std::string_view n(c.name);
  const bool pairs = n == "json_insert" || n == "json_replace" || n == "json_set";
  const long long paths = pairs ? (argc - 1) / 2 : argc - 1;
  if (argc > 0 && json_paths_cost(paths, sqlite3_value_bytes(argv[0])) > kMaxPathBytes) {
    sqlite3_result_error(ctx, (std::string(c.name) + ": too many paths for a JSON value this large (paths x bytes over 2^26)").c_str(), -1);
    return;
  }
  c.helper->call(ctx, c.name, argc, argv);
}

}  // namespace

long long json_paths_cost(long long paths, long long json_bytes) { return paths > 1 ? paths * json_bytes : 0; }

void register_checked_functions(sqlite3* db, BuiltinHelper* helper, StatementDeadline* dl) {
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  struct Fn {
    const char* name;
    int args;
    void (*f)(sqlite3_context*, int, sqlite3_value**);
  };
  static const Fn fns[] = {{"printf", -1, printf_fn},          {"format", -1, printf_fn},
                           {"json_patch", 2, json_patch_fn},    {"json_extract", -1, json_paths_fn},
                           {"json_remove", -1, json_paths_fn},  {"json_insert", -1, json_paths_fn},
                           {"json_replace", -1, json_paths_fn}, {"json_set", -1, json_paths_fn}};
  for (const Fn& f : fns) {
    auto* data = new Checked{helper, dl, f.name};
    sqlite3_create_function_v2(db, f.name, f.args, flags, data, f.f, nullptr, nullptr,
                               [](void* p) { delete static_cast<Checked*>(p); });
  }
}

}  // namespace sqlgrade::sqlite_guard
