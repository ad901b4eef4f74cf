// `sqlgrade diff`: alignment by id, refusals (benchmark, gold, ids), per-category deltas,
// regressions/improvements, agreement, JSON and terminal output.
#include <gtest/gtest.h>

#include "runs_support.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/diff.hpp"
#include "sqlgrade/runs/format.hpp"
#include "sqlgrade/runs/terminal.hpp"
#include "sqlgrade/core/text.hpp"

using namespace sqlgrade;
using namespace sqlgrade::runs;
using namespace sqlgrade::test;

namespace {

// A and B over ids 1..8; A is listed in reverse order to prove alignment is by id.
//   id  hardness  A.exec B.exec  A.f1  B.f1
//   1   easy      1      1       1.0   1.0
//   2   easy      1      0       0.8   0.2    regression
//   3   easy      0      1       0.1   0.9    improvement
//   4   medium    0      0       0.0   0.5
//   5   medium    1      1       0.6   0.6
//   6   medium    0      1       0.3   1.0    improvement
//   7   hard      0      1       0.2   0.7    improvement
//   8   hard      1      1       0.9   0.9
struct Pair {
  RunRecord a = base_run("A-sys"), b = base_run("B-sys");
  Pair() {
    const double ae[] = {1, 1, 0, 0, 1, 0, 0, 1}, be[] = {1, 0, 1, 0, 1, 1, 1, 1};
    const double af[] = {1, .8, .1, 0, .6, .3, .2, .9}, bf[] = {1, .2, .9, .5, .6, 1, .7, .9};
    const char* h[] = {"easy", "easy", "easy", "medium", "medium", "medium", "hard", "hard"};
    for (int i = 7; i >= 0; --i) a.instances.push_back(inst(std::to_string(i + 1), ae[i], af[i], h[i]));
    for (int i = 0; i < 8; ++i) b.instances.push_back(inst(std::to_string(i + 1), be[i], bf[i], h[i]));
    a.instances[6].question = "Second question";  // id 2
  }
  DiffResult diff(DiffOptions o = {}) const { return diff_runs({"a.json", &a}, {"b.json", &b}, o); }
};

std::string error_of(const Pair& p, DiffOptions o = {}) {
  try {
    p.diff(o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(RunsDiff, OverallAndPerCategory) {
  Pair p;
  DiffResult d = p.diff();
  EXPECT_EQ(d.n_aligned, 8u);
  EXPECT_EQ(d.primary, "exec");
  ASSERT_EQ(d.overall.size(), 2u);
  const MetricDiff& e = d.overall[0];
  EXPECT_TRUE(e.primary);
  EXPECT_EQ(e.n, 8u);
  EXPECT_DOUBLE_EQ(e.mean_a, 4.0 / 8);
  EXPECT_DOUBLE_EQ(e.mean_b, 6.0 / 8);
  EXPECT_DOUBLE_EQ(e.ci.delta, 2.0 / 8);
  ASSERT_TRUE(e.mcnemar);
  EXPECT_EQ(e.mcnemar->b, 1);
  EXPECT_EQ(e.mcnemar->c, 3);
  EXPECT_NEAR(e.mcnemar->p, 2 * 5.0 / 16, 1e-12);  // 2·P(X<=1 | 4) = 2·(1+4)/16
  const MetricDiff& f = d.overall[1];
  EXPECT_FALSE(f.mcnemar);
  EXPECT_NEAR(f.ci.delta, (5.8 - 3.9) / 8, 1e-12);
  // Categories in declared order easy, medium, hard.
  ASSERT_EQ(d.by_category.size(), 3u);
  EXPECT_EQ(d.by_category[0].value, "easy");
  EXPECT_EQ(d.by_category[2].value, "hard");
  EXPECT_EQ(d.by_category[1].metrics[0].n, 3u);
  EXPECT_DOUBLE_EQ(d.by_category[1].metrics[0].mean_a, 1.0 / 3);
  EXPECT_DOUBLE_EQ(d.by_category[1].metrics[0].mean_b, 2.0 / 3);
  EXPECT_EQ(d.by_category[2].metrics[0].mcnemar->c, 1);
}

TEST(RunsDiff, RegressionsAndImprovements) {
  Pair p;
  DiffResult d = p.diff();
  ASSERT_EQ(d.regressions.size(), 1u);
  EXPECT_EQ(d.regressions[0].id, "2");
  EXPECT_EQ(d.regressions[0].text, "Second question");
  EXPECT_EQ(d.regressions[0].a, 1);
  EXPECT_EQ(d.regressions[0].b, 0);
  EXPECT_EQ(*d.regressions[0].reason_b, "results differ");
  std::vector<std::string> ids;
  for (const auto& c : d.improvements) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"3", "6", "7"}));
  EXPECT_EQ(d.improvements[0].text, "SELECT 3");  // no question: the gold SQL
}

TEST(RunsDiff, Agreement) {
  Pair p;
  DiffOptions o;
  o.agree = std::make_pair("exec", "f1");
  DiffResult d = p.diff(o);
  ASSERT_EQ(d.agreement.size(), 2u);
  EXPECT_FALSE(d.agreement[0].binary);
  ASSERT_TRUE(d.agreement[0].correlation);
  EXPECT_EQ(d.agreement[0].n, 8u);
  o.agree = std::make_pair("exec", "bleu");
  EXPECT_NE(error_of(p, o).find("--agree: metric \"bleu\" is not in this run"), std::string::npos);
}

TEST(RunsDiff, RefusesDifferentBenchmarkGoldOrIds) {
  {
    Pair p;
    p.b.benchmark = "other";
    EXPECT_EQ(error_of(p), "b.json: benchmark \"other\" differs from a.json's \"toy\"; only runs of one benchmark can be compared");
  }
  {
    Pair p;
    p.b.inputs[0].sha256 = std::string(64, 'c');
    EXPECT_EQ(error_of(p).rfind("b.json: gold input \"gold\" differs from a.json's (sha256 cccccccccccc… vs aaaaaaaaaaaa…)", 0), 0u)
        << error_of(p);
  }
  {
    Pair p;  // a prediction file differing is the point of a diff
    p.b.inputs[1].sha256 = std::string(64, 'd');
    EXPECT_EQ(error_of(p), "");
  }
  {
    Pair p;
    p.b.instances.pop_back();
    p.b.instances.push_back(inst("99", 1, 1, "hard"));
    EXPECT_EQ(error_of(p), "b.json: instance ids differ from a.json's (1 only in a.json, e.g. \"8\"; 1 only in b.json, e.g. \"99\"); "
                           "not the same gold — pass --common to compare the 7 shared ids");
    DiffOptions o;
    o.common_only = true;
    DiffResult d = p.diff(o);
    EXPECT_EQ(d.n_aligned, 7u);
    EXPECT_EQ(d.only_a, 1u);
    EXPECT_EQ(d.notes.front(), "comparing the 7 shared ids (1 only in A, 1 only in B)");
  }
  {
    Pair p;
    p.b.options["compat"] = "y";
    EXPECT_EQ(p.diff().notes, (std::vector<std::string>{"options differ between the runs: compat"}));
  }
  {
    Pair p;
    DiffOptions o;
    o.axes = {"db"};
    EXPECT_EQ(error_of(p, o), "a.json: no instance has a category \"db\" (--axis)");
  }
}

TEST(RunsDiff, CliTableJsonAndHostileText) {
  Pair p;
  p.a.instances[6].question = "Evil \x1b[31mred\x1b[0m \xE2\x80\xAEreversed\n next line";  // id 2
  p.b.instances[7].pred_sql = "SELECT 8 + 1";
  p.b.instances[7].scores = {{"exec", 0}, {"f1", 0.1}};  // id 8 regresses too
  TempDir t;
  std::string fa = write_run(t, "a.json", p.a), fb = write_run(t, "b.json", p.b);
  CliResult r = run_cli({"diff", fa, fb, "--agree", "exec,f1", "--bootstrap", "200", "--list", "1"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("Overall"), std::string::npos);
  EXPECT_NE(r.out.find("exec *"), std::string::npos);
  EXPECT_NE(r.out.find("exec by hardness"), std::string::npos);
  EXPECT_NE(r.out.find("Regressions (B below A) on exec: 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("… 1 more (--list 0 shows all)"), std::string::npos);
  EXPECT_NE(r.out.find("Agreement between exec and f1"), std::string::npos);
  EXPECT_NE(r.out.find("200 resamples, seed 12345"), std::string::npos);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "escape sequences must not reach the terminal";
  EXPECT_EQ(r.out.find("\xE2\x80\xAE"), std::string::npos) << "bidi overrides must not reach the terminal";
  EXPECT_NE(r.out.find("Evil [31mred [0m reversed next line"), std::string::npos) << r.out;
  for (const auto& line : split(r.out, "\n")) EXPECT_LE(display_width(line), 110u) << line;

  CliResult j = run_cli({"diff", fa, fb, "--json", "--bootstrap", "300", "--seed", "9"});
  ASSERT_EQ(j.rc, 0) << j.err;
  Json out = Json::parse(j.out);
  EXPECT_EQ(out["overall"][0]["metric"], "exec");
  EXPECT_EQ(out["overall"][0]["mcnemar"]["b"], 2);
  EXPECT_EQ(out["overall"][0]["bootstrap"]["resamples"], 300);
  EXPECT_EQ(out["overall"][0]["bootstrap"]["seed"], 9);
  EXPECT_EQ(out["regressions"].size(), 2u);
  EXPECT_EQ(out["by_category"].size(), 3u);

  p.b.inputs[0].sha256 = std::string(64, 'e');
  std::string fc = write_run(t, "c.json", p.b);
  CliResult bad = run_cli({"diff", fa, fc});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_NE(bad.err.find("gold input \"gold\" differs"), std::string::npos);
  EXPECT_EQ(bad.out, "");
}

// One rounding rule for `diff` and the report (issue 22): ties of the binary value go to the nearest
// even digit as fmt does (0.03125 is exact in binary: 0.0312, where JavaScript's toFixed gave 0.0313),
// no "-0.0000", and an interval that excludes 0 never prints an endpoint of 0.
TEST(RunsFormat, OneRoundingRule) {
  EXPECT_EQ(sqlgrade::runs::pvalue_text(0.03125), "0.0312");
  EXPECT_EQ(sqlgrade::runs::pvalue_text(0.00005), "<0.0001");
  EXPECT_EQ(sqlgrade::runs::fixed_text(-0.00001), "0.0000");
  EXPECT_EQ(sqlgrade::runs::signed_text(-0.00001), "0.0000");
  EXPECT_EQ(sqlgrade::runs::signed_text(0.0145), "+0.0145");
  EXPECT_EQ(sqlgrade::runs::interval_text(0.0000207, 0.29687), "[+0.000021, +0.2969]");
  EXPECT_EQ(sqlgrade::runs::interval_text(-0.1, -0.00004), "[-0.1000, -0.000040]");
  EXPECT_EQ(sqlgrade::runs::interval_text(0, 0.2), "[0.0000, +0.2000]");
  EXPECT_EQ(sqlgrade::runs::interval_text(1e-17, 0.2), "[0.0000, +0.2000]");  // floating-point noise is 0
  EXPECT_TRUE(sqlgrade::runs::excludes_zero(0.0000207, 0.3));
  EXPECT_FALSE(sqlgrade::runs::excludes_zero(1e-17, 0.3));
  EXPECT_EQ(sqlgrade::runs::display_scale("bird", "ex"), 100);
  EXPECT_EQ(sqlgrade::runs::display_scale("bird", "ves"), 1);
  EXPECT_EQ(sqlgrade::runs::display_scale("spider", "exec"), 1);
}
