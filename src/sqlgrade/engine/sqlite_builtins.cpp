// Deadline-aware instr, replace and trim/ltrim/rtrim, and the registration of every guarded built-in
// (LIKE/GLOB are sqlite_like.cpp; see sqlite_builtins.hpp). Each one follows the SQLite 3.40 function it
// replaces step by step for everything that decides the result — argument conversions, NULL and error
// rules, limits, the UTF-8 reader — and differs only in how it searches: instr/replace use a linear-time
// substring search, the trims look characters up by their first or last byte.
#include "sqlgrade/engine/sqlite_builtins.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sqlgrade/engine/sqlite_builtins_common.hpp"
#include "sqlgrade/engine/sqlite_like.hpp"

namespace sqlgrade::sqlite_guard {

namespace {

// ---------------------------------------------------------------- instr and replace

// Raw bytes of a value for a search: BLOBs as they are, anything else as text (what sqlite3_value_text
// gives; for a BLOB that is the same bytes, but reading it as a blob leaves the argument untouched).
const u8* bytes_of(sqlite3_value* v) {
  if (sqlite3_value_type(v) == SQLITE_BLOB) return static_cast<const u8*>(sqlite3_value_blob(v));
  return sqlite3_value_text(v);
}

// instrFunc: 1 + the number of characters (bytes when both are BLOBs) before the first occurrence of
// the needle, 0 when there is none, 1 for an empty needle, NULL when either is NULL.
void instr_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  int th = sqlite3_value_type(argv[0]), tn = sqlite3_value_type(argv[1]);
  if (th == SQLITE_NULL || tn == SQLITE_NULL) return;
  size_t nh = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
  size_t nn = static_cast<size_t>(sqlite3_value_bytes(argv[1]));
  long long n = 1;
  if (nn > 0) {
    const bool text = !(th == SQLITE_BLOB && tn == SQLITE_BLOB);
    const u8* h = bytes_of(argv[0]);
    const u8* needle = bytes_of(argv[1]);
    nh = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
    nn = static_cast<size_t>(sqlite3_value_bytes(argv[1]));
    if (!needle || (nh && !h)) return sqlite3_result_error_nomem(ctx);
    // SQLite tries the needle at byte 0 and then only where a character starts (for text: at bytes
    // that are not UTF-8 continuation bytes). A needle that begins with a continuation byte can
    // therefore only be found at byte 0.
    const u8* hit = nullptr;
    if (nn <= nh) {
      if (text && is_continuation(needle[0])) {
        if (std::memcmp(h, needle, nn) == 0) hit = h;
      } else {
        hit = static_cast<const u8*>(::memmem(h, nh, needle, nn));
      }
    }
    if (!hit) {
      n = 0;
    } else if (!text) {
      n = 1 + (hit - h);
    } else {
      for (const u8* z = h + 1; z <= hit; ++z) n += !is_continuation(*z);
    }
  }
  sqlite3_result_int64(ctx, n);
}

// The leftmost occurrence of `needle` at or after `from` in `h` (or `nh`). memmem is linear, but a call
// may cost its whole range (AddressSanitizer checks it all), so the ranges start small and double:
// the work stays proportional to the distance covered even with millions of matches.
size_t find_from(const u8* h, size_t nh, const u8* needle, size_t nn, size_t from) {
  size_t w = std::max<size_t>(nn, 64);
  while (from + nn <= nh) {
    size_t len = std::min(nh - from, w + nn - 1);  // every start in [from, from + w) fits inside
    const void* hit = nn == 1 ? std::memchr(h + from, needle[0], len) : ::memmem(h + from, len, needle, nn);
    if (hit) return static_cast<size_t>(static_cast<const u8*>(hit) - h);
    if (from + len >= nh) break;
    from += w;
    w *= 2;
  }
  return nh;
}

// replaceFunc: every non-overlapping occurrence of the pattern, left to right, replaced; an empty
// pattern (or one whose first byte is NUL) returns the first argument unchanged, type and all.
void replace_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3* db = sqlite3_context_db_handle(ctx);
  const u8* s = sqlite3_value_text(argv[0]);
  if (!s) return;
  const size_t ns = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
  const u8* p = sqlite3_value_text(argv[1]);
  if (!p) return;
  if (p[0] == 0) return sqlite3_result_value(ctx, argv[0]);
  const size_t np = static_cast<size_t>(sqlite3_value_bytes(argv[1]));
  const u8* r = sqlite3_value_text(argv[2]);
  if (!r) return;
  const size_t nr = static_cast<size_t>(sqlite3_value_bytes(argv[2]));
  const long long limit = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
  if (static_cast<long long>(ns) + 1 > limit) return sqlite3_result_error_toobig(ctx);
  auto next_hit = [&](size_t from) { return find_from(s, ns, p, np, from); };
  size_t out_len = ns;
  if (nr > np) {
    for (size_t i = next_hit(0); i < ns; i = next_hit(i + np)) {
      out_len += nr - np;
      if (static_cast<long long>(out_len) > limit) return sqlite3_result_error_toobig(ctx);
    }
  }
  u8* out = static_cast<u8*>(sqlite3_malloc64(out_len + 1));
  if (!out) return sqlite3_result_error_nomem(ctx);
  size_t j = 0, from = 0;
  for (size_t i = next_hit(0); i < ns; i = next_hit(from)) {
    std::memcpy(out + j, s + from, i - from);
    j += i - from;
    std::memcpy(out + j, r, nr);
    j += nr;
    from = i + np;
  }
  std::memcpy(out + j, s + from, ns - from);
  j += ns - from;
  out[j] = 0;
  sqlite3_result_text64(ctx, reinterpret_cast<char*>(out), j, sqlite3_free, SQLITE_UTF8);
}

