// Spider2 evaluation v2 (evaluate_v2.py, spec §5): name normalisation, value normalisation,
// column/row/overall metrics, multi-gold choice.
#include <gtest/gtest.h>

#include "sqlgrade/spider2/compare_v2.hpp"

using namespace sqlgrade::spider2;
using nlohmann::json;

namespace {
Frame v2_csv(const std::string& text) { return frame_from_csv_text(text, "test.csv"); }
}  // namespace

TEST(Spider2V2, ColumnNameNormalisation) {
  EXPECT_EQ(v2::normalize_column_name("Customer_ID_Number"), "customer identifier number");
  EXPECT_EQ(v2::normalize_column_name("  The  Count_of_Orders "), "number orders");
  EXPECT_EQ(v2::normalize_column_name("pk"), "primary key");
  EXPECT_EQ(v2::normalize_column_name("week_date"), v2::normalize_column_name("Week Date"));
  EXPECT_EQ(v2::normalize_column_name("unique_regions"), v2::normalize_column_name("Distinct Regions"));
}

TEST(Spider2V2, ValueNormalisation) {
  EXPECT_EQ(v2::normalize_value(Cell::nan()), "NaN");
  EXPECT_EQ(v2::normalize_value(Cell::real(1.0)), "1.0");
  EXPECT_EQ(v2::normalize_value(Cell::real(5.0)), "5.0");
  EXPECT_EQ(v2::normalize_value(Cell::integer(5)), "5");  // int 5 != float 5.0 (quirk)
  EXPECT_EQ(v2::normalize_value(Cell::real(0.005)), "0.01");
  EXPECT_EQ(v2::normalize_value(Cell::real(0.0049)), "0.0");
  EXPECT_EQ(v2::normalize_value(Cell::real(-0.001)), "-0.0");
  EXPECT_EQ(v2::normalize_value(Cell::real(2.675)), "2.67");  // binary 2.67499999...
  EXPECT_EQ(v2::normalize_value(Cell::real(0.125)), "0.12");   // exact tie: half to even, as Python
  EXPECT_EQ(v2::normalize_value(Cell::real(0.375)), "0.38");
  EXPECT_EQ(v2::normalize_value(Cell::real(1e20)), "1e+20");
  EXPECT_EQ(v2::normalize_value(Cell::boolean(true)), "True");
  EXPECT_EQ(v2::normalize_value(Cell::str("AbC")), "abc");
  EXPECT_EQ(v2::normalize_value(Cell::str("nan")), "nan");  // != "NaN"
}

TEST(Spider2V2, Metrics) {
  // pred has an extra column and one wrong row; names match after normalisation.
  Frame gold = v2_csv("Customer_ID,Total\n1,10.0\n2,20.0\n3,30.0\n");
  Frame pred = v2_csv("customer id,total,extra\n1,10.001,x\n2,20.0,y\n4,40.0,z\n");
  v2::Result r = v2::compare(pred, gold, json::array());
  EXPECT_EQ(r.columns.tp, (std::vector<std::string>{"customer identifier", "total"}));
  EXPECT_EQ(r.columns.fp, (std::vector<std::string>{"extra"}));
  EXPECT_TRUE(r.columns.fn.empty());
  EXPECT_DOUBLE_EQ(r.columns.precision, 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.columns.recall, 1.0);
  EXPECT_DOUBLE_EQ(r.columns.f1, 0.8);
  EXPECT_EQ(r.rows.tp, 2);
  EXPECT_EQ(r.rows.fp, 1);
  EXPECT_EQ(r.rows.fn, 1);
  EXPECT_EQ(r.score, 0);
  EXPECT_EQ(r.overall.tp, 4);
  EXPECT_EQ(r.overall.fp, 2);
  EXPECT_EQ(r.overall.fn, 1);
  // Exact match modulo case, order and rounding -> score 1.
  Frame p2 = v2_csv("TOTAL,customer_id\n30,3\n10,1\n20,2\n");
  EXPECT_EQ(v2::compare(p2, v2_csv("Customer_ID,Total\n1,10.0\n2,20.0\n3,30.0\n"), json::array()).score, 0)
      << "int 10 vs float 10.0 differ after normalisation";
  Frame p3 = v2_csv("TOTAL,customer_id\n30.004,3\n10.0,1\n20.0,2\n");
  EXPECT_EQ(v2::compare(p3, gold, json::array()).score, 1);
  // Duplicates: greedy one-to-one matching.
  v2::Result d = v2::compare(v2_csv("a\nx\nx\n"), v2_csv("a\nx\ny\n"), json::array());
  EXPECT_EQ(d.rows.tp, 1);
  // Both empty -> row F1 0 -> score 0.
  EXPECT_EQ(v2::compare(v2_csv("a\n"), v2_csv("a\n"), json::array()).score, 0);
  // No common column.
  v2::Result n = v2::compare(v2_csv("p\n1\n"), v2_csv("q\n1\n2\n"), json::array());
  EXPECT_EQ(n.rows.fp, 1);
  EXPECT_EQ(n.rows.fn, 2);
  EXPECT_DOUBLE_EQ(n.rows.f1, 0.0);
}

TEST(Spider2V2, ConditionColsAndMultiGold) {
  Frame gold = v2_csv("id,name,score\n1,a,5\n");
  Frame pred = v2_csv("name\nA\n");
  EXPECT_EQ(v2::compare(pred, gold, json::array({1})).score, 1);
  EXPECT_THROW(v2::compare(pred, gold, json::array({5})), std::out_of_range);
  Frame alt_b = v2_csv("name,score\nb,5\n");
  v2::Result m = v2::compare_multi(pred, {alt_b, gold}, json::array({json::array(), json::array({1})}), false);
  EXPECT_EQ(m.score, 1);
  v2::Result bad = v2::compare_multi(v2_csv("name,x\nz,1\n"), {alt_b, gold}, json::array(), false);
  EXPECT_EQ(bad.score, 0);
  EXPECT_DOUBLE_EQ(bad.columns.f1, 2 * 0.5 * 0.5 / 1.0);  // best column F1 (alternative b)
  // Single alternative with a flat list: all listed columns (fix; the Python script would crash).
  EXPECT_EQ(v2::compare_multi(v2_csv("name,score\na,5\n"), {gold}, json::array({1, 2}), false).score, 1);
}
