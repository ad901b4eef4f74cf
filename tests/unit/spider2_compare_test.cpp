// Spider 2.0-Lite official rule: vector matching, condition_cols resolution,
// sql-mode round trip, strict findings. Expected values come from the spec's verified cases
// (shared/spec/official-evaluators.md §4.3–4.5), which were run against the official script.
#include <gtest/gtest.h>

#include <random>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/spider2/compare.hpp"
#include "sqlgrade/spider2/compare_v2.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider2/run.hpp"

using namespace sqlgrade;
using namespace sqlgrade::spider2;
using nlohmann::json;

namespace {

Frame csv(const std::string& text) { return frame_from_csv_text(text, "test.csv"); }

int cmp(const std::string& pred, const std::string& gold, json cc = json::array(), bool ignore_order = true) {
  return compare_frames(csv(pred), csv(gold), cc, ignore_order);
}

EvalEntry entry(json cc, bool ignore_order = true) { return EvalEntry{"x", std::move(cc), ignore_order}; }

}  // namespace

// ---- value model (pandas read_csv): tests/unit/py_pandas_csv_test.cpp ----

// ---- the verified cases of spec §4.5 ----

TEST(Spider2Compare, VerifiedCases) {
  EXPECT_EQ(cmp("a\n1.004\n", "a\n1.0\n"), 1);
  EXPECT_EQ(cmp("a\n1.011\n", "a\n1.0\n"), 0);
  EXPECT_EQ(cmp("a\n1\n2\n", "a\n1.0\n2.0\n"), 1);
  EXPECT_EQ(cmp("a\n2.0\n20.0\n", "a\n2.0\n19.999\n", json::array(), true), 0);  // string sort misaligns
  EXPECT_EQ(cmp("a\n2.0\n20.0\n", "a\n2.0\n19.999\n", json::array(), false), 1);
  EXPECT_EQ(cmp("x,a,y\n9,1,8\n", "a\n1\n"), 1);
  EXPECT_EQ(cmp("p\n1\n", "a,b\n1,1\n"), 1);              // one pred column serves two gold columns
  EXPECT_EQ(cmp("a,b\n1,y\n2,x\n", "a,b\n1,x\n2,y\n"), 1);  // rows scrambled across columns
  EXPECT_EQ(cmp("a\n2\n1\n", "a\n1\n2\n", json::array(), false), 0);
  EXPECT_EQ(cmp("a\nABC\n", "a\nabc\n"), 0);
  EXPECT_EQ(cmp("a\n", "b\n"), 1);                          // header-only vs header-only
  EXPECT_EQ(cmp("a\n1\nx\n", "a\n1.0\nx\n"), 0);             // object column strings
  EXPECT_EQ(cmp("a\nTrue\n", "a\n1\n"), 1);
  EXPECT_EQ(cmp("a,b\n0,1\n", "a,b\n,1\n"), 1);              // NULL == 0
  EXPECT_EQ(cmp("a\nNA\n", "a\n0\n"), 1);                     // the country code NA becomes 0
  EXPECT_EQ(cmp("a\n1\n2\n", "a\n1\n"), 0);                   // lengths differ
}

TEST(Spider2Compare, SortIsByStringRepresentation) {
  std::vector<Cell> gold = {Cell::integer(10), Cell::integer(9)};
  std::vector<Cell> pred = {Cell::integer(9), Cell::integer(10)};
  EXPECT_TRUE(vectors_match(gold, pred, true));
  EXPECT_FALSE(vectors_match(gold, pred, false));
  // A string never equals a number.
  EXPECT_FALSE(vectors_match({Cell::str("1")}, {Cell::integer(1)}, false));
}

TEST(Spider2Compare, ConditionColsArePositional) {
  EXPECT_EQ(cmp("z\n5\n", "a,b\n1,5\n", json::array({1})), 1);
  EXPECT_EQ(cmp("z\n5\n", "a,b\n1,5\n", json::array({0})), 0);
  EXPECT_EQ(cmp("z\n5\n", "a,b\n1,5\n", json(0)), 0);  // int 0 is falsy: all gold columns
  EXPECT_THROW(cmp("z\n5\n", "a,b\n1,5\n", json::array({7})), std::out_of_range);
}

// ---- multi-gold condition_cols resolution (spec §4.3) ----

