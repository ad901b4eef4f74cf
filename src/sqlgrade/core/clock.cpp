// The clock SQL reads: TIMESTAMP texts and the per-thread pin (clock.hpp).
#include "sqlgrade/core/clock.hpp"

#include <cctype>
#include <chrono>
#include <cstdio>

#include "sqlgrade/core/civil_days.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade::sql_clock {

namespace {

thread_local std::optional<Millis> t_pinned;
thread_local uint64_t t_reads = 0;

constexpr Millis kDayMs = 86'400'000;

using civil::civil_from_days;  // core/civil_days.hpp
using civil::days_from_civil;

bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
unsigned days_in(int64_t y, unsigned m) {
  static const unsigned n[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : n[m - 1];
}

// A cursor over the text: fixed-width digit fields and single separators.
struct Reader {
  std::string_view s;
  size_t i = 0;
  bool digits(size_t n, int& out) {
    if (i + n > s.size()) return false;
    int v = 0;
    for (size_t k = 0; k < n; ++k) {
      const char c = s[i + k];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    out = v;
    i += n;
    return true;
  }
  bool eat(char c) {
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  bool done() const { return i == s.size(); }
  char peek() const { return i < s.size() ? s[i] : '\0'; }
};

constexpr const char* kExpected = "expected YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|+HH:MM|-HH:MM]";

// Reads "HH:MM[:SS[.fff]]" into milliseconds of the day; false with *why set on a bad field.
bool read_time(Reader& r, Millis& ms, std::string& why) {
  int hh = 0, mi = 0, ss = 0, frac = 0;
  if (!r.digits(2, hh) || !r.eat(':') || !r.digits(2, mi)) return false;
  if (r.eat(':')) {
    if (!r.digits(2, ss)) return false;
    if (r.eat('.')) {
      size_t n = 0;
      int v = 0;
      while (std::isdigit(static_cast<unsigned char>(r.peek()))) {
        if (++n > 3) return why = "more precise than a millisecond", false;
        v = v * 10 + (r.s[r.i++] - '0');
      }
      if (n == 0) return false;
      for (; n < 3; ++n) v *= 10;
      frac = v;
    }
  }
  if (hh > 23 || mi > 59 || ss > 59) return why = "hour, minute or second out of range", false;
  ms = ((hh * 60LL + mi) * 60 + ss) * 1000 + frac;
  return true;
}

// Reads "Z", "+HH:MM", "-HH:MM", "+HHMM" (or nothing: UTC) into an offset in milliseconds.
bool read_offset(Reader& r, Millis& off, std::string& why) {
  off = 0;
  if (r.done() || r.eat('Z') || r.eat('z')) return true;
  const char sign = r.peek();
  if (sign != '+' && sign != '-') return false;
  ++r.i;
  int oh = 0, om = 0;
  if (!r.digits(2, oh)) return false;
  r.eat(':');
  if (!r.digits(2, om)) return false;
  if (oh > 23 || om > 59) return why = "time zone offset out of range", false;
  off = (oh * 60LL + om) * 60'000 * (sign == '-' ? -1 : 1);
  return true;
}

}  // namespace

std::optional<Millis> parse(std::string_view text, std::string* error) {
  Reader r{text};
  std::string why;
  auto fail = [&]() -> std::optional<Millis> {
    if (error) *error = "not a timestamp: " + std::string(text.substr(0, 64)) + (why.empty() ? "" : " (" + why + ")") + "; " + kExpected;
    return std::nullopt;
  };
  int y = 0, m = 0, d = 0;
  if (!r.digits(4, y) || !r.eat('-') || !r.digits(2, m) || !r.eat('-') || !r.digits(2, d)) return fail();
  if (y < 1 || m < 1 || m > 12 || d < 1 || static_cast<unsigned>(d) > days_in(y, static_cast<unsigned>(m))) {
    why = "no such date";
    return fail();
  }
  Millis in_day = 0, off = 0;
  if (!r.done()) {
    if (!r.eat('T') && !r.eat('t') && !r.eat(' ')) return fail();
    if (!read_time(r, in_day, why) || !read_offset(r, off, why) || !r.done()) return fail();
  }
  return days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)) * kDayMs + in_day - off;
}

Millis parse_or_throw(std::string_view text, std::string_view label) {
  std::string why;
  auto ms = parse(text, &why);
  if (!ms) throw InputError("", std::string(label) + ": " + why);
  return *ms;
}

std::string format(Millis ms) {
  int64_t days = ms / kDayMs;
  Millis rest = ms % kDayMs;
  if (rest < 0) rest += kDayMs, --days;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  civil_from_days(days, y, m, d);
  const long long s = rest / 1000, milli = rest % 1000;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld", static_cast<long long>(y), m, d, s / 3600,
                s / 60 % 60, s % 60);
  std::string out = buf;
  if (milli) {
    std::snprintf(buf, sizeof buf, ".%03lld", milli);
    out += buf;
  }
  return out + "Z";
}

std::string canonical(std::string_view text, std::string_view label) {
  return text.empty() ? std::string() : format(parse_or_throw(text, label));
}

std::optional<Millis> pinned() { return t_pinned; }

Millis now() {
  if (t_pinned) return *t_pinned;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ClockScope::ClockScope(std::optional<Millis> at) : saved_(t_pinned) { t_pinned = at; }
ClockScope::ClockScope(std::string_view text, std::string_view label) : saved_(t_pinned) {
  if (!text.empty()) t_pinned = parse_or_throw(text, label);
}
ClockScope::~ClockScope() { t_pinned = saved_; }

uint64_t reads() { return t_reads; }
void note_read() { ++t_reads; }

}  // namespace sqlgrade::sql_clock
