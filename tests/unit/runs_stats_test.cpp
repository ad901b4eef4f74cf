// Paired statistics against values computed independently: hand computations from the binomial
// distribution, published worked examples, and an analytic bound for the bootstrap. The exact
// bootstrap intervals are checked against an independent Python implementation in
// tests/tools/runs_stats_reference.py (ctest runs.python.stats_reference).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sqlgrade/runs/stats.hpp"

using namespace sqlgrade::runs;

TEST(RunsStats, McNemarExactByHand) {
  // b = 1, c = 7: P(X <= 1 | n = 8, 1/2) = (C(8,0) + C(8,1)) / 2^8 = 9/256, p = 18/256 = 0.0703125.
  // The same pair is the worked example of Fagerland, Lydersen & Laake, "The McNemar test for
  // binary matched-pairs data", BMC Med Res Methodol 13:91 (2013), which reports exact p = 0.070.
  McNemar m = mcnemar_exact(1, 7);
  EXPECT_EQ(m.b, 1);
  EXPECT_EQ(m.c, 7);
  EXPECT_NEAR(m.p, 18.0 / 256, 1e-12);
  EXPECT_NEAR(mcnemar_exact(7, 1).p, 18.0 / 256, 1e-12);  // symmetric
  // b = 2, c = 8: (1 + 10 + 45) / 1024 * 2 = 112/1024.
  EXPECT_NEAR(mcnemar_exact(2, 8).p, 112.0 / 1024, 1e-12);
  // b = 0, c = 10: 2 / 1024.
  EXPECT_NEAR(mcnemar_exact(0, 10).p, 2.0 / 1024, 1e-15);
  // b = c: 2 * P(X <= 5 | 10) = 2 * 638/1024 > 1 → 1.
  EXPECT_EQ(mcnemar_exact(5, 5).p, 1.0);
  EXPECT_EQ(mcnemar_exact(0, 0).p, 1.0);
  // b = 3, c = 0: P(X <= 0 | 3) = 1/8 → 0.25.
  EXPECT_NEAR(mcnemar_exact(3, 0).p, 0.25, 1e-15);
}

TEST(RunsStats, McNemarFromScoreVectorsCountsDiscordantPairs) {
  //            A: 1 1 1 0 0 0 1 0
  //            B: 1 0 0 1 0 1 1 1     b (A1,B0) = 2, c (A0,B1) = 3
  const std::vector<double> a{1, 1, 1, 0, 0, 0, 1, 0}, b{1, 0, 0, 1, 0, 1, 1, 1};
  McNemar m = mcnemar_exact(a, b);
  EXPECT_EQ(m.b, 2);
  EXPECT_EQ(m.c, 3);
  // 2 * P(X <= 2 | 5) = 2 * (1 + 5 + 10) / 32 = 1 → 1.
  EXPECT_EQ(m.p, 1.0);
}

TEST(RunsStats, CohensKappaWorkedExample) {
  // Wikipedia "Cohen's kappa", worked example: 50 items, both yes 20, A yes/B no 5, A no/B yes 10,
  // both no 15: po = 0.7, pe = 0.5 · 0.6 + 0.5 · 0.4 = 0.5, kappa = 0.4.
  std::vector<double> x, y;
  auto add = [&](int n, double a, double b) {
    for (int i = 0; i < n; ++i) x.push_back(a), y.push_back(b);
  };
  add(20, 1, 1), add(5, 1, 0), add(10, 0, 1), add(15, 0, 0);
  BinaryAgreement g = binary_agreement(x, y);
  EXPECT_EQ(g.n11, 20);
  EXPECT_EQ(g.n10, 5);
  EXPECT_EQ(g.n01, 10);
  EXPECT_EQ(g.n00, 15);
  EXPECT_NEAR(g.agreement, 0.7, 1e-12);
  ASSERT_TRUE(g.kappa);
  EXPECT_NEAR(*g.kappa, 0.4, 1e-12);
  // Perfect agreement with both categories present: kappa 1. One category only: pe = 1, undefined.
  EXPECT_NEAR(*binary_agreement({1, 0, 1}, {1, 0, 1}).kappa, 1.0, 1e-12);
  EXPECT_FALSE(binary_agreement({1, 1}, {1, 1}).kappa);
}

TEST(RunsStats, PearsonAnscombe) {
  // Anscombe (1973), "Graphs in Statistical Analysis", The American Statistician 27(1): each of the
  // four data sets has correlation 0.816 (0.81642 for set I).
  const std::vector<double> x{10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5};
  const std::vector<double> y1{8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68};
  const std::vector<double> y2{9.14, 8.14, 8.74, 8.77, 9.26, 8.10, 6.13, 3.10, 9.13, 7.26, 4.74};
  EXPECT_NEAR(*pearson(x, y1), 0.81642, 5e-5);
  EXPECT_NEAR(*pearson(x, y2), 0.816, 5e-4);
  EXPECT_FALSE(pearson({1, 1, 1}, {1, 2, 3}));
  EXPECT_FALSE(pearson({1}, {2}));
}

TEST(RunsStats, SpearmanWorkedExampleAndTies) {
  // Wikipedia "Spearman's rank correlation coefficient", example (IQ vs hours of TV per week):
  // sum d^2 = 194, rho = 1 - 6·194 / (10·99) = -29/165.
  const std::vector<double> iq{106, 100, 86, 101, 99, 103, 97, 113, 112, 110};
  const std::vector<double> tv{7, 27, 2, 50, 28, 29, 20, 12, 6, 17};
  Correlation c = correlation(iq, tv);
  EXPECT_NEAR(*c.spearman, -29.0 / 165, 1e-12);
  // Ties by hand: x = 1 2 2 3 → ranks 1 2.5 2.5 4; y = 1 3 2 4 → ranks 1 3 2 4;
  // rho = 4.5 / sqrt(4.5 · 5) = 3 / sqrt(10).
  EXPECT_EQ(average_ranks({1, 2, 2, 3}), (std::vector<double>{1, 2.5, 2.5, 4}));
  EXPECT_NEAR(*correlation({1, 2, 2, 3}, {1, 3, 2, 4}).spearman, 3 / std::sqrt(10.0), 1e-12);
}

