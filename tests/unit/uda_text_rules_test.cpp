// UDA-Bench rules on real-world text: Unicode case, accents, composition and spaces in str cells,
// multi-value items and keys; values wrapped in quotes; signs.
// Expected scores are hand-computed from the rules in docs/uda.md.
#include <gtest/gtest.h>

#include <random>

#include "sqlgrade/uda/compare.hpp"
#include "sqlgrade/uda/judge/judge.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/uda/unicode.hpp"
#include "uda_test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::uda;

namespace {

std::optional<double> cell(CellKind k, Value pred, Value gold) { return rule_cell_score(k, pred, gold, 1e-4); }
Value txt(const std::string& s) { return Value::text(s); }

using sqlgrade::test::col;
using sqlgrade::test::make;

const std::string kNbsp = "\xc2\xa0";         // U+00A0 NO-BREAK SPACE
const std::string kThin = "\xe2\x80\x89";     // U+2009 THIN SPACE
const std::string kIdeo = "\xe3\x80\x80";     // U+3000 IDEOGRAPHIC SPACE
const std::string kAcute = "\xcc\x81";        // U+0301 COMBINING ACUTE ACCENT

}  // namespace

TEST(UdaUnicode, CaseAccentsAndCompositionInStrCells) {
  // Upper case with a non-ASCII letter, decomposed (NFD) vs precomposed (NFC), accents dropped.
  EXPECT_EQ(cell(CellKind::Str, txt("JULES CHÉRET"), txt("Jules Chéret")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt("Jules Che" + kAcute + "ret"), txt("Jules Chéret")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt("Jules Cheret"), txt("Jules Chéret")), 1.0);  // accents are ignored
  EXPECT_EQ(cell(CellKind::Str, txt("ÉCOLE DE PARIS"), txt("école de Paris")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt("STRASSE"), txt("Straße")), 1.0);             // full case folding
  EXPECT_EQ(cell(CellKind::Str, txt("ＡＢＣ Gallery"), txt("abc gallery")), 1.0);  // NFKC: full-width letters
  // Different letters stay different (left to the judge; the rules judge says no).
  EXPECT_FALSE(cell(CellKind::Str, txt("Jules Chérot"), txt("Jules Chéret")).has_value());
  EXPECT_FALSE(cell(CellKind::Str, txt("Müller"), txt("Mueller")).has_value());
  EXPECT_EQ(judge::normalize_for_compare("Dalí"), judge::normalize_for_compare("DALI"));
  EXPECT_EQ(judge::canonical_key("CHÉRET"), judge::canonical_key("cheret"));
}

TEST(UdaUnicode, UnicodeSpacesInCellsItemsAndKeys) {
  EXPECT_EQ(cell(CellKind::Str, txt("Tom" + kNbsp + "Gores"), txt("Tom Gores")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt(kIdeo + "Tom" + kThin + "Gores" + kNbsp), txt("Tom Gores")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt(kNbsp + kIdeo), Value::null()), 1.0);  // only spaces = empty
  EXPECT_EQ(judge::clean_cell("a" + kNbsp + kNbsp + "b ||" + kThin + "c"), "a b || c");
  EXPECT_EQ(judge::split_multi("red ||" + kNbsp + "|| small" + kIdeo), (std::vector<std::string>{"red", "small"}));

  judge::RulesJudge rules;
  // Multi-value items: every item matches without the judge.
  Table gold = make({"id", "owners"}, {{"1", "Jules Chéret || Tom Gores"}});
  Table pred = make({"id", "owners"}, {{"1", "tom" + kNbsp + "gores||JULES CHERET"}});
  std::vector<KeySpec> id{{"id", 0, 0, true}};
  auto m = evaluate_match(gold, pred, id, {col("owners", CellKind::Multi, 1, 1)}, MatchOptions{}, rules);
  EXPECT_EQ(m.columns[0].precision, 1.0);
  EXPECT_EQ(m.columns[0].recall, 1.0);
  EXPECT_EQ(m.judge_questions, 0u);

  // Group keys: a no-break space or a different case/accent in a key must not lose the row.
  Table g2 = make({"owner", "n"}, {{"Tom Gores", "2"}, {"Jules Chéret", "3"}});
  Table p2 = make({"owner", "n"}, {{"JULES CHERET", "3"}, {"Tom" + kNbsp + "Gores", "2"}});
  std::vector<KeySpec> group{{"owner", 0, 0, false}};
  MatchOptions mo;
  mo.group_keys_semantic = true;
  auto a = evaluate_match(g2, p2, group, {col("n", CellKind::Aggregate, 1, 1)}, mo, rules);
  EXPECT_EQ(a.pairs.size(), 2u);
  EXPECT_EQ(a.macro_f1, 1.0);
  // The exact phase (ids, join keys) folds the same way.
  EXPECT_EQ(key_text(txt("Tom" + kNbsp + "Gores"), false), key_text(txt("tom gores"), false));
  EXPECT_EQ(key_text(txt(kNbsp + "0007.txt" + kNbsp), true), "7");
}

