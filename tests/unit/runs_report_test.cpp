// `sqlgrade report`: the page is self-contained (no URL outside the SVG namespace), hostile
// instance text cannot leave the data block, the embedded data round-trips, and the feature and
// UDA column breakdowns are computed. The page is exercised in Chromium by
// tests/tools/report_browser_test.py (ctest runs.browser.report).
#include <gtest/gtest.h>

#include <set>

#include "runs_support.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/html/report.hpp"
#include "sqlgrade/core/text.hpp"

using namespace sqlgrade;
using namespace sqlgrade::runs;
using namespace sqlgrade::test;

namespace {

const std::string kHostile = "</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> & \xE2\x80\xA8 \xFF";

struct Two {
  RunRecord a = base_run("A"), b = base_run("B");
  Two() {
    for (int i = 1; i <= 6; ++i) {
      a.instances.push_back(inst(std::to_string(i), i % 2, 0.5, i < 4 ? "easy" : "hard"));
      b.instances.push_back(inst(std::to_string(i), i < 5, 0.7, i < 4 ? "easy" : "hard"));
    }
    a.instances[0].question = kHostile;
    a.instances[0].gold_sql = "SELECT a FROM t JOIN u ON t.x = u.x GROUP BY a";
    b.instances[1].pred_sql = kHostile;
    b.instances[2].failure_reason = kHostile;
    a.instances[3].gold_sql = "SELECT a FROM t WHERE b IN (SELECT b FROM u)";
  }
  std::vector<NamedRun> named() const { return {{"a.json", &a}, {"b.json", &b}}; }
};

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string data_block(const std::string& html) {
  const std::string open = "<script id=\"sqlgrade-data\" type=\"application/json\">";
  size_t b = html.find(open);
  size_t e = html.find("</script>", b);
  return html.substr(b + open.size(), e - b - open.size());
}

}  // namespace

TEST(RunsReport, SelfContainedAndEscaped) {
  Two t;
  const std::string html = render_report(t.named(), {});
  EXPECT_TRUE(is_valid_utf8(html));
  EXPECT_EQ(count(to_lower(html), "</script"), 2u) << "only the data block and the script close a <script>";
  EXPECT_EQ(count(html, "<script"), 2u);
  EXPECT_EQ(count(html, "<!--"), 0u);
  // No URL but the SVG namespace name (an identifier, never fetched) and no external reference.
  size_t urls = count(html, "http://") + count(html, "https://");
  EXPECT_EQ(urls, count(html, "http://www.w3.org/2000/svg"));
  std::string page = html;  // the page without its data block
  page.erase(page.find(data_block(html)), data_block(html).size());
  EXPECT_EQ(count(page, "src="), 0u);
  EXPECT_EQ(count(page, "<link"), 0u);
  EXPECT_EQ(count(page, "url("), 0u);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  // The data block is ASCII JSON equal to report_data (the hostile text intact inside).
  const std::string block = data_block(html);
  for (unsigned char c : block) ASSERT_LT(c, 0x80);
  EXPECT_EQ(block.find('<'), std::string::npos);
  EXPECT_EQ(block.find('>'), std::string::npos);
  EXPECT_EQ(block.find('&'), std::string::npos);
  Json data = Json::parse(block);
  EXPECT_EQ(data["instances"][0]["q"], "</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> & \xE2\x80\xA8 \xEF\xBF\xBD");
  EXPECT_EQ(data["instances"][1]["runs"][1]["pred"], data["instances"][0]["q"]);
}

TEST(RunsReport, DataHasComparisonsFeaturesAndCategories) {
  Two t;
  Json d = report_data(t.named(), {});
  EXPECT_EQ(d["title"], "toy: A vs B");
  EXPECT_EQ(d["primary"], "exec");
  ASSERT_EQ(d["runs"].size(), 2u);
  EXPECT_DOUBLE_EQ(d["runs"][0]["headline"]["exec"]["mean"].get<double>(), 3.0 / 6);  // ids 1, 3, 5
  EXPECT_DOUBLE_EQ(d["runs"][1]["headline"]["exec"]["mean"].get<double>(), 4.0 / 6);  // ids 1-4
  ASSERT_EQ(d["comparisons"].size(), 1u);
  // A right & B wrong: 5; A wrong & B right: 2, 4.
  EXPECT_EQ(d["comparisons"][0]["overall"][0]["mcnemar"]["b"], 1);
  EXPECT_EQ(d["comparisons"][0]["overall"][0]["mcnemar"]["c"], 2);
  EXPECT_EQ(d["comparisons"][0]["regressed"], 1);
  EXPECT_EQ(d["comparisons"][0]["improved"], 2);
  EXPECT_EQ(d["axes"][0]["name"], "hardness");
  EXPECT_EQ(d["axes"][0]["rows"][0]["value"], "easy");
  EXPECT_EQ(d["axes"][0]["rows"][0]["runs"][1]["count"], 3);
  // Features of the gold SQL: id 1 join + group_by, id 4 nested, the rest none.
  Json feats = Json::object();
  for (const auto& f : d["features"]) feats[f["feature"].get<std::string>()] = f["n"][0];
  EXPECT_EQ(feats, (Json{{"join", 1}, {"group_by", 1}, {"nested", 1}, {"none", 4}}));
  EXPECT_EQ(d["instances"][0]["feat"], (Json{"join", "group_by"}));
  EXPECT_TRUE(d["uda_columns"].is_null());
}