TEST(RunsStats, Quantile7ByHand) {
  // Sorted 1 2 3 4 7 10: h = 5p; p = .5 → 3 + .5·(4-3) = 3.5; p = .25 → 2 + .25·(3-2) = 2.25.
  const std::vector<double> s{1, 2, 3, 4, 7, 10};
  EXPECT_DOUBLE_EQ(quantile_sorted(s, 0.5), 3.5);
  EXPECT_DOUBLE_EQ(quantile_sorted(s, 0.25), 2.25);
  EXPECT_DOUBLE_EQ(quantile_sorted(s, 0), 1);
  EXPECT_DOUBLE_EQ(quantile_sorted(s, 1), 10);
}

TEST(RunsStats, GeneratorIsTheStandardMt19937_64) {
  // [rand.predef] in the C++ standard: the 10000th consecutive invocation of a default-constructed
  // mt19937_64 produces 9981545732273789042; the bootstrap's generator is that engine.
  std::mt19937_64 g;
  g.discard(9999);
  EXPECT_EQ(g(), 9981545732273789042ULL);
  BootstrapRng r(5489);  // the default seed
  std::mt19937_64 ref(5489);
  // below(2^k) accepts every output (2^64 mod 2^k = 0) and is x % 2^k.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(r.below(1024), ref() % 1024);
  EXPECT_EQ(BootstrapRng(1).below(1), 0u);
}

TEST(RunsStats, BootstrapDegenerateAndDeterministic) {
  // Constant differences: every resample mean equals the difference.
  BootstrapCI c = paired_bootstrap({0, 0, 1, 0}, {1, 1, 2, 1});
  EXPECT_EQ(c.delta, 1);
  EXPECT_EQ(c.lo, 1);
  EXPECT_EQ(c.hi, 1);
  EXPECT_EQ(c.resamples, kDefaultResamples);
  EXPECT_EQ(c.seed, kDefaultSeed);
  std::vector<double> a, b;
  std::mt19937 gen(3);
  for (int i = 0; i < 300; ++i) a.push_back(gen() % 2), b.push_back(gen() % 2);
  BootstrapCI x = paired_bootstrap(a, b), y = paired_bootstrap(a, b);
  EXPECT_EQ(x.lo, y.lo);
  EXPECT_EQ(x.hi, y.hi);
  BootstrapCI z = paired_bootstrap(a, b, {kDefaultResamples, 777, 0.95});
  EXPECT_TRUE(z.lo != x.lo || z.hi != x.hi);
  EXPECT_LE(x.lo, x.delta);
  EXPECT_GE(x.hi, x.delta);
}

TEST(RunsStats, BootstrapWidthMatchesTheNormalApproximation) {
  // Analytic check: n paired binary outcomes with discordant fractions pb (A right, B wrong) and
  // pc; d = B - A takes -1, 0, 1 and mean(d) has standard error sqrt((pb + pc - (pc - pb)^2) / n).
  // With n = 4000 the sampling distribution of the mean is close to normal, so the percentile
  // interval's half-width must be 1.96 SE within a few percent (Monte-Carlo error of 4000
  // resamples on a 2.5% quantile ≈ 2-3%).
  const int n = 4000, nb = 400, nc = 560;  // pb = 0.10, pc = 0.14
  std::vector<double> a(n, 1), b(n, 1);
  for (int i = 0; i < nb; ++i) b[static_cast<size_t>(i)] = 0;
  for (int i = nb; i < nb + nc; ++i) a[static_cast<size_t>(i)] = 0;
  const double pb = double(nb) / n, pc = double(nc) / n;
  const double se = std::sqrt((pb + pc - (pc - pb) * (pc - pb)) / n);
  BootstrapCI c = paired_bootstrap(a, b, {4000, 42, 0.95});
  EXPECT_NEAR(c.delta, pc - pb, 1e-12);
  EXPECT_NEAR((c.hi - c.lo) / 2, 1.959964 * se, 0.06 * 1.959964 * se);
  EXPECT_NEAR((c.hi + c.lo) / 2, c.delta, 0.1 * se);
  // A 99% interval is wider (2.5758 SE).
  BootstrapCI w = paired_bootstrap(a, b, {4000, 42, 0.99});
  EXPECT_NEAR((w.hi - w.lo) / 2, 2.575829 * se, 0.08 * 2.575829 * se);
}

TEST(RunsStats, HolmByHand) {
  // Sorted 0.005, 0.01, 0.03, 0.04 (m = 4): 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06,
  // 1 x 0.04 = 0.04 raised to the running maximum 0.06; returned in the input order.
  const std::vector<double> adj = holm_adjust({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_NEAR(adj[0], 0.03, 1e-15);
  EXPECT_NEAR(adj[1], 0.06, 1e-15);
  EXPECT_NEAR(adj[2], 0.06, 1e-15);
  EXPECT_NEAR(adj[3], 0.02, 1e-15);
  // Capped at 1; a single test is left as it is.
  EXPECT_EQ(holm_adjust({0.6, 0.7})[0], 1.0);
  EXPECT_EQ(holm_adjust({0.3})[0], 0.3);
}
