// Deadline-aware LIKE/GLOB, instr, replace and trim/ltrim/rtrim (see sqlite_guarded.hpp). Each one
// follows the SQLite 3.40 function it replaces step by step for everything that decides the result —
// argument conversions, NULL and error rules, limits, the UTF-8 reader — and differs only in how it
// searches: LIKE/GLOB match without recursion and stop at the deadline, instr/replace use a
// linear-time substring search, the trims look characters up by their first or last byte.
#include "sqlgrade/engine/sqlite_builtins.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace sqlgrade::sqlite_guard {

namespace {

using u8 = unsigned char;
using u32 = uint32_t;

// Counts units of work and looks at the clock every 2^16 of them.
class Budget {
 public:
  explicit Budget(Deadline* dl) : dl_(dl) {}
  bool spend(size_t units) {
    left_ -= static_cast<long long>(units);
    if (left_ > 0) return false;
    left_ = kEvery;
    return dl_ && dl_->expired();
  }

 private:
  static constexpr long long kEvery = 1 << 16;
  Deadline* dl_;
  long long left_ = kEvery;
};

void interrupted(sqlite3_context* ctx) { sqlite3_result_error(ctx, "interrupted", -1); }

bool is_continuation(u8 b) { return (b & 0xC0) == 0x80; }

// Value bits of a UTF-8 lead byte >= 0xC0 (SQLite's sqlite3Utf8Trans1 table).
u32 lead_bits(u32 b) {
  if (b < 0xE0) return b & 0x1F;
  if (b < 0xF0) return b & 0x0F;
  if (b < 0xF8) return b & 0x07;
  if (b < 0xFC) return b & 0x03;
  if (b < 0xFE) return b & 0x01;
  return 0;
}

// SQLite's UTF-8 reader (sqlite3Utf8Read): a lead byte >= 0xC0 takes every continuation byte after it;
// an overlong form, a surrogate or U+FFFE/U+FFFF reads as U+FFFD; any other byte reads as itself.
// `z` must not point at the terminating NUL.
u32 read_char(const u8*& z) {
  u32 c = *z++;
  if (c >= 0xC0) {
    c = lead_bits(c);
    while (is_continuation(*z)) c = (c << 6) + (0x3F & *z++);
    if (c < 0x80 || (c & 0xFFFFF800) == 0xD800 || (c & 0xFFFFFFFE) == 0xFFFE) c = 0xFFFD;
  }
  return c;
}

// SQLITE_SKIP_UTF8: one character forward.
void skip_char(const u8*& z) {
  if (*z++ >= 0xC0)
    while (is_continuation(*z)) ++z;
}

u32 ascii_lower(u32 c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

// ---------------------------------------------------------------- LIKE and GLOB

struct MatchRules {
  u32 all, one;   // '%' '_' or '*' '?'; 0 when the ESCAPE character took its place
  u32 escape;     // LIKE's ESCAPE character (0: none)
  bool glob;      // GLOB: [...] sets, case-sensitive
};

enum class Tok : u8 { Star, One, Lit, Set };
struct Token {
  Tok kind;
  u32 c;  // Lit: the character; Set: index into Pattern::sets
};
struct CharSet {
  bool invert = false;
  std::vector<std::pair<u32, u32>> ranges;  // single characters are [c, c]
  bool has(u32 c) const {
    bool seen = false;
    for (auto& r : ranges) seen = seen || (c >= r.first && c <= r.second);
    return seen != invert;
  }
};
// A pattern as a token list, read the way SQLite's patternCompare reads it. `never`: the pattern can
// match nothing (an ESCAPE at its end, an unterminated [ set).
struct Pattern {
  std::vector<Token> toks;
  std::vector<CharSet> sets;
  bool never = false;
};

Pattern compile(const u8* p, const MatchRules& r) {
  Pattern out;
  auto push = [&](Tok k, u32 c) {
    if (k == Tok::Star && !out.toks.empty() && out.toks.back().kind == Tok::Star) return;
    out.toks.push_back({k, c});
  };
  while (*p) {
    u32 c = read_char(p);
    if (c == r.all) {
      push(Tok::Star, 0);
    } else if (r.glob && c == '[') {
      // [...]: '^' first inverts, a ']' right after '[' or '^' is a member, "a-z" a range unless the
      // '-' comes first or last; unterminated sets match nothing.
      CharSet s;
      u32 c2 = *p ? read_char(p) : 0;
      if (c2 == '^') {
        s.invert = true;
        c2 = *p ? read_char(p) : 0;
      }
      if (c2 == ']') {
        s.ranges.push_back({']', ']'});
        c2 = *p ? read_char(p) : 0;
      }
      u32 prior = 0;
      while (c2 && c2 != ']') {
        if (c2 == '-' && *p != ']' && *p != 0 && prior > 0) {
          c2 = read_char(p);
          s.ranges.push_back({prior, c2});
          prior = 0;
        } else {
          s.ranges.push_back({c2, c2});
          prior = c2;
        }
        c2 = *p ? read_char(p) : 0;
      }
      if (c2 == 0) {
        out.never = true;
        return out;
      }
      out.sets.push_back(std::move(s));
      push(Tok::Set, static_cast<u32>(out.sets.size() - 1));
    } else if (!r.glob && r.escape != 0 && c == r.escape) {
      if (*p == 0) {
        out.never = true;
        return out;
      }
      push(Tok::Lit, read_char(p));
    } else if (c == r.one) {
      push(Tok::One, 0);
    } else {
      push(Tok::Lit, c);
    }
  }
  // A run of wildcards in any order ("%_%_") is the same as its one-character wildcards first and one
  // '%' after them ("__%"): matched that way the '_'s are consumed once instead of at every position
  // the '%' tries (SQLite gets the same effect by consuming them as it skips the '%').
  std::vector<Token> norm;
  for (size_t i = 0; i < out.toks.size();) {
    if (out.toks[i].kind != Tok::Star && out.toks[i].kind != Tok::One) {
      norm.push_back(out.toks[i++]);
      continue;
    }
    bool star = false;
    for (; i < out.toks.size() && (out.toks[i].kind == Tok::Star || out.toks[i].kind == Tok::One); ++i)
      if (out.toks[i].kind == Tok::Star) star = true;
      else norm.push_back(out.toks[i]);
    if (star) norm.push_back({Tok::Star, 0});
  }
  out.toks = std::move(norm);
  return out;
}

enum class Outcome { Match, NoMatch, Interrupted };

// Wildcard matching without recursion: on a mismatch the most recent '%' / '*' takes one more
// character and matching resumes after it (every other token consumes exactly one character, so
// earlier wildcards never need to be revisited). Same answers as patternCompare; O(n·m) at worst, with
// a deadline check every 2^16 steps.
Outcome match(const Pattern& pat, const u8* s, bool nocase, Budget& budget) {
  if (pat.never) return Outcome::NoMatch;
  const std::vector<Token>& t = pat.toks;
  const size_t m = t.size(), none = SIZE_MAX;
  size_t ti = 0, star = none;
  const u8* sp = s;
  const u8* star_sp = nullptr;
  // After a wildcard followed by an ASCII literal, only the positions holding that byte (either case
  // for LIKE) can continue the match: jump to the next one (SQLite scans with strcspn the same way).
  // 1: found (or not applicable), 0: none left, -1: the deadline passed.
  auto next_candidate = [&](const u8*& p) {
    const Token& k = t[star + 1];
    if (k.kind != Tok::Lit || k.c >= 0x80) return 1;
    char stop[3] = {static_cast<char>(k.c), 0, 0};
    if (nocase && ascii_lower(k.c) != k.c) stop[1] = static_cast<char>(ascii_lower(k.c));
    if (nocase && k.c >= 'a' && k.c <= 'z') stop[1] = static_cast<char>(k.c - 32);
    size_t skip = std::strcspn(reinterpret_cast<const char*>(p), stop);
    p += skip;
    if (budget.spend(skip / 16)) return -1;
    return *p != 0 ? 1 : 0;
  };
  for (;;) {
    if (budget.spend(1)) return Outcome::Interrupted;
    if (ti < m && t[ti].kind == Tok::Star) {
      star = ti++;
      if (ti == m) return Outcome::Match;  // a trailing wildcard takes the rest
      star_sp = sp;
      if (int f = next_candidate(star_sp); f <= 0) return f < 0 ? Outcome::Interrupted : Outcome::NoMatch;
      sp = star_sp;
      continue;
    }
    if (ti == m) {
      if (*sp == 0) return Outcome::Match;
    } else if (*sp == 0) {
      return Outcome::NoMatch;  // a token needs a character: a later start cannot help
    } else {
      const u8* next = sp;
      u32 c = read_char(next);
      const Token& k = t[ti];
      bool ok = k.kind == Tok::One ||
                (k.kind == Tok::Lit && (k.c == c || (nocase && k.c < 0x80 && c < 0x80 && ascii_lower(k.c) == ascii_lower(c)))) ||
                (k.kind == Tok::Set && pat.sets[k.c].has(c));
      if (ok) {
        ++ti;
        sp = next;
        continue;
      }
    }
    if (star == none || *star_sp == 0) return Outcome::NoMatch;
    skip_char(star_sp);
    if (int f = next_candidate(star_sp); f <= 0) return f < 0 ? Outcome::Interrupted : Outcome::NoMatch;
    sp = star_sp;
    ti = star + 1;
  }
}

bool like_never_matches_blobs() {
  static const bool v = sqlite3_compileoption_used("LIKE_DOESNT_MATCH_BLOBS") != 0;
  return v;
}

// The last pattern compiled on this thread (a LIKE over many rows has one constant pattern; a
// connection is used by one thread at a time).
struct PatternCache {
  std::string text;
  u32 all = 0, one = 0, escape = 0;
  bool glob = false, valid = false;
  Pattern pat;
};

const Pattern& compiled(const u8* p, size_t n, const MatchRules& r) {
  thread_local PatternCache cache;
  if (!(cache.valid && cache.glob == r.glob && cache.all == r.all && cache.one == r.one && cache.escape == r.escape &&
        cache.text.size() == n && std::memcmp(cache.text.data(), p, n) == 0)) {
    cache.pat = compile(p, r);
    cache.text.assign(reinterpret_cast<const char*>(p), n);
    cache.all = r.all, cache.one = r.one, cache.escape = r.escape, cache.glob = r.glob, cache.valid = true;
  }
  return cache.pat;
}

// likeFunc: like(pattern, string[, escape]) and glob(pattern, string).
void like_common(sqlite3_context* ctx, int argc, sqlite3_value** argv, bool glob) {
  Deadline* dl = static_cast<Deadline*>(sqlite3_user_data(ctx));
  sqlite3* db = sqlite3_context_db_handle(ctx);
  if (like_never_matches_blobs() &&
      (sqlite3_value_type(argv[0]) == SQLITE_BLOB || sqlite3_value_type(argv[1]) == SQLITE_BLOB)) {
    sqlite3_result_int(ctx, 0);
    return;
  }
  if (sqlite3_value_bytes(argv[0]) > sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, -1)) {
    sqlite3_result_error(ctx, "LIKE or GLOB pattern too complex", -1);
    return;
  }
  MatchRules r = glob ? MatchRules{'*', '?', 0, true} : MatchRules{'%', '_', 0, false};
  if (argc == 3) {
    const u8* e = sqlite3_value_text(argv[2]);
    if (!e) return;
    size_t chars = 0;
    for (const u8* z = e; *z; skip_char(z)) ++chars;
    if (chars != 1) {
      sqlite3_result_error(ctx, "ESCAPE expression must be a single character", -1);
      return;
    }
    r.escape = read_char(e);
    if (r.escape == r.all) r.all = 0;
    if (r.escape == r.one) r.one = 0;
  }
  const u8* pattern = sqlite3_value_text(argv[0]);
  const u8* str = sqlite3_value_text(argv[1]);
  if (!pattern || !str) return;
  Budget budget(dl);
  // The cache compares all the pattern's bytes (what follows a NUL cannot change the compiled form).
  const size_t n = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
  Outcome o = match(compiled(pattern, n, r), str, !glob, budget);
  if (o == Outcome::Interrupted) return interrupted(ctx);
  sqlite3_result_int(ctx, o == Outcome::Match);
}

void like_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { like_common(ctx, argc, argv, false); }
void glob_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { like_common(ctx, argc, argv, true); }

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
    Budget budget(static_cast<Deadline*>(sqlite3_user_data(ctx)));
    if (!trim_indexed(set, in, n, flags, budget)) return interrupted(ctx);
  }
  sqlite3_result_text64(ctx, reinterpret_cast<const char*>(in), n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

void trim_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { trim_common(ctx, argc, argv, 3); }
void ltrim_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { trim_common(ctx, argc, argv, 1); }
void rtrim_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { trim_common(ctx, argc, argv, 2); }

}  // namespace

void register_guarded_functions(sqlite3* db, Deadline* dl) {
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
