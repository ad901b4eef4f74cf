#pragma once
// Python's datetime values as psycopg2 and PyMySQL return them (date, datetime with and without
// tzinfo, time with and without tzinfo, timedelta) — the cells of core/value.hpp's kinds Date,
// DateTime, DateTimeTz, Time, TimeTz and Duration. A value keeps a number that decides == and hash()
// as Python does (Value::i, see value.hpp) and its str() (Value::s); repr() is rebuilt from the number.
// The builders return nullopt where Python's constructors raise ValueError/OverflowError (year outside
// 1..9999, day 31 of a 30-day month, a timedelta beyond 999999999 days): the driver raises there too.
#include <cstdint>
#include <optional>
#include <string>

#include "sqlgrade/core/value.hpp"

namespace sqlgrade::py {

// Days from 0001-01-01 (proleptic Gregorian; date.toordinal() - 1), and back.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);
void civil_from_days(int64_t days, int64_t& y, unsigned& m, unsigned& d);

std::optional<Value> make_date(int64_t y, int64_t m, int64_t d);
std::optional<Value> make_datetime(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, int64_t s, int64_t us);
// An aware datetime: the wall time and its UTC offset in seconds (datetime.timezone(timedelta(...))).
std::optional<Value> make_datetime_tz(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, int64_t s, int64_t us,
                                      int64_t offset_s);
std::optional<Value> make_time(int64_t h, int64_t mi, int64_t s, int64_t us);
std::optional<Value> make_time_tz(int64_t h, int64_t mi, int64_t s, int64_t us, int64_t offset_s);
// timedelta(days, seconds, microseconds), normalised as Python does.
std::optional<Value> make_timedelta(int64_t days, int64_t seconds, int64_t microseconds);
// date.max / date.min, datetime.max / datetime.min (psycopg2's 'infinity' / '-infinity').
Value date_max();
Value date_min();
Value datetime_max();
Value datetime_min();

// repr() of a Date/DateTime/DateTimeTz/Time/TimeTz/Duration value: datetime.date(2020, 1, 2), …
std::string datetime_repr(const Value& v);

}  // namespace sqlgrade::py
