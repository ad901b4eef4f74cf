// Unit tests of the BIRD comparison rules on hand-made result pairs (spec official-evaluators.md §3.3).
#include <gtest/gtest.h>

#include <cmath>

#include "sqlgrade/bird/compare.hpp"
#include "sqlgrade/py/equality.hpp"

using namespace sqlgrade;
using namespace sqlgrade::bird;

namespace {

Value I(int64_t v) { return Value::integer(v); }
Value R(double v) { return Value::real(v); }
Value T(const char* s) { return Value::text(s); }
Value N() { return Value::null(); }

Table tab(std::vector<Row> rows) {
  Table t;
  if (!rows.empty()) t.columns.resize(rows[0].size(), "c");
  t.rows = std::move(rows);
  return t;
}

}  // namespace

// The verified table of spec 3.3.
TEST(BirdCompare, SpecTableSameRowsDifferentOrder) {
  Table g = tab({{I(1), T("a")}, {I(2), T("b")}});
  Table p = tab({{I(2), T("b")}, {I(1), T("a")}});
  EXPECT_TRUE(ex_match(p, g));
  EXPECT_DOUBLE_EQ(soft_f1(p, g), 0.0);  // positional pairing: no cell of row 0 matches row 0
}

TEST(BirdCompare, SpecTableColumnsSwapped) {
  Table g = tab({{I(1), T("a")}, {I(2), T("b")}});
  Table p = tab({{T("a"), I(1)}, {T("b"), I(2)}});
  EXPECT_FALSE(ex_match(p, g));
  EXPECT_DOUBLE_EQ(soft_f1(p, g), 1.0);
}

TEST(BirdCompare, SpecTableOneExtraPredRow) {
  Table g = tab({{I(1)}, {I(2)}});
  Table p = tab({{I(1)}, {I(2)}, {I(3)}});
  EXPECT_FALSE(ex_match(p, g));
  EXPECT_NEAR(soft_f1(p, g), 0.8, 1e-12);
}

TEST(BirdCompare, SpecTableMissingRow) {
  Table g = tab({{I(1)}, {I(2)}});
  Table p = tab({{I(1)}});
  EXPECT_FALSE(ex_match(p, g));
  EXPECT_NEAR(soft_f1(p, g), 2.0 / 3.0, 1e-12);
}

TEST(BirdCompare, SpecTableWiderPredRow) {
  Table g = tab({{I(1)}});
  Table p = tab({{I(1), I(1)}});
  EXPECT_FALSE(ex_match(p, g));
  EXPECT_DOUBLE_EQ(soft_f1(p, g), 1.0);  // both pred cells are "in" the gold row: tp = 2, fp = 0
}

TEST(BirdCompare, SpecTablePredEmpty) {
  Table g = tab({{I(1)}});
  Table p = tab({});
  EXPECT_FALSE(ex_match(p, g));
  EXPECT_DOUBLE_EQ(soft_f1(p, g), 0.0);
}

TEST(BirdCompare, BothEmptyIsPerfect) {
  EXPECT_TRUE(ex_match(tab({}), tab({})));
  EXPECT_DOUBLE_EQ(soft_f1(tab({}), tab({})), 1.0);
  EXPECT_DOUBLE_EQ(em_f1(tab({}), tab({})), 1.0);
}

// The Mini-Dev README's worked example. The README treats NULL as "missing" and gets 0.8; the code
// treats NULL as an ordinary value and every row is normalised by the gold width: 2/3 (spec 3.3).
TEST(BirdCompare, ReadmeExampleGivesTwoThirdsNotPointEight) {
  Table g = tab({{T("Apple"), I(325)}, {T("Orange"), N()}, {T("Banana"), I(119)}});
  Table p = tab({{I(325), T("Apple")}, {I(191), T("Orange")}, {N(), T("Banana")}});
  EXPECT_NEAR(soft_f1(p, g), 2.0 / 3.0, 1e-12);
  EXPECT_FALSE(ex_match(p, g));
}