TEST(UdaUnicode, InvalidUtf8FallsBackWithoutCrashing) {
  // A byte that is not UTF-8 is read as Latin-1: a Latin-1 "Chéret" still compares.
  EXPECT_EQ(cell(CellKind::Str, txt("Ch\xe9ret"), txt("Chéret")), 1.0);
  EXPECT_EQ(judge::normalize_for_compare("CH\xc9RET"), judge::normalize_for_compare("chéret"));
  // Garbage never equals a value and never counts as empty.
  EXPECT_FALSE(cell(CellKind::Str, txt("\xff\xfe\xfd"), txt("abc")).has_value());
  EXPECT_EQ(cell(CellKind::Str, txt("\xff\xfe"), Value::null()), 0.0);
  for (std::string bad : {"\xe2\x82", "\xf0\x9f\x98", "a\xc3", "\xed\xa0\x80x", "\xc0\xaf", "\xf8\x88\x80\x80\x80"}) {
    EXPECT_FALSE(judge::normalize_for_compare(bad).empty()) << bad;
    EXPECT_FALSE(judge::canonical_key(bad).empty()) << bad;
    (void)judge::split_multi(bad + "||" + bad);
    (void)judge::clean_cell(bad);
  }
  judge::RulesJudge rules;
  Table gold = make({"id", "tags"}, {{"1\xff", "a\xfe || b"}, {"2", "\xc3"}});
  Table pred = make({"id", "tags"}, {{"1\xff", "A\xfe||B"}, {"2", "\xc3\xc3"}});
  std::vector<KeySpec> id{{"id", 0, 0, true}};
  auto m = evaluate_match(gold, pred, id, {col("tags", CellKind::Multi, 1, 1)}, MatchOptions{}, rules);
  EXPECT_EQ(m.pairs.size(), 2u);
  EXPECT_NEAR(m.columns[0].precision, 0.5, 1e-12);  // row 1 fully right, row 2 wrong
}

// Random byte strings (mostly invalid UTF-8, quotes, signs, spaces): no crash, and every comparison
// form is valid UTF-8 without surrounding spaces.
TEST(UdaUnicode, RandomBytesGiveValidComparisonForms) {
  std::mt19937 rng(11);
  const std::string pieces[] = {"\"", "'", "-", "+", "1", ".", ",", " ", kNbsp, kAcute, "\xe2\x80\x9c", "\xe2\x88\x92",
                                "\xc3\xa9", "||", "a", "\xef\xbc\xa1", "\xe2\x80\x8b"};
  for (int n = 0; n < 20000; ++n) {
    std::string s;
    int len = rng() % 12;
    for (int k = 0; k < len; ++k) {
      if (rng() % 3 == 0) s += static_cast<char>(rng() % 256);
      else s += pieces[rng() % std::size(pieces)];
    }
    for (const std::string& form : {judge::normalize_for_compare(s), judge::canonical_key(s), unicode::fold(s)}) {
      ASSERT_TRUE(is_valid_utf8(form)) << s;
      ASSERT_TRUE(form.empty() || (form.front() != ' ' && form.back() != ' ')) << s;
    }
    (void)unicode::unquote(s);
    (void)judge::split_multi(s);
    (void)cell(CellKind::Float, txt(s), txt(s));
  }
}

TEST(UdaQuoted, NumbersDatesAndStringsInsideQuotes) {
  // Floats, ints and aggregates: quotes (ASCII or typographic) around a number do not hide it.
  EXPECT_EQ(cell(CellKind::Float, txt("\"-0.68\""), Value::real(-0.68)), 1.0);
  EXPECT_EQ(cell(CellKind::Float, txt("'-0.68'"), Value::real(-0.68)), 1.0);
  EXPECT_EQ(cell(CellKind::Float, txt("\xe2\x80\x9c-0.68\xe2\x80\x9d"), Value::real(-0.68)), 1.0);  // “-0.68”
  EXPECT_EQ(cell(CellKind::Float, txt("\"0.68\""), Value::real(-0.68)), 0.0);
  EXPECT_EQ(cell(CellKind::Int, txt("\"74.0\""), Value::integer(74)), 1.0);
  EXPECT_EQ(cell(CellKind::Int, txt("\" 1,200 \""), Value::integer(1200)), 1.0);
  EXPECT_EQ(cell(CellKind::Aggregate, txt("\"-5\""), Value::integer(-5)), 1.0);
  EXPECT_NEAR(cell(CellKind::Aggregate, txt("'110'"), Value::integer(100)).value(), 1 / 1.1, 1e-12);
  // Strings, numbers-as-text and dates.
  EXPECT_EQ(cell(CellKind::Str, txt("\"24\""), txt("24")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt("\"74.0\""), txt("74")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt("\"1842/1/27\""), txt("1842/1/27")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt("'1842-01-27'"), txt("1842/1/27")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt("\"Jules Chéret\""), txt("Jules Chéret")), 1.0);
  EXPECT_EQ(cell(CellKind::Str, txt("\"\""), Value::null()), 1.0);  // a quoted empty string is empty
  EXPECT_EQ(judge::normalize_for_compare("\"-0.68\""), judge::normalize_for_compare("-0.68"));
  // Keys and multi-value items.
  EXPECT_EQ(key_text(txt("\"0001\""), true), "1");
  EXPECT_EQ(key_text(txt("'7.txt'"), true), "7");
  judge::RulesJudge rules;
  Table gold = make({"id", "vals"}, {{"1", "-0.5 || 1842/1/27 || Paris"}});
  Table pred = make({"id", "vals"}, {{"\"1\"", "\"-0.5\" || \"1842-01-27\" || \"paris\""}});
  std::vector<KeySpec> id{{"id", 0, 0, true}};
  auto m = evaluate_match(gold, pred, id, {col("vals", CellKind::Multi, 1, 1)}, MatchOptions{}, rules);
  ASSERT_EQ(m.pairs.size(), 1u);
  EXPECT_EQ(m.columns[0].f1, 1.0);
}

