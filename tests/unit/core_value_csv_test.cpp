#include <gtest/gtest.h>

#include <cmath>

#include "sqlgrade/core/csv.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/core/value.hpp"

using namespace sqlgrade;

TEST(Text, WhitespaceAndUtf8) {
  EXPECT_EQ(collapse_ws("  a \t b\n\nc  "), "a b c");
  EXPECT_EQ(utf8_lenient("a\xff\xfe" "b\xc3\xa9"), "ab\xc3\xa9");
  EXPECT_FALSE(is_valid_utf8("\xc3"));
}

TEST(Text, JoinOrListsChoicesForAMessage) {
  EXPECT_EQ(join_or({}), "");
  EXPECT_EQ(join_or({"a"}), "a");
  EXPECT_EQ(join_or({"a", "b"}), "a or b");
  EXPECT_EQ(join_or({"a", "b", "c"}), "a, b or c");
}

TEST(Csv, BomCrlfQuotedNewlines) {
  std::string text = "\xEF\xBB\xBFid,name,note\r\n1,\"Smith, J\",\"line1\nline2\"\r\n2,\"say \"\"hi\"\"\",\r\n\r\n3,x";
  CsvData d = parse_csv(text, "t.csv");
  ASSERT_EQ(d.header, (std::vector<std::string>{"id", "name", "note"}));
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(d.rows[0][1], "Smith, J");
  EXPECT_EQ(d.rows[0][2], "line1\nline2");
  EXPECT_EQ(d.rows[1][1], "say \"hi\"");
  EXPECT_EQ(d.rows[1][2], "");
  EXPECT_EQ(d.rows[2], (std::vector<std::string>{"3", "x", ""}));  // short row padded
  EXPECT_EQ(d.line[0], 2);
  EXPECT_EQ(d.line[1], 4);
  EXPECT_EQ(d.line[2], 6);
  EXPECT_TRUE(d.quoted[0][1]);
  EXPECT_FALSE(d.quoted[0][0]);
}

TEST(Csv, RaggedRowIsAnErrorWithLine) {
  try {
    parse_csv("a,b\n1,2\n1,2,3\n", "bad.csv");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.csv");
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("bad.csv:3:"), std::string::npos);
  }
  EXPECT_THROW(parse_csv("a\n\"open", "u.csv"), InputError);
}

TEST(Csv, TrailingEmptyFieldsOnlyWhenAllowed) {
  CsvOptions opt;
  opt.allow_trailing_empty = true;
  auto d = parse_csv("a,b\n1,2,\n3,4\n5,6,,\n", "t.csv", opt);
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(d.rows[0], (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(d.trailing_empty_lines, (std::vector<long>{2, 4}));
  EXPECT_THROW(parse_csv("a,b\n1,2,x\n", "t.csv", opt), InputError);    // content is never dropped
  EXPECT_THROW(parse_csv("a,b\n1,2,\"\"\n", "t.csv", opt), InputError);  // nor a quoted field
  EXPECT_THROW(parse_csv("a,b\n1,2,\n", "t.csv"), InputError);          // off by default
}

TEST(Csv, WriteRoundTrip) {
  std::vector<std::string> f{"plain", "with,comma", "with \"quote\"", "multi\nline", ""};
  std::string line = csv_line(f);
  EXPECT_EQ(line, "plain,\"with,comma\",\"with \"\"quote\"\"\",\"multi\nline\",\n");
  CsvData d = parse_csv("h1,h2,h3,h4,h5\n" + line, "x");
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(d.rows[0], f);
}
