// core/clock.hpp (issue 30, item 9): TIMESTAMP texts, their canonical form, the per-thread pin and its
// way into parallel_for's workers.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/errors.hpp"

using namespace sqlgrade;
namespace clk = sqlgrade::sql_clock;

TEST(SqlClock, ParsesDatesAndDateTimesAsUtcInstants) {
  std::string why;
  EXPECT_EQ(clk::parse("1970-01-01", &why), 0);
  EXPECT_EQ(clk::parse("1970-01-02T00:00:00Z", &why), 86'400'000);
  EXPECT_EQ(clk::parse("2024-02-29T12:34:56.789Z", &why), 1709210096789);
  EXPECT_EQ(clk::parse("2024-02-29 12:34:56.7", &why), 1709210096700);  // a space, one digit = .700
  EXPECT_EQ(clk::parse("2024-02-29T12:34", &why), 1709210040000);
  // An offset is the local time's: 14:34+02:00 is 12:34Z.
  EXPECT_EQ(clk::parse("2024-02-29T14:34:56.789+02:00", &why), clk::parse("2024-02-29T12:34:56.789Z", &why));
  EXPECT_EQ(clk::parse("2024-02-29T10:04:56.789-0230", &why), clk::parse("2024-02-29T12:34:56.789Z", &why));
  EXPECT_EQ(clk::parse("1969-12-31T23:59:59Z", &why), -1000);
  EXPECT_EQ(clk::parse("0001-01-01", &why), -62135596800000LL);
  EXPECT_EQ(clk::parse("9999-12-31T23:59:59.999Z", &why), 253402300799999LL);
}

TEST(SqlClock, RefusesWhatIsNotATimestampWithTheReason) {
  for (const char* bad : {"", "now", "2024-13-01", "2023-02-29", "2024-02-30", "24-01-01", "2024-1-1", "2024-01-01T25:00",
                          "2024-01-01T12:60", "2024-01-01T12:00:61", "2024-01-01T12:00:00.1234", "2024-01-01T12:00:00+24:00",
                          "2024-01-01T12:00:00 UTC", "2024-01-01x", "0000-01-01", "1700000000", "2024-01-01T12"}) {
    std::string why;
    EXPECT_FALSE(clk::parse(bad, &why)) << bad;
    EXPECT_NE(why.find("not a timestamp"), std::string::npos) << bad << ": " << why;
    EXPECT_NE(why.find("YYYY-MM-DD"), std::string::npos) << why;
  }
  std::string why;
  clk::parse("2024-01-01T12:00:00.1234", &why);
  EXPECT_NE(why.find("millisecond"), std::string::npos) << why;
  try {
    clk::parse_or_throw("yesterday", "--now");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--now: not a timestamp: yesterday", 0), 0u) << e.what();
  }
}

TEST(SqlClock, CanonicalFormRoundTrips) {
  EXPECT_EQ(clk::format(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(clk::format(1709210096789), "2024-02-29T12:34:56.789Z");
  EXPECT_EQ(clk::format(1709210096000), "2024-02-29T12:34:56Z");
  EXPECT_EQ(clk::format(-1000), "1969-12-31T23:59:59Z");
  EXPECT_EQ(clk::format(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(clk::canonical("2024-02-29 14:34:56.789+02:00", "now"), "2024-02-29T12:34:56.789Z");
  EXPECT_EQ(clk::canonical("2000-01-01", "now"), "2000-01-01T00:00:00Z");
  EXPECT_EQ(clk::canonical("", "now"), "");
  // Every day of four centuries (leap rules included) survives parse ∘ format.
  for (int64_t ms = clk::parse_or_throw("1900-01-01", "t"); ms < clk::parse_or_throw("2300-01-01", "t"); ms += 86'400'000 + 3'601'001)
    ASSERT_EQ(clk::parse_or_throw(clk::format(ms), "t"), ms) << clk::format(ms);
}

TEST(SqlClock, ScopePinsTheThreadAndRestores) {
  EXPECT_FALSE(clk::pinned());
  const int64_t real = clk::now();
  EXPECT_GT(real, clk::parse_or_throw("2024-01-01", "t"));  // the machine's clock
  {
    clk::ClockScope a("2001-02-03T04:05:06Z", "--now");
    EXPECT_EQ(clk::now(), clk::parse_or_throw("2001-02-03T04:05:06Z", "t"));
    {
      clk::ClockScope b(std::nullopt);  // unpinned inside
      EXPECT_FALSE(clk::pinned());
    }
    {
      clk::ClockScope keep("", "--now");  // "" leaves the pin as it is
      EXPECT_EQ(clk::now(), clk::parse_or_throw("2001-02-03T04:05:06Z", "t"));
    }
    // Another thread is not pinned by this one's scope.
    std::optional<int64_t> other;
    std::thread([&] { other = clk::pinned(); }).join();
    EXPECT_FALSE(other);
  }
  EXPECT_FALSE(clk::pinned());
  EXPECT_THROW(clk::ClockScope("2001-02-30", "--now"), InputError);
  EXPECT_FALSE(clk::pinned());
}

TEST(SqlClock, ParallelForWorkersSeeTheCallersPin) {
  const int64_t at = clk::parse_or_throw("2010-06-15T08:00:00Z", "t");
  std::vector<std::optional<int64_t>> seen(64);
  {
    clk::ClockScope pin(at);
    parallel_for(seen.size(), 4, [&](size_t i) { seen[i] = clk::pinned(); });
  }
  for (auto& s : seen) EXPECT_EQ(s, at);
  parallel_for(seen.size(), 4, [&](size_t i) { seen[i] = clk::pinned(); });
  for (auto& s : seen) EXPECT_FALSE(s);
}