TEST(Spider2MultiGold, ResolutionRules) {
  auto r = resolve_condition_cols(json::array({json::array({1}), json::array({2, 3})}), 2);
  ASSERT_TRUE(r[0] && r[1]);
  EXPECT_EQ(*r[0], json::array({1}));
  EXPECT_EQ(*r[1], json::array({2, 3}));
  r = resolve_condition_cols(json::array({1, 3}), 3);  // flat list, several alternatives: same list
  EXPECT_EQ(*r[2], json::array({1, 3}));
  r = resolve_condition_cols(json::array({1, 3}), 1);  // flat list, one alternative: the first int
  EXPECT_EQ(*r[0], json(1));
  r = resolve_condition_cols(json::array({json::array({1})}), 2);  // too few: IndexError at alternative 1
  EXPECT_TRUE(r[0].has_value());
  EXPECT_FALSE(r[1].has_value());
  for (auto cc : {json(), json::array(), json::array({json::array()}), json::array({json()})}) {
    r = resolve_condition_cols(cc, 2);
    EXPECT_EQ(*r[0], json::array());
    EXPECT_EQ(*r[1], json::array());
  }
}

TEST(Spider2MultiGold, SingleAlternativeFlatListQuirk) {
  // bq383-like: condition_cols [1, 3] and only <id>_a.csv. Officially only column 1 is checked.
  Frame gold = csv("a,b,c,d\n1,2,3,4\n");
  Frame pred = csv("x\n2\n");
  EXPECT_EQ(score_against_golds(pred, {gold}, entry(json::array({1, 3}))), 1);
  // ... while the single-file (<id>.csv) path checks both listed columns.
  EXPECT_EQ(score_against_golds(pred, {gold}, entry(json::array({1, 3})), /*single_file=*/true), 0);
  // First index 0: the restriction is dropped and all gold columns must match.
  Frame pred0 = csv("x\n1\n");
  EXPECT_EQ(score_against_golds(pred0, {gold}, entry(json::array({0, 1}))), 0);
  EXPECT_EQ(score_against_golds(pred0, {gold}, entry(json::array({0, 1})), true), 0);
  Frame pred_all = csv("a,b,c,d\n1,2,3,4\n");
  EXPECT_EQ(score_against_golds(pred_all, {gold}, entry(json::array({0, 1}))), 1);
}

TEST(Spider2MultiGold, AnyAlternativeAndErrors) {
  Frame ga = csv("a\n1\n"), gb = csv("a\n2\n");
  Frame pred = csv("a\n2\n");
  EXPECT_EQ(score_against_golds(pred, {ga, gb}, entry(json::array())), 1);
  std::string err;
  // The second alternative has no condition_cols entry: IndexError -> 0 even though it would match.
  EXPECT_EQ(score_against_golds(pred, {ga, gb}, entry(json::array({json::array({0})})), false, &err), 0);
  EXPECT_NE(err.find("Python Script Error"), std::string::npos);
  // ... but an earlier match returns 1 before the error is reached.
  EXPECT_EQ(score_against_golds(csv("a\n1\n"), {ga, gb}, entry(json::array({json::array({0})}))), 1);
}

// ---- sql mode round trip (read_sql_query -> to_csv -> read_csv) ----

TEST(Spider2RoundTrip, ToCsvAndBack) {
  Table t;
  t.columns = {"n", "x", "s", "e"};
  t.rows = {{Value::integer(1), Value::integer(5), Value::text("007"), Value::null()},
            {Value::null(), Value::real(2.5), Value::text("a,b"), Value::null()}};
  std::string text = to_csv_text(t);
  EXPECT_EQ(text, "n,x,s,e\n1.0,5.0,007,\n,2.5,\"a,b\",\n");  // ints with NULL are written as floats
  Frame f = frame_from_table(t);
  EXPECT_EQ(f.columns[0].dtype, Dtype::Float64);
  EXPECT_EQ(f.columns[2].dtype, Dtype::Object);  // "a,b" keeps the column textual: "007" stays a string
  EXPECT_EQ(f.columns[2].cell(0).s, "007");
  // A single column of NULL is written as "" (not a blank line), so the row survives.
  Table one;
  one.columns = {"v"};
  one.rows = {{Value::null()}, {Value::integer(3)}};
  EXPECT_EQ(to_csv_text(one), "v\n\"\"\n3.0\n");  // ints + NULL in a chunk are floats
  EXPECT_EQ(frame_from_table(one).rows, 2u);
  // "007" alone round-trips to the integer 7, and text "NA" to NaN (-> 0).
  Table z;
  z.columns = {"v"};
  z.rows = {{Value::text("007")}, {Value::text("NA")}};
  Frame zf = frame_from_table(z);
  EXPECT_EQ(zf.columns[0].dtype, Dtype::Float64);
  EXPECT_DOUBLE_EQ(zf.columns[0].cell(0).f, 7.0);
  // Chunks of 500 rows are typed separately: ints stay ints in a chunk without NULL.
  Table big;
  big.columns = {"v"};
  for (int i = 0; i < 501; ++i) big.rows.push_back({i == 500 ? Value::null() : Value::integer(i)});
  std::string bt = to_csv_text(big);
  EXPECT_NE(bt.find("\n499\n"), std::string::npos);
  EXPECT_NE(bt.find("\n\"\"\n"), std::string::npos);
}

