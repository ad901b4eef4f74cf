// UDA-Bench rules on real-world text: Unicode case, accents, composition and spaces in str cells,
// multi-value items and keys.
// Expected scores are hand-computed from the rules in docs/uda.md.
#include <gtest/gtest.h>

#include "sqlgrade/compare/uda.hpp"
#include "sqlgrade/judge/judge.hpp"

using namespace sqlgrade;
using namespace sqlgrade::uda;

namespace {

std::optional<double> cell(CellKind k, Value pred, Value gold) { return rule_cell_score(k, pred, gold, 1e-4); }
Value txt(const std::string& s) { return Value::text(s); }

Table make(std::vector<std::string> cols, std::vector<std::vector<std::string>> rows) {
  Table t;
  t.columns = std::move(cols);
  for (auto& r : rows) {
    Row row;
    for (auto& v : r) row.push_back(v == "<null>" ? Value::null() : Value::text(v));
    t.rows.push_back(row);
  }
  return t;
}

ColumnSpec col(std::string name, CellKind kind, int gold_col, int pred_col) {
  ColumnSpec c;
  c.name = std::move(name);
  c.kind = kind;
  c.gold_col = gold_col;
  c.pred_col = pred_col;
  return c;
}

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