// ---------------------------------------------------------------- trim, ltrim, rtrim

// One character of trim's set (its UTF-8 bytes).
struct TrimChr {
  const u8* p;
  size_t len;
};

// trim with a large set (over 16 characters): characters by first byte (left) and by last byte
// (right), in set order. A one-byte character always matches where it fits, so nothing after it in its
// list can ever be the first match. False when the deadline's budget runs out.
bool trim_indexed(const std::vector<TrimChr>& set, const u8*& in, size_t& n, int flags, Budget& budget) {
  std::vector<std::vector<uint32_t>> by_first(256), by_last(256);
  for (uint32_t i = 0; i < set.size(); ++i) {
    auto& f = by_first[set[i].p[0]];
    if (f.empty() || set[f.back()].len != 1) f.push_back(i);
    auto& l = by_last[set[i].p[set[i].len - 1]];
    if (l.empty() || set[l.back()].len != 1) l.push_back(i);
  }
  if (flags & 1) {
    while (n > 0) {
      size_t len = 0;
      const auto& cands = by_first[in[0]];
      for (uint32_t i : cands)
        if (set[i].len <= n && std::memcmp(in, set[i].p, set[i].len) == 0) {
          len = set[i].len;
          break;
        }
      if (budget.spend(cands.size() + 1)) return false;
      if (len == 0) break;
      in += len;
      n -= len;
    }
  }
  if (flags & 2) {
    while (n > 0) {
      size_t len = 0;
      const auto& cands = by_last[in[n - 1]];
      for (uint32_t i : cands)
        if (set[i].len <= n && std::memcmp(in + n - set[i].len, set[i].p, set[i].len) == 0) {
          len = set[i].len;
          break;
        }
      if (budget.spend(cands.size() + 1)) return false;
      if (len == 0) break;
      n -= len;
    }
  }
  return true;
}

// trimFunc: strips, from the left (1), right (2) or both (3), every leading/trailing character that is
// one of the set's characters (default: a space), trying the set's characters in order at each step.
void trim_common(sqlite3_context* ctx, int argc, sqlite3_value** argv, int flags) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  const u8* in = sqlite3_value_text(argv[0]);
  if (!in) return;
  size_t n = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
  std::vector<TrimChr> set;
  if (argc == 1) {
    // The default set is one space: strip it directly.
    if (flags & 1)
      while (n > 0 && in[0] == ' ') ++in, --n;
    if (flags & 2)
      while (n > 0 && in[n - 1] == ' ') --n;
  } else {
    const u8* cs = sqlite3_value_text(argv[1]);
    if (!cs) return;
    for (const u8* z = cs; *z;) {
      const u8* b = z;
      skip_char(z);
      set.push_back({b, static_cast<size_t>(z - b)});
    }
    // SQLite allocates a pointer and a length per character: beyond the length limit, "too big".
    sqlite3* db = sqlite3_context_db_handle(ctx);
    if (!set.empty() && static_cast<long long>(set.size() * (sizeof(char*) + sizeof(unsigned))) >
                            sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1))
      return sqlite3_result_error_toobig(ctx);
  }
  if (!set.empty() && set.size() <= 16) {
    // A small set: try its characters in order, as SQLite does (at most 16 comparisons per step).
    auto first_match = [&](bool left) -> size_t {
      for (const TrimChr& c : set)
        if (c.len <= n && std::memcmp(left ? in : in + n - c.len, c.p, c.len) == 0) return c.len;
      return 0;
    };
    if (flags & 1)
      for (size_t len; n > 0 && (len = first_match(true)) > 0;) in += len, n -= len;
    if (flags & 2)
      for (size_t len; n > 0 && (len = first_match(false)) > 0;) n -= len;
  } else if (!set.empty()) {
    Budget budget(static_cast<StatementDeadline*>(sqlite3_user_data(ctx)));
    if (!trim_indexed(set, in, n, flags, budget)) return interrupted(ctx);
  }
  sqlite3_result_text64(ctx, reinterpret_cast<const char*>(in), n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

void trim_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { trim_common(ctx, argc, argv, 3); }
void ltrim_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { trim_common(ctx, argc, argv, 1); }
void rtrim_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { trim_common(ctx, argc, argv, 2); }

}  // namespace

void register_guarded_functions(sqlite3* db, StatementDeadline* dl) {
  // The built-ins are deterministic and innocuous (usable in views and schema expressions).
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  struct Fn {
    const char* name;
    int args;
    void (*f)(sqlite3_context*, int, sqlite3_value**);
  };
  static const Fn fns[] = {{"like", 2, like_fn},   {"like", 3, like_fn},     {"glob", 2, glob_fn},
                           {"instr", 2, instr_fn}, {"replace", 3, replace_fn}, {"trim", 1, trim_fn},
                           {"trim", 2, trim_fn},   {"ltrim", 1, ltrim_fn},   {"ltrim", 2, ltrim_fn},
                           {"rtrim", 1, rtrim_fn}, {"rtrim", 2, rtrim_fn}};
  for (const Fn& f : fns) sqlite3_create_function_v2(db, f.name, f.args, flags, dl, f.f, nullptr, nullptr, nullptr);
}

}  // namespace sqlgrade::sqlite_guard