TEST(Spider2SqlExtraction, OfficialRegex) {
  EXPECT_EQ(answer::spider2_sql_block("text\n```sql\n SELECT 1 \n```\nmore ```sql\nSELECT 2\n```"), "SELECT 1");
  EXPECT_EQ(answer::spider2_sql_block("SELECT 3"), "SELECT 3");
  EXPECT_EQ(answer::spider2_sql_block("```sql\n\n```"), "");
  EXPECT_EQ(answer::spider2_sql_block("```sql SELECT 4```"), "```sql SELECT 4```");  // no newline: whole text
  EXPECT_EQ(answer::spider2_sql_block("```SQL\nSELECT 5\n```"), "```SQL\nSELECT 5\n```");  // case-sensitive
}

TEST(Spider2SqlExtraction, StripIsPythonsStrip) {
  // group(1).strip() removes Unicode whitespace too ("\u00a0SELECT 1\u3000\x1f".strip() == "SELECT 1").
  EXPECT_EQ(answer::spider2_sql_block("```sql\n\xc2\xa0SELECT 1\xe3\x80\x80\x1f\n```"), "SELECT 1");
  EXPECT_EQ(answer::spider2_sql_block("```sql\n\xe2\x80\x8bSELECT 1\n```"), "\xe2\x80\x8bSELECT 1");  // U+200B is not
}

// ---- --strict ----

TEST(Spider2Strict, FindsScrambledRowsAndStringSortMisses) {
  Frame gold = csv("a,b\n1,x\n2,y\n");
  Frame scrambled = csv("a,b\n1,y\n2,x\n");
  ASSERT_EQ(compare_frames(scrambled, gold, json::array(), true), 1);
  auto f = strict_findings(scrambled, gold, json::array(), true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("scrambled"), std::string::npos);
  EXPECT_TRUE(strict_findings(gold, gold, json::array(), true).empty());
  Frame g2 = csv("a\n2.0\n19.999\n"), p2 = csv("a\n20.0\n2.0\n");
  ASSERT_EQ(compare_frames(p2, g2, json::array(), true), 0);
  auto f2 = strict_findings(p2, g2, json::array(), true);
  ASSERT_EQ(f2.size(), 1u);
  EXPECT_NE(f2[0].find("string-representation sort"), std::string::npos);
}

// Arbitrary prediction text never crashes the reader or the comparison: it parses or raises InputError.
TEST(Spider2ValueModel, ArbitraryInputParsesOrRaisesInputError) {
  std::mt19937 rng(12345);
  const std::string alphabet = "ab,\"\n\r 0123456789.-eE+NATrueFlsn\t#/";
  Frame gold = csv("a,b\n1,x\n2.5,\n");
  size_t parsed = 0;
  for (int it = 0; it < 3000; ++it) {
    std::string text;
    size_t len = rng() % 40;
    for (size_t i = 0; i < len; ++i) text += alphabet[rng() % alphabet.size()];
    try {
      Frame f = csv(text);
      ++parsed;
      for (auto& c : f.columns) ASSERT_EQ(c.size(), f.rows);
      int s = compare_frames(f, gold, json::array(), it % 2 == 0);
      EXPECT_TRUE(s == 0 || s == 1);
      (void)strict_findings(f, gold, json::array(), true);
      (void)score_against_golds(f, {gold, gold}, entry(json::array({json::array({1})})));
      (void)v2::compare_multi(f, {gold, gold}, json::array(), false);
    } catch (const InputError&) {
    }
  }
  EXPECT_GT(parsed, 1000u);
}

// The one rule of a --json record (CLI and Python module alike): a run with instances has one, and so
// has every shard's run, even an empty one (merge needs all n parts); an unsharded empty run has none.
TEST(Spider2Record, AnEmptyRunHasARecordOnlyAsAShard) {
  spider2::Run run;
  EXPECT_FALSE(has_record(run));
  run.opt.shard = "2/3";
  EXPECT_TRUE(has_record(run));
  run.opt.shard.clear();
  run.items.emplace_back();
  EXPECT_TRUE(has_record(run));
}