TEST(RunsReport, UdaColumnsAreAveragedPerDatasetAndColumn) {
  RunRecord r = base_run("uda-sys");
  r.benchmark = "uda";
  r.metrics = {{"f1", MetricKind::Continuous, "macro F1"}};
  r.primary_metric = "f1";
  auto q = [&](const std::string& id, const std::string& ds, double p1, double p2) {
    Instance in;
    in.id = id;
    in.scores = {{"f1", (p1 + p2) / 2}};
    in.category = {{"dataset", ds}, {"task", "Select"}};
    in.columns = Json{{"name", {{"precision", p1}, {"recall", p1}, {"f1", p1}}}, {"age", {{"precision", p2}, {"recall", p2}, {"f1", p2}}}};
    r.instances.push_back(in);
  };
  q("Player/Select/q/1", "Player", 1.0, 0.5), q("Player/Select/q/2", "Player", 0.5, 0.25), q("Art/Select/q/1", "Art", 0.2, 0.4);
  Json d = report_data({{"u.json", &r}}, {});
  ASSERT_EQ(d["uda_columns"].size(), 4u);
  EXPECT_EQ(d["uda_columns"][0]["group"], "Art");
  EXPECT_EQ(d["uda_columns"][2]["group"], "Player");
  EXPECT_EQ(d["uda_columns"][2]["column"], "age");
  EXPECT_DOUBLE_EQ(d["uda_columns"][2]["runs"][0]["f1"].get<double>(), 0.375);
  EXPECT_DOUBLE_EQ(d["uda_columns"][3]["runs"][0]["precision"].get<double>(), 0.75);
  EXPECT_EQ(d["uda_columns"][3]["runs"][0]["n"], 2);
  EXPECT_TRUE(d["features"].is_null());
  EXPECT_TRUE(d["comparisons"].empty());
}

TEST(RunsReport, RefusesIncomparableRunsAndWritesNothing) {
  Two t;
  t.b.benchmark = "other";
  EXPECT_THROW(report_data(t.named(), {}), InputError);
  TempDir dir;
  std::string fa = write_run(dir, "a.json", t.a), fb = write_run(dir, "b.json", t.b);
  CliResult r = run_cli({"report", fa, fb, "-o", (dir / "r.html").string()});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("benchmark \"other\" differs"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "r.html"));
  t.b.benchmark = "toy";
  fb = write_run(dir, "b.json", t.b);
  r = run_cli({"report", fa, fb, "-o", (dir / "r.html").string(), "--title", "<b>x</b>"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(slurp(dir / "r.html").find("<title>&lt;b&gt;x&lt;/b&gt;</title>"), std::string::npos);
}

// Issue 19, finding 13: the page lists at most kMaxReportInstances instances — the changed ones first —
// and says how many it leaves out; every statistic still covers all of them.
TEST(RunsReport, ListsAtMostTheCapChangedInstancesFirst) {
  const size_t n = kMaxReportInstances + 10;
  RunRecord a = base_run("a"), b = base_run("b");
  a.instances.reserve(n), b.instances.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const bool changed = i >= n - 5;  // the last ids in id order: listed only because they changed
    a.instances.push_back(inst(std::to_string(i), 1, 1, "easy"));
    b.instances.push_back(inst(std::to_string(i), changed ? 0 : 1, 1, "easy"));
  }
  ReportOptions o;
  o.bootstrap.resamples = 10;
  Json d = report_data({{"a.json", &a}, {"b.json", &b}}, o);
  ASSERT_EQ(d["instances"].size(), kMaxReportInstances);
  EXPECT_EQ(d["instances_total"], n);
  EXPECT_NE(d["instances_note"].get<std::string>().find("10 of 100010 instances are not listed"), std::string::npos);
  std::set<std::string> listed;
  for (const auto& j : d["instances"]) listed.insert(j["id"].get<std::string>());
  for (size_t i = n - 5; i < n; ++i) EXPECT_TRUE(listed.count(std::to_string(i))) << i;
  EXPECT_FALSE(listed.count(std::to_string(n - 6)));  // the first unchanged id past the cap
  EXPECT_EQ(d["runs"][1]["headline"]["exec"]["n"], n);
  EXPECT_EQ(d["comparisons"][0]["regressed"], 5);
}
