// Deadline-aware LIKE and GLOB (see sqlite_builtins.hpp): SQLite 3.40's likeFunc for everything that
// decides the result — blob rule, pattern length limit, ESCAPE, NOCASE folding — with a pattern compiled
// once per thread and matched without recursion, checking the deadline while it works.
#include "sqlgrade/engine/sqlite_like.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "sqlgrade/engine/sqlite_builtins_common.hpp"

namespace sqlgrade::sqlite_guard {

namespace {

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
  StatementDeadline* dl = static_cast<StatementDeadline*>(sqlite3_user_data(ctx));
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

}  // namespace

void like_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { like_common(ctx, argc, argv, false); }
void glob_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) { like_common(ctx, argc, argv, true); }

}  // namespace sqlgrade::sqlite_guard
