// The table of numeric bounds and its one check. See bounds.hpp; docs/safety.md "Limits table".
#include "sqlgrade/core/bounds.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "sqlgrade/errors.hpp"

namespace sqlgrade::bounds {

namespace {

constexpr double kDay = 86400;
constexpr double kU64Max = 18446744073709551615.0;  // 2^64 - 1 rounds to 2^64 as a double

// name, min, max, min_open, max_open, integer, unit, note. Timeouts are (0, one day]: 0 and below
// switched the deadline off, and a huge value overflowed the clock (every query "timed out" at once).
const std::vector<Bound> kTable = {
    {"timeout", 0, kDay, true, false, false, "seconds", ""},
    {"jobs", 0, 1024, false, false, true, "threads", "0 = all cores"},
    {"max_concurrency", 0, 1024, false, false, true, "verifies", "0 = max(4, 2 x cores)"},
    {"max_queue", 0, 1e6, false, false, true, "verifies", ""},
    {"max_rows", 1, 1e9, false, false, true, "rows", ""},
    {"max_bytes", 1, 4294967296.0, false, false, true, "bytes", ""},
    {"max_chars", 1, 1e9, false, false, true, "characters", ""},
    {"max_batch", 1, 1e6, false, false, true, "rollouts", ""},
    {"result_mb", 0, 4096, true, false, false, "MiB", ""},
    {"cache_entries", 0, 1e7, false, false, true, "entries", "0 = no cache"},
    {"cache_mb", 0, 65536, false, false, false, "MiB", "0 = no cache"},
    {"body_mb", 0, 4096, true, false, false, "MiB", ""},
    {"buffered_mb", 0, 65536, true, false, false, "MiB", ""},
    {"max_connections", 1, 65536, false, false, true, "connections", ""},
    {"port", 0, 65535, false, false, true, "", "0 = any free port"},
    {"max_input_mb", 1, 4095, false, false, false, "MiB", ""},
    {"repeat", 1, 10000, false, false, true, "runs", ""},
    {"seed", 0, kU64Max, false, false, true, "", ""},
    {"count", 0, 1e9, false, false, true, "items", ""},
    {"example_rows", 0, 1e6, false, false, true, "rows", ""},
    {"query_id", 1, 1e6, false, false, true, "", ""},
    {"float_tolerance", 0, 1e6, false, false, false, "", ""},
    {"bootstrap", 0, 1e5, false, false, true, "resamples", "0 = no intervals"},
    {"confidence", 0, 1, true, true, false, "", ""},
    {"list", 0, 1e9, false, false, true, "instances", "0 = all"},
    {"shard_count", 1, 1e6, false, false, true, "shards", ""},
    {"llm_concurrency", 1, 256, false, false, true, "requests", ""},
    {"llm_timeout", 0, 3600, true, false, false, "seconds", ""},
    {"llm_retries", 0, 20, false, false, true, "retries", ""},
    {"llm_max_tokens", 0, 4096, false, false, true, "tokens", "0 = 8 for YES/NO, 12 for counts"},
    {"llm_max_failures", 0, 1e6, false, false, true, "calls", "0 = never stop"},
    {"retries", 0, 1000, false, false, true, "retries", ""},
    {"connect_retries", 0, 100, false, false, true, "retries", ""},
    {"verify_budget", 0, kDay, true, false, false, "seconds", ""},
    {"verify_candidates", 1, 1e7, false, false, true, "databases", ""},
    // A reward-shaping score (the /verify `shaping` fields, the Python shaping options).
    {"score", -1e6, 1e6, false, false, false, "", ""},
};

// A number as Python's repr() shows it (the Python package formats its messages the same way):
// whole numbers below 1e16 without a fraction ("86400", "-1", "0"), others the shortest text that
// reads back ("0.5", "1e+300"), and "nan", "inf", "-inf".
std::string number_text(double v) {
  if (v == kU64Max) return "18446744073709551615";
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char c[40];
  if (std::floor(v) == v && std::fabs(v) < 1e16) {
    std::snprintf(c, sizeof c, "%.0f", v == 0 ? 0.0 : v);
    return c;
  }
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(c, sizeof c, "%.*g", prec, v);
    if (std::strtod(c, nullptr) == v) break;
  }
  return c;
}

}  // namespace

const std::vector<Bound>& table() { return kTable; }

const Bound& bound(std::string_view name) {
  for (const Bound& b : kTable)
    if (b.name == name) return b;
  throw std::logic_error("no numeric bound named '" + std::string(name) + "'");
}

namespace {
std::string interval(const Bound& b) {
  return (b.min_open ? "(" : "[") + number_text(b.min) + ", " + number_text(b.max) + (b.max_open ? ")" : "]");
}
std::string note_text(const Bound& b) { return b.note.empty() ? std::string() : " (" + std::string(b.note) + ")"; }
}  // namespace

std::string range_text(const Bound& b) {
  return interval(b) + (b.unit.empty() ? "" : " " + std::string(b.unit)) + note_text(b);
}

std::string describe(const Bound& b) {
  std::string s = b.integer ? "an integer" : "a number";
  if (!b.unit.empty() && !b.integer) s += " of " + std::string(b.unit);
  s += " in " + interval(b);
  if (!b.unit.empty() && b.integer) s += " " + std::string(b.unit);
  return s + note_text(b);
}

std::optional<std::string> violation(const Bound& b, double v) {
  const bool ok = std::isfinite(v) && (b.min_open ? v > b.min : v >= b.min) && (b.max_open ? v < b.max : v <= b.max) &&
                  (!b.integer || std::floor(v) == v);
  if (ok) return std::nullopt;
  return "must be " + describe(b) + "; got " + number_text(v);
}

std::optional<std::string> violation_of_text(const Bound& b, std::string_view text) {
  const std::string t(text);
  char* end = nullptr;
  errno = 0;
  const double v = t.empty() ? NAN : std::strtod(t.c_str(), &end);
  const bool number = !t.empty() && end == t.c_str() + t.size() && errno != ERANGE;
  if (number && !violation(b, v)) return std::nullopt;
  // As the user wrote it ("1e999" overflows to inf, "12abc" is no number at all).
  return "must be " + describe(b) + "; got " + (t.size() > 40 ? t.substr(0, 40) + "..." : t.empty() ? "''" : t);
}

double check(std::string_view name, double v, std::string_view label) {
  if (auto m = violation(bound(name), v)) throw InputError(std::string(label), *m);
  return v;
}

}  // namespace sqlgrade::bounds
