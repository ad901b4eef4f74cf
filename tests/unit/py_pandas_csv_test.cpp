// py/pandas_csv: pandas.read_csv typing (pandas 1.5.3 defaults). Expected values are what pandas 1.5.3
// gives (spec shared/spec/official-evaluators.md §4.2, verified against the official script's pandas).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/pandas_csv.hpp"

using namespace sqlgrade;
using namespace sqlgrade::py;

namespace {
Frame csv(const std::string& text) { return frame_from_csv_text(text, "test.csv"); }
}  // namespace

TEST(PyPandasCsv, DtypeInference) {
  Frame f = csv("i,f,b,o,m,n\n1,1.5,True,x,1,\n007,2,false,1,,\n");
  ASSERT_EQ(f.width(), 6u);
  ASSERT_EQ(f.rows, 2u);
  EXPECT_EQ(f.columns[0].dtype, Dtype::Int64);
  EXPECT_EQ(f.columns[0].cell(1).i, 7);  // leading zeros parse as 7
  EXPECT_EQ(f.columns[1].dtype, Dtype::Float64);
  EXPECT_EQ(f.columns[1].cell(1).type, Cell::Type::Float);
  EXPECT_EQ(f.columns[2].dtype, Dtype::Bool);
  EXPECT_EQ(f.columns[2].cell(1).py_str(), "False");
  EXPECT_EQ(f.columns[3].dtype, Dtype::Object);  // numbers in an object column stay strings
  EXPECT_EQ(f.columns[3].cell(1).type, Cell::Type::Str);
  EXPECT_EQ(f.columns[3].cell(1).s, "1");
  EXPECT_EQ(f.columns[4].dtype, Dtype::Float64);  // int with NA -> float
  EXPECT_TRUE(f.columns[4].cell(1).is_nan());
  EXPECT_EQ(f.columns[5].dtype, Dtype::Float64);  // all NA -> float NaN
}

TEST(PyPandasCsv, NaStringsBlankLinesAndExponents) {
  Frame f = csv("a,b\nNA,1e3\n\n   \nnull,2\nN/A,3\n");
  ASSERT_EQ(f.rows, 3u);  // the blank and the whitespace-only lines are skipped
  for (size_t r = 0; r < f.columns[0].size(); ++r) EXPECT_TRUE(f.columns[0].at(r).is_nan());
  EXPECT_EQ(f.columns[1].dtype, Dtype::Float64);
  EXPECT_DOUBLE_EQ(f.columns[1].cell(0).f, 1000.0);
  // "None" is not an NA string in pandas 1.5.3.
  Frame g = csv("a\nNone\n");
  EXPECT_EQ(g.columns[0].cell(0).type, Cell::Type::Str);
}

TEST(PyPandasCsv, HeaderQuotesAndErrors) {
  Frame f = csv("\xEF\xBB\xBF" "a,a,\n\"x,y\",\"2\",\"\"\n");
  EXPECT_EQ(f.names(), (std::vector<std::string>{"a", "a.1", "Unnamed: 2"}));
  EXPECT_EQ(f.columns[0].cell(0).s, "x,y");
  EXPECT_EQ(f.columns[1].dtype, Dtype::Int64);  // quoting does not prevent numeric inference
  EXPECT_TRUE(f.columns[2].cell(0).is_nan());
  EXPECT_EQ(csv("a,a,a.1,a\n1,2,3,4\n").names(), (std::vector<std::string>{"a", "a.1", "a.1.1", "a.2"}));
  Frame shortrow = csv("a,b\n1\n");
  EXPECT_TRUE(shortrow.columns[1].cell(0).is_nan());
  EXPECT_THROW(csv(""), InputError);
  EXPECT_THROW(csv("a\n1\n1,2\n"), InputError);
  // One extra field on the first data row: an implicit index, not a column.
  Frame idx = csv("a\nx,1\ny,2\n");
  ASSERT_EQ(idx.width(), 1u);
  EXPECT_EQ(idx.columns[0].dtype, Dtype::Int64);
  EXPECT_EQ(idx.columns[0].cell(1).i, 2);
  Frame hdr = csv("a,b\n");
  EXPECT_EQ(hdr.rows, 0u);
}

TEST(PyPandasCsv, LowMemoryChunksAreTypedSeparately) {
  // One column: chunks of 2**19 rows. The first chunk is all integers, the second has a word, so the
  // column is object with the first chunk's values still integers (pandas DtypeWarning case).
  const size_t n = (size_t{1} << 19) + 1;
  std::string text = "v\n";
  text.reserve(n * 3);
  for (size_t i = 0; i + 1 < n; ++i) text += "1\n";
  text += "x\n";
  Frame f = csv(text);
  ASSERT_EQ(f.rows, n);
  EXPECT_EQ(f.columns[0].dtype, Dtype::Object);
  EXPECT_EQ(f.columns[0].cell(0).type, Cell::Type::Int);
  EXPECT_EQ(f.columns[0].cell(n - 1).type, Cell::Type::Str);
  // int chunk + float chunk -> float64.
  std::string t2 = "v\n";
  for (size_t i = 0; i + 1 < n; ++i) t2 += "2\n";
  t2 += "2.5\n";
  Frame g = csv(t2);
  EXPECT_EQ(g.columns[0].dtype, Dtype::Float64);
  EXPECT_EQ(g.columns[0].cell(0).type, Cell::Type::Float);
}
