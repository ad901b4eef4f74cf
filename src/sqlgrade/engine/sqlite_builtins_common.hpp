#pragma once
// What the deadline-aware SQLite built-ins (sqlite_builtins.cpp, sqlite_like.cpp) share: SQLite's UTF-8
// reader (sqlite3Utf8Read, SQLITE_SKIP_UTF8), ASCII case folding, the work budget that looks at the
// deadline, and the "interrupted" error.
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>

#include "sqlgrade/engine/sqlite_runtime.hpp"

namespace sqlgrade::sqlite_guard {

using u8 = unsigned char;
using u32 = uint32_t;

// Counts units of work and looks at the clock every 2^16 of them.
class Budget {
 public:
  explicit Budget(StatementDeadline* dl) : dl_(dl) {}
  bool spend(size_t units) {
    left_ -= static_cast<long long>(units);
    if (left_ > 0) return false;
    left_ = kEvery;
    return dl_ && dl_->expired();
  }

 private:
  static constexpr long long kEvery = 1 << 16;
  StatementDeadline* dl_;
  long long left_ = kEvery;
};

inline void interrupted(sqlite3_context* ctx) { sqlite3_result_error(ctx, "interrupted", -1); }

inline bool is_continuation(u8 b) { return (b & 0xC0) == 0x80; }

// Value bits of a UTF-8 lead byte >= 0xC0 (SQLite's sqlite3Utf8Trans1 table).
inline u32 lead_bits(u32 b) {
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
inline u32 read_char(const u8*& z) {
  u32 c = *z++;
  if (c >= 0xC0) {
    c = lead_bits(c);
    while (is_continuation(*z)) c = (c << 6) + (0x3F & *z++);
    if (c < 0x80 || (c & 0xFFFFF800) == 0xD800 || (c & 0xFFFFFFFE) == 0xFFFE) c = 0xFFFD;
  }
  return c;
}

// SQLITE_SKIP_UTF8: one character forward.
inline void skip_char(const u8*& z) {
  if (*z++ >= 0xC0)
    while (is_continuation(*z)) ++z;
}

inline u32 ascii_lower(u32 c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

}  // namespace sqlgrade::sqlite_guard