TEST(UdaQuoted, SignIsNeverPunctuation) {
  // In text, a minus or plus sign in front of a number is kept.
  EXPECT_NE(judge::normalize_for_compare("temperature -5 degrees"), judge::normalize_for_compare("temperature 5 degrees"));
  EXPECT_FALSE(cell(CellKind::Str, txt("change of -3%"), txt("change of 3%")).has_value());
  EXPECT_FALSE(cell(CellKind::Str, txt("\"-0.68 points\""), txt("0.68 points")).has_value());
  EXPECT_EQ(cell(CellKind::Str, txt("(-3)"), txt("-3")), 1.0);
  EXPECT_EQ(cell(CellKind::Float, txt("\xe2\x88\x92" "0.68"), Value::real(-0.68)), 1.0);  // U+2212 MINUS SIGN
  // A hyphen inside a word or between numbers is still punctuation.
  EXPECT_EQ(judge::normalize_for_compare("COVID-19"), judge::normalize_for_compare("covid 19"));
  EXPECT_EQ(judge::normalize_for_compare("1990-2000"), judge::normalize_for_compare("1990 2000"));
}

// Issue 31: a quotation mark around a whole multi-value cell is the cell's, not its first and last
// items': removed before the split (as the plan reads a cell). Before, `"a||b||"` split into `"a`, `b`
// and a lone `"` — an item that counted in |pred| and matched nothing (P 2/3 instead of 1).
TEST(UdaQuoted, QuoteAroundAWholeMultiValueCellIsStrippedBeforeTheSplit) {
  using V = std::vector<std::string>;
  EXPECT_EQ(judge::split_multi("\"Painting||Drawing||\""), (V{"Painting", "Drawing"}));
  EXPECT_EQ(judge::split_multi("\"University of California, Berkeley||\""), (V{"University of California, Berkeley"}));
  EXPECT_EQ(judge::split_multi("' a || b '"), (V{"a", "b"}));
  EXPECT_EQ(judge::split_multi("\xe2\x80\x9c" "a || b ||" "\xe2\x80\x9d"), (V{"a", "b"}));  // “a || b ||”
  EXPECT_EQ(judge::split_multi("\" || a || b\""), (V{"a", "b"}));
  // Items quoted one by one keep their quotes (the item rules remove them), and so does a single value.
  EXPECT_EQ(judge::split_multi("\"a\" || \"b\""), (V{"\"a\"", "\"b\""}));
  EXPECT_EQ(judge::split_multi("\"a\"||b||\"c\""), (V{"\"a\"", "b", "\"c\""}));
  EXPECT_EQ(judge::split_multi("\"a, b\""), (V{"\"a, b\""}));
  // A quote inside the cell that wraps nothing whole is text.
  EXPECT_EQ(judge::split_multi("\"a||b"), (V{"\"a", "b"}));

  judge::RulesJudge rules;
  Table gold = make({"id", "schools"}, {{"1", "University of California, Berkeley||"},
                                        {"2", "Painting||Drawing||Photography"},
                                        {"3", "1842/1/27 || Paris"}});
  Table pred = make({"id", "schools"}, {{"1", "\"University of California, Berkeley||\""},
                                        {"2", "\"painting || drawing || photography ||\""},
                                        {"3", "\"1842-01-27\" || \"paris\""}});
  std::vector<KeySpec> id{{"id", 0, 0, true}};
  auto m = evaluate_match(gold, pred, id, {col("schools", CellKind::Multi, 1, 1)}, MatchOptions{}, rules);
  ASSERT_EQ(m.pairs.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(m.cells[0][k].p, 1.0) << "row " << k;  // before: 1/2, 3/4, 1
  EXPECT_EQ(m.columns[0].precision, 1.0);
  EXPECT_EQ(m.columns[0].recall, 1.0);
  EXPECT_EQ(m.judge_questions, 0u);
}
