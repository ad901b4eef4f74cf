// See format.hpp.
#include "sqlgrade/runs/format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace sqlgrade::runs {

namespace {

// Below this a mean difference is floating-point noise (a sum of ±1/n that should cancel), not a value.
constexpr double kNoise = 1e-12;

bool rounds_to_zero(double v, int digits) { return std::fabs(v) < 0.5 * std::pow(10.0, -digits); }

// Decimals needed for two significant digits of a small non-zero value (at most 12).
int digits_for(double v, int digits) {
  if (v == 0 || !rounds_to_zero(v, digits)) return digits;
  const int lead = static_cast<int>(std::ceil(-std::log10(std::fabs(v))));  // first significant decimal
  return std::min(12, std::max(digits, lead + 1));
}

}  // namespace

std::string fixed_text(double v, int digits) {
  if (std::isnan(v)) return "nan";
  if (rounds_to_zero(v, digits)) v = 0;  // no "-0.0000"
  return fmt::format("{:.{}f}", v, digits);
}

std::string signed_text(double v, int digits) {
  if (std::isnan(v)) return "nan";
  if (rounds_to_zero(v, digits)) return fmt::format("{:.{}f}", 0.0, digits);
  return fmt::format("{:+.{}f}", v, digits);
}

std::string interval_text(double lo, double hi, int digits) {
  auto end = [digits](double v) { return std::fabs(v) < kNoise ? signed_text(0, digits) : fmt::format("{:+.{}f}", v, digits_for(v, digits)); };
  return "[" + end(lo) + ", " + end(hi) + "]";
}

std::string pvalue_text(double p) { return p < 0.0001 ? "<0.0001" : fmt::format("{:.4f}", p); }

bool excludes_zero(double lo, double hi) { return lo >= kNoise || hi <= -kNoise; }

double display_scale(const std::string& benchmark, const std::string& metric) {
  if (benchmark == "bird" && (metric == "ex" || metric == "soft_f1" || metric == "em_f1")) return 100;
  return 1;
}

}  // namespace sqlgrade::runs
