// Paired statistics. See stats.hpp; the tests compare them with textbook values and with an
// independent Python implementation (tests/tools/runs_stats_reference.py).
#include "sqlgrade/runs/stats.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace sqlgrade::runs {

McNemar mcnemar_exact(long b, long c) {
  McNemar m;
  m.b = b, m.c = c;
  const long n = b + c;
  if (n <= 0) return m;
  boost::math::binomial_distribution<double> dist(static_cast<double>(n), 0.5);
  m.p = std::min(1.0, 2.0 * boost::math::cdf(dist, static_cast<double>(std::min(b, c))));
  return m;
}

McNemar mcnemar_exact(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("mcnemar_exact: vectors of different length");
  long nb = 0, nc = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    nb += a[i] == 1 && b[i] == 0;
    nc += a[i] == 0 && b[i] == 1;
  }
  return mcnemar_exact(nb, nc);
}

uint64_t BootstrapRng::below(uint64_t n) {
  if (n <= 1) return 0;
  const uint64_t rem = (0 - n) % n;  // 2^64 mod n
  for (;;) {
    uint64_t x = gen_();
    if (rem == 0 || x < 0 - rem) return x % n;  // 0 - rem = 2^64 - rem (mod 2^64)
  }
}

double quantile_sorted(const std::vector<double>& s, double p) {
  if (s.empty()) return 0;
  const double h = (static_cast<double>(s.size()) - 1) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= s.size()) return s.back();
  return s[lo] + (h - static_cast<double>(lo)) * (s[lo + 1] - s[lo]);
}

BootstrapCI paired_bootstrap(const std::vector<double>& a, const std::vector<double>& b, const BootstrapOptions& opt) {
  if (a.size() != b.size()) throw std::invalid_argument("paired_bootstrap: vectors of different length");
  BootstrapCI ci;
  ci.n = a.size(), ci.resamples = opt.resamples, ci.seed = opt.seed, ci.confidence = opt.confidence;
  if (a.empty()) return ci;
  std::vector<double> d(a.size());
  for (size_t i = 0; i < a.size(); ++i) d[i] = b[i] - a[i];
  double sum = 0;
  for (double v : d) sum += v;
  const double n = static_cast<double>(d.size());
  ci.delta = sum / n;
  if (opt.resamples == 0) {
    ci.lo = ci.hi = ci.delta;
    return ci;
  }
  BootstrapRng rng(opt.seed);
  std::vector<double> means(opt.resamples);
  for (size_t r = 0; r < opt.resamples; ++r) {
    double s = 0;
    for (size_t k = 0; k < d.size(); ++k) s += d[rng.below(d.size())];
    means[r] = s / n;
  }
  std::sort(means.begin(), means.end());
  const double tail = (1 - opt.confidence) / 2;
  ci.lo = quantile_sorted(means, tail);
  ci.hi = quantile_sorted(means, 1 - tail);
  return ci;
}

BinaryAgreement binary_agreement(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("binary_agreement: vectors of different length");
  BinaryAgreement g;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool a = x[i] == 1, b = y[i] == 1;
    (a ? (b ? g.n11 : g.n10) : (b ? g.n01 : g.n00))++;
  }
  const double n = static_cast<double>(x.size());
  if (x.empty()) return g;
  g.agreement = static_cast<double>(g.n11 + g.n00) / n;
  const double px = static_cast<double>(g.n11 + g.n10) / n, py = static_cast<double>(g.n11 + g.n01) / n;
  const double pe = px * py + (1 - px) * (1 - py);
  if (pe < 1) g.kappa = (g.agreement - pe) / (1 - pe);
  return g;
}

std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("pearson: vectors of different length");
  const size_t n = x.size();
  if (n < 2) return std::nullopt;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
  mx /= static_cast<double>(n), my /= static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = x[i] - mx, dy = y[i] - my;
    sxy += dx * dy, sxx += dx * dx, syy += dy * dy;
  }
  if (sxx <= 0 || syy <= 0) return std::nullopt;
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

std::vector<double> average_ranks(const std::vector<double>& x) {
  std::vector<size_t> idx(x.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t i, size_t j) { return x[i] < x[j]; });
  std::vector<double> rank(x.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && x[idx[j + 1]] == x[idx[i]]) ++j;
    const double r = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;  // ranks i+1 … j+1
    for (size_t k = i; k <= j; ++k) rank[idx[k]] = r;
    i = j + 1;
  }
  return rank;
}

Correlation correlation(const std::vector<double>& x, const std::vector<double>& y) {
  Correlation c;
  c.n = x.size();
  c.pearson = pearson(x, y);
  c.spearman = pearson(average_ranks(x), average_ranks(y));
  return c;
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  for (size_t i = 0; i < m; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<double> out(m);
  double running = 0;
  for (size_t k = 0; k < m; ++k) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - k) * p[order[k]]));
    out[order[k]] = running;
  }
  return out;
}

}  // namespace sqlgrade::runs
