#pragma once
// Paired statistics for comparing runs (docs/comparing-runs.md): McNemar's exact test, a paired
// percentile bootstrap of the mean difference, and agreement between two metrics of one run.
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace sqlgrade::runs {

inline constexpr uint64_t kDefaultSeed = 12345;
inline constexpr size_t kDefaultResamples = 1000;

// McNemar's exact (conditional) test on the discordant pairs of two binary score vectors:
// b = instances A got right and B wrong, c = A wrong and B right. Under H0 b ~ Binomial(b + c, 1/2);
// the two-sided p-value is min(1, 2 * P(X <= min(b, c))) (Boost.Math's binomial CDF). b + c = 0
// gives p = 1.
struct McNemar {
  long b = 0, c = 0;
  double p = 1.0;
};
McNemar mcnemar_exact(long b, long c);
// a and b hold 0/1 values of the same instances in the same order.
McNemar mcnemar_exact(const std::vector<double>& a, const std::vector<double>& b);

// The random generator of the bootstrap: std::mt19937_64 (MT19937-64, whose 10000th output from
// the default seed the C++ standard fixes at 9981545732273789042) seeded with one 64-bit value;
// an index in [0, n) is x % n for the first output x below 2^64 - (2^64 mod n) (rejection, so
// every index is equally likely). Identical on every platform, unlike std::uniform_int_distribution.
class BootstrapRng {
 public:
  explicit BootstrapRng(uint64_t seed) : gen_(seed) {}
  uint64_t below(uint64_t n);

 private:
  std::mt19937_64 gen_;
};

struct BootstrapOptions {
  size_t resamples = kDefaultResamples;
  uint64_t seed = kDefaultSeed;
  double confidence = 0.95;
};

// Paired bootstrap of mean(b - a): d_i = b_i - a_i; each of R resamples draws n indices with
// replacement (BootstrapRng(seed), fresh for every call) and takes the mean of those d, summed in
// draw order; the interval is the (1-confidence)/2 and 1-(1-confidence)/2 quantiles of the R means,
// linear interpolation between order statistics (Hyndman & Fan type 7, numpy's default).
struct BootstrapCI {
  size_t n = 0;
  double delta = 0;  // observed mean(b - a)
  double lo = 0, hi = 0;
  size_t resamples = 0;
  uint64_t seed = 0;
  double confidence = 0.95;
};
BootstrapCI paired_bootstrap(const std::vector<double>& a, const std::vector<double>& b, const BootstrapOptions& opt = {});

// Type-7 quantile of sorted values (p in [0, 1]).
double quantile_sorted(const std::vector<double>& sorted, double p);

// Holm's step-down adjustment of m p-values (one family of tests): with the p-values sorted ascending,
// p_adj(i) = min(1, max over j <= i of (m - j + 1) p(j)); returned in the input order. Holm (1979),
// "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6:65-70.
std::vector<double> holm_adjust(const std::vector<double>& p);

// Agreement of two binary metrics over the same instances: the 2x2 table (n11: both 1, n10: x=1
// y=0, n01, n00), observed agreement po, and Cohen's kappa = (po - pe) / (1 - pe) with
// pe = px*py + (1-px)(1-py); kappa is undefined (nullopt) when pe = 1.
struct BinaryAgreement {
  long n11 = 0, n10 = 0, n01 = 0, n00 = 0;
  double agreement = 0;
  std::optional<double> kappa;
};
BinaryAgreement binary_agreement(const std::vector<double>& x, const std::vector<double>& y);

// Pearson's r, and Spearman's rho = Pearson's r of the ranks (ties get their average rank);
// undefined (nullopt) when either side is constant or n < 2.
struct Correlation {
  size_t n = 0;
  std::optional<double> pearson, spearman;
};
std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y);
std::vector<double> average_ranks(const std::vector<double>& x);
Correlation correlation(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace sqlgrade::runs
