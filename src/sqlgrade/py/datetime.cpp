// Python's datetime values: construction checks, str() and repr() — see datetime.hpp.
#include "sqlgrade/py/datetime.hpp"

#include <fmt/format.h>

#include "sqlgrade/core/civil_days.hpp"

namespace sqlgrade::py {

namespace {

constexpr int64_t kUsPerSecond = 1'000'000;
constexpr int64_t kUsPerDay = 86'400 * kUsPerSecond;

bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int64_t days_in_month(int64_t y, int64_t m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

bool valid_date(int64_t y, int64_t m, int64_t d) {
  return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= days_in_month(y, m);
}

bool valid_time(int64_t h, int64_t mi, int64_t s, int64_t us) {
  return h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 && s <= 59 && us >= 0 && us <= 999'999;
}

// str() of a UTC offset as datetime prints it: +HH:MM, +HH:MM:SS when there are seconds.
std::string offset_text(int64_t off) {
  const char sign = off < 0 ? '-' : '+';
  const int64_t a = off < 0 ? -off : off;
  std::string t = fmt::format("{}{:02d}:{:02d}", sign, a / 3600, a / 60 % 60);
  if (a % 60) t += fmt::format(":{:02d}", a % 60);
  return t;
}

std::string clock_text(int64_t us_of_day) {
  const int64_t s = us_of_day / kUsPerSecond, us = us_of_day % kUsPerSecond;
  std::string t = fmt::format("{:02d}:{:02d}:{:02d}", s / 3600, s / 60 % 60, s % 60);
  if (us) t += fmt::format(".{:06d}", us);
  return t;
}

std::string date_text(int64_t days) {
  int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

// "2020, 1, 2, 3, 4" and the seconds/microseconds Python's repr adds only when not zero.
std::string clock_repr_args(int64_t us_of_day) {
  const int64_t s = us_of_day / kUsPerSecond, us = us_of_day % kUsPerSecond;
  std::string a = fmt::format("{}, {}", s / 3600, s / 60 % 60);
  if (us) a += fmt::format(", {}, {}", s % 60, us);
  else if (s % 60) a += fmt::format(", {}", s % 60);
  return a;
}

std::string tz_repr(int64_t off) {
  if (off == 0) return "datetime.timezone.utc";
  // timedelta's repr of the offset: negative offsets are days=-1, seconds=...
  int64_t days = off >= 0 ? 0 : -1;
  int64_t secs = off - days * 86'400;
  std::string td = days ? fmt::format("days=-1, seconds={}", secs) : fmt::format("seconds={}", secs);
  return "datetime.timezone(datetime.timedelta(" + td + "))";
}

}  // namespace

// Python's ordinal days (0001-01-01 = day 0 here) through core/civil_days.hpp's 1970-based ones.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  return civil::days_from_civil(y, m, d) + civil::kDaysFrom0001To1970;
}
void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  civil::civil_from_days(z - civil::kDaysFrom0001To1970, y, m, d);
}

std::optional<Value> make_date(int64_t y, int64_t m, int64_t d) {
  if (!valid_date(y, m, d)) return std::nullopt;
  const int64_t days = days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return Value::typed(Kind::Date, days, date_text(days));
}

std::optional<Value> make_datetime(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, int64_t s, int64_t us) {
  if (!valid_date(y, mo, d) || !valid_time(h, mi, s, us)) return std::nullopt;
  const int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const int64_t clock = ((h * 60 + mi) * 60 + s) * kUsPerSecond + us;
  return Value::typed(Kind::DateTime, days * kUsPerDay + clock, date_text(days) + " " + clock_text(clock));
}

std::optional<Value> make_datetime_tz(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, int64_t s, int64_t us,
                                      int64_t off) {
  if (off <= -86'400 || off >= 86'400) return std::nullopt;  // timezone() refuses |offset| >= 1 day
  auto local = make_datetime(y, mo, d, h, mi, s, us);
  if (!local) return std::nullopt;
  // == and hash() compare the UTC instants (the wall time minus the offset).
  return Value::typed(Kind::DateTimeTz, local->i - off * kUsPerSecond, local->s + offset_text(off), static_cast<double>(off));
}

std::optional<Value> make_time(int64_t h, int64_t mi, int64_t s, int64_t us) {
  if (!valid_time(h, mi, s, us)) return std::nullopt;
  const int64_t clock = ((h * 60 + mi) * 60 + s) * kUsPerSecond + us;
  return Value::typed(Kind::Time, clock, clock_text(clock));
}

std::optional<Value> make_time_tz(int64_t h, int64_t mi, int64_t s, int64_t us, int64_t off) {
  if (off <= -86'400 || off >= 86'400) return std::nullopt;
  auto local = make_time(h, mi, s, us);
  if (!local) return std::nullopt;
  return Value::typed(Kind::TimeTz, local->i - off * kUsPerSecond, local->s + offset_text(off), static_cast<double>(off));
}

std::optional<Value> make_timedelta(int64_t days, int64_t seconds, int64_t microseconds) {
  // Python normalises to 0 <= microseconds < 10^6, 0 <= seconds < 86400, |days| <= 999999999.
  __int128 total = static_cast<__int128>(days) * kUsPerDay + static_cast<__int128>(seconds) * kUsPerSecond + microseconds;
  const __int128 max_total = static_cast<__int128>(999'999'999) * kUsPerDay + kUsPerDay - 1;
  const __int128 min_total = static_cast<__int128>(-999'999'999) * kUsPerDay;
  if (total > max_total || total < min_total) return std::nullopt;
  const int64_t t = static_cast<int64_t>(total);
  int64_t d = t / kUsPerDay, rem = t % kUsPerDay;
  if (rem < 0) {
    rem += kUsPerDay;
    --d;
  }
  const int64_t secs = rem / kUsPerSecond, us = rem % kUsPerSecond;
  std::string s = fmt::format("{}:{:02d}:{:02d}", secs / 3600, secs / 60 % 60, secs % 60);
  if (d) s = fmt::format("{} day{}, ", d, d == 1 || d == -1 ? "" : "s") + s;
  if (us) s += fmt::format(".{:06d}", us);
  return Value::typed(Kind::Duration, t, s);
}

Value date_max() { return *make_date(9999, 12, 31); }
Value date_min() { return *make_date(1, 1, 1); }
Value datetime_max() { return *make_datetime(9999, 12, 31, 23, 59, 59, 999'999); }
Value datetime_min() { return *make_datetime(1, 1, 1, 0, 0, 0, 0); }

std::string datetime_repr(const Value& v) {
  auto split = [](int64_t us, int64_t& days, int64_t& clock) {
    days = us / kUsPerDay;
    clock = us % kUsPerDay;
    if (clock < 0) {
      clock += kUsPerDay;
      --days;
    }
  };
  int64_t y;
  unsigned m, d;
  switch (v.kind) {
    case Kind::Date:
      civil_from_days(v.i, y, m, d);
      return fmt::format("datetime.date({}, {}, {})", y, m, d);
    case Kind::DateTime:
    case Kind::DateTimeTz: {
      const int64_t off = v.kind == Kind::DateTimeTz ? static_cast<int64_t>(v.r) : 0;
      int64_t days, clock;
      split(v.i + off * kUsPerSecond, days, clock);
      civil_from_days(days, y, m, d);
      std::string out = fmt::format("datetime.datetime({}, {}, {}, {}", y, m, d, clock_repr_args(clock));
      if (v.kind == Kind::DateTimeTz) out += ", tzinfo=" + tz_repr(off);
      return out + ")";
    }
    case Kind::Time:
    case Kind::TimeTz: {
      const int64_t off = v.kind == Kind::TimeTz ? static_cast<int64_t>(v.r) : 0;
      int64_t days, clock;
      split(v.i + off * kUsPerSecond, days, clock);
      std::string out = "datetime.time(" + clock_repr_args(clock);
      if (v.kind == Kind::TimeTz) out += ", tzinfo=" + tz_repr(off);
      return out + ")";
    }
    case Kind::Duration: {
      int64_t days, rem;
      split(v.i, days, rem);
      const int64_t secs = rem / kUsPerSecond, us = rem % kUsPerSecond;
      std::string args;
      auto add = [&](const char* name, int64_t x) {
        if (x) args += (args.empty() ? "" : ", ") + fmt::format("{}={}", name, x);
      };
      add("days", days);
      add("seconds", secs);
      add("microseconds", us);
      return "datetime.timedelta(" + (args.empty() ? std::string("0") : args) + ")";
    }
    default: return v.s;
  }
}

}  // namespace sqlgrade::py
