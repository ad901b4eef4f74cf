#pragma once
// One rounding rule for the numbers `sqlgrade diff` prints and `sqlgrade report` shows (the report
// displays these strings, computed here, rather than rounding again in the browser: JavaScript's
// toFixed rounds ties away from zero, fmt to the nearest binary value, and 0.03125 came out as 0.0313 in
// the page and 0.0312 in the terminal). Values are correctly rounded (fmt, "{:.Nf}").
#include <string>
#include <vector>

namespace sqlgrade::runs {

// Fixed decimals; a value that rounds to zero prints without a sign ("0.0000", never "-0.0000").
std::string fixed_text(double v, int digits = 4);
// With a sign ("+0.0123", "-0.0123"); a value that rounds to zero prints as "0.0000".
std::string signed_text(double v, int digits = 4);
// A bootstrap interval "[lo, hi]": an endpoint that is not 0 but would round to 0 gets the decimals it
// needs for two significant digits ("+0.000031"), so an interval that excludes 0 never reads as
// touching it (it used to print "[+0.0000, +0.2969]", highlighted).
std::string interval_text(double lo, double hi, int digits = 4);
// "<0.0001" or the p-value with 4 decimals.
std::string pvalue_text(double p);
// Whether the interval excludes 0 (what the report highlights).
bool excludes_zero(double lo, double hi);

// The scale a benchmark's official table prints a metric on: BIRD's EX, Soft-F1 and EM+F1 are
// fractions in the records and percentages (0-100) in evaluation.py's table; everything else 1.
double display_scale(const std::string& benchmark, const std::string& metric);

}  // namespace sqlgrade::runs
