#pragma once
// The one table of numeric bounds (issue 19, finding 9). Every number a user gives sqlgrade — a CLI
// flag of any subcommand, a numeric field of a reward-server request, an argument of the Python
// package — is checked against its row here by one function, with one message. NaN and ±inf are
// refused everywhere; so are values that would switch a bound off (a timeout of 0, -1 or NaN used to
// disable the deadline) or make it meaningless (a timeout of 1e300 overflowed the deadline and every
// query timed out at once). docs/safety.md "Limits table (issue 19)" lists the rows.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::bounds {

struct Bound {
  std::string_view name;  // key of the row: "timeout", "jobs", ...
  double min = 0, max = 0;
  bool min_open = false;  // (min, ... instead of [min, ...
  bool max_open = false;  // ..., max) instead of ..., max]
  bool integer = false;   // whole numbers only
  std::string_view unit;  // shown after the range: "seconds", "MiB", "" (none)
  std::string_view note;  // what a special value means, e.g. "0 = all cores" ("" when none)
};

// Every row, in table order (the docs' table and the Python mirror follow it).
const std::vector<Bound>& table();
// The row named `name`; std::logic_error when there is none (a programming error, caught by the tests).
const Bound& bound(std::string_view name);

// "(0, 86400] seconds" / "[0, 1024] threads (0 = all cores)": the range, for help texts.
std::string range_text(const Bound& b);
// "a number of seconds in (0, 86400]" / "an integer in [1, 1024] (0 = all cores)": what the row
// accepts, for help texts and messages.
std::string describe(const Bound& b);
// The message for a value outside the row ("must be <describe>; got nan"), or nullopt when `v` is
// accepted.
std::optional<std::string> violation(const Bound& b, double v);
// The same for a value given as text (a CLI flag): the whole text must be one number (strtod);
// "nan", "inf", "1e999", "12abc" and "" are refused with the same message.
std::optional<std::string> violation_of_text(const Bound& b, std::string_view text);
// `v` when accepted; otherwise InputError(label, message) — label is the flag or field the user
// wrote ("--timeout", "timeout"), so the one line reads "--timeout: must be ...; got nan".
double check(std::string_view name, double v, std::string_view label);

}  // namespace sqlgrade::bounds