TEST(BirdCompare, IntEqualsIntegralFloatLikePython) {
  EXPECT_TRUE(py::equal(I(1), R(1.0)));
  EXPECT_FALSE(py::equal(I(1), R(1.5)));
  EXPECT_FALSE(py::equal(I(1), T("1")));
  EXPECT_FALSE(py::equal(N(), I(0)));
  EXPECT_TRUE(py::equal(N(), N()));
  EXPECT_FALSE(py::equal(T("a"), Value::blob("a")));
  // 2**53 + 1 is not equal to the float 2**53 in Python (exact comparison).
  EXPECT_FALSE(py::equal(I((int64_t(1) << 53) + 1), R(9007199254740992.0)));
  EXPECT_TRUE(py::equal(I(int64_t(1) << 53), R(9007199254740992.0)));
  EXPECT_EQ(py::hash(I(7)), py::hash(R(7.0)));
  EXPECT_TRUE(ex_match(tab({{I(1)}, {I(2)}}), tab({{R(2.0)}, {R(1.0)}})));
}

TEST(BirdCompare, ExIgnoresDuplicatesAndOrderButNotColumnOrder) {
  EXPECT_TRUE(ex_match(tab({{I(1)}, {I(1)}, {I(2)}}), tab({{I(2)}, {I(1)}})));
  EXPECT_FALSE(ex_match(tab({{I(1), I(2)}}), tab({{I(2), I(1)}})));
  EXPECT_FALSE(ex_match(tab({{I(1)}}), tab({{I(1), I(1)}})));
  EXPECT_FALSE(ex_match(tab({{I(1)}}), tab({{I(1)}, {I(2)}})));
}

TEST(BirdCompare, DedupKeepsFirstOccurrence) {
  auto d = py::unique_in_order({{I(3)}, {I(1)}, {R(3.0)}, {I(2)}, {I(1)}});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0][0].kind, Kind::Int);  // 3 first, the later 3.0 is a duplicate
  EXPECT_EQ(d[1][0].i, 1);
  EXPECT_EQ(d[2][0].i, 2);
  // De-duplication happens before positional pairing: [1,1,2] vs [1,2] is a perfect match.
  EXPECT_DOUBLE_EQ(soft_f1(tab({{I(1)}, {I(1)}, {I(2)}}), tab({{I(1)}, {I(2)}})), 1.0);
}

TEST(BirdCompare, SoftF1DuplicateCellsCountRepeatedly) {
  // pred row (1, 1, 2) vs gold (1, 3): pred cells in gold: 1, 1 -> 2 matches, 1 pred-only; gold 3 missing.
  Table g = tab({{I(1), I(3)}});
  Table p = tab({{I(1), I(1), I(2)}});
  double tp = 2.0 / 2, fp = 1.0 / 2, fn = 1.0 / 2;
  double pr = tp / (tp + fp), rc = tp / (tp + fn);
  EXPECT_DOUBLE_EQ(soft_f1(p, g), 2 * pr * rc / (pr + rc));
}

TEST(BirdCompare, EmF1IsMeanOfExactAndSoft) {
  Table g = tab({{I(1)}, {I(2)}});
  EXPECT_DOUBLE_EQ(em_f1(tab({{I(1)}, {I(2)}}), g), 1.0);
  EXPECT_NEAR(em_f1(tab({{I(1)}, {I(2)}, {I(3)}}), g), (0 + 0.8) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(em_f1(tab({{I(2)}, {I(1)}}), g), (1 + 0.0) / 2);  // EM 1, positional F1 0
}

TEST(BirdCompare, FilteredTimeRatioThreeSigma) {
  // One huge outlier among many equal values is dropped.
  std::vector<double> r(20, 1.0);
  r.push_back(1000.0);
  EXPECT_DOUBLE_EQ(filtered_time_ratio(r), 1.0);
  // Identical ratios: sigma 0 keeps nothing; the official code divides by zero and scores 0.
  EXPECT_DOUBLE_EQ(filtered_time_ratio({2.0, 2.0, 2.0}), 0.0);
  EXPECT_NEAR(filtered_time_ratio({1.0, 2.0, 3.0}), 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(filtered_time_ratio({}), 0.0);
}

TEST(BirdCompare, RvesRewardBuckets) {
  EXPECT_EQ(rves_reward(0), 0);
  EXPECT_EQ(rves_reward(0.1), 0.25);
  EXPECT_EQ(rves_reward(0.25), 0.5);
  EXPECT_EQ(rves_reward(0.49), 0.5);
  EXPECT_EQ(rves_reward(0.5), 0.75);
  EXPECT_EQ(rves_reward(1.0), 1.0);
  EXPECT_EQ(rves_reward(1.99), 1.0);
  EXPECT_EQ(rves_reward(2.0), 1.25);
  EXPECT_DOUBLE_EQ(rves_score(1.25), 100 * std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(ves_score(4.0), 200.0);
  EXPECT_DOUBLE_EQ(ves_score(0.0), 0.0);
}
