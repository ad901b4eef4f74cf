#pragma once
// Days of the proleptic Gregorian calendar (the civil-days algorithm: years counted from March so that
// the leap day ends a year), counted from 1970-01-01. SQL's pinned clock (core/clock.cpp) and Python's
// date/datetime values (py/datetime.cpp, which counts from 0001-01-01: kDaysFrom0001To1970 before) share it.
#include <cstdint>

namespace sqlgrade::civil {

inline constexpr int64_t kDaysFrom0001To1970 = 719162;

// Days from 1970-01-01 to y-m-d.
inline int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// The date `z` days after 1970-01-01.
inline void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0);
}

}  // namespace sqlgrade::civil
