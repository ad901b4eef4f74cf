// py/: Python str.strip()/str.isspace() and universal-newline line splitting. Expected values are
// what CPython 3.11 returns (e.g. " \u3000x\u00a0 ".strip() == "x", "\u200bx".strip() == "\u200bx").
#include <gtest/gtest.h>

#include "sqlgrade/py/io.hpp"
#include "sqlgrade/py/str.hpp"

using namespace sqlgrade;

TEST(PyStr, StripRemovesUnicodeWhitespaceLikeCPython) {
  EXPECT_EQ(py::strip(" \t x y \n"), "x y");
  EXPECT_EQ(py::strip("\xe3\x80\x80x\xc2\xa0 "), "x");         // U+3000, U+00A0
  EXPECT_EQ(py::strip("\x1c\x1fx\xc2\x85"), "x");              // \x1c-\x1f and U+0085 are str.isspace()
  EXPECT_EQ(py::strip("\xe2\x80\x8bx"), "\xe2\x80\x8bx");      // U+200B ZERO WIDTH SPACE is not
  EXPECT_EQ(py::strip("\xe2\x80\xafx\xe2\x81\x9f"), "x");      // U+202F, U+205F
  EXPECT_EQ(py::strip("   "), "");
  EXPECT_EQ(py::strip("\xff x \xff"), "\xff x \xff");          // invalid UTF-8 kept
}

TEST(PyStr, SpaceLenGivesTheCharacterLength) {
  EXPECT_EQ(py::space_len(" ", 0), 1u);
  EXPECT_EQ(py::space_len("\xe1\x9a\x80", 0), 3u);  // U+1680
  EXPECT_EQ(py::space_len("a", 0), 0u);
  EXPECT_EQ(py::space_len("\xc2\xa1", 0), 0u);      // U+00A1 is not whitespace
}

TEST(PyIo, UniversalNewlines) {
  using V = std::vector<std::string>;
  EXPECT_EQ(py::split_lines_universal("a\r\nb\rc\n"), (V{"a", "b", "c"}));
  // open(path).read(): "\r\n" and a lone "\r" become "\n"; "\n\r" is two line ends.
  EXPECT_EQ(py::universal_newlines("a\r\nb\rc\n\r"), "a\nb\nc\n\n");
  EXPECT_EQ(py::universal_newlines("\r\r\n"), "\n\n");
  EXPECT_EQ(py::split_lines_universal("a\n\nb"), (V{"a", "", "b"}));
  EXPECT_EQ(py::split_lines_universal("\r\r\n"), (V{"", ""}));
  EXPECT_EQ(py::split_lines_universal(""), V{});
}

TEST(PyStr, SplitLikeStrSplitWithNoArgument) {
  using V = std::vector<std::string>;
  EXPECT_EQ(py::split("  a b\t\nc  "), (V{"a", "b", "c"}));
  EXPECT_EQ(py::split("a\xc2\xa0" "b\xe3\x80\x80" "c"), (V{"a", "b", "c"}));  // NBSP, U+3000 separate
  EXPECT_EQ(py::split("a\xe2\x80\x8b" "b"), (V{"a\xe2\x80\x8b" "b"}));          // U+200B does not
  EXPECT_EQ(py::split(" \x1c "), V{});
  EXPECT_EQ(py::split(""), V{});
}

TEST(PyStr, StripViewAndInvalidUtf8) {
  std::string_view s = " \xc2\xa0x y\xe2\x80\x83 ";
  std::string_view v = py::strip_view(s);
  EXPECT_EQ(v, "x y");
  EXPECT_EQ(v.data(), s.data() + 3);  // a view into the argument
  // A byte that is not part of a whitespace character is not whitespace (as with surrogateescape):
  EXPECT_EQ(py::strip("x\xc2\xa0\x80"), "x\xc2\xa0\x80");  // stray continuation byte after NBSP
  EXPECT_EQ(py::strip("x\xe2\x80" "A"), "x\xe2\x80" "A");  // truncated U+2000 before 'A'
  EXPECT_EQ(py::strip("\xc0\xa0x"), "\xc0\xa0x");          // overlong encoding of ' '
}

TEST(PyStr, IsAlphaAndIsAlnumLikeCPython) {
  // str.isalpha(): Unicode letters (L*); str.isalnum(): letters and numbers (checked against CPython 3.11).
  for (uint32_t c : {uint32_t('a'), uint32_t('Z'), 0xE9u, 0xDFu, 0x3B1u, 0x4E00u, 0x2B0u})
    EXPECT_TRUE(py::is_alpha(c)) << c;  // a Z é ß α 一 ʰ
  for (uint32_t c : {uint32_t('0'), uint32_t('_'), uint32_t(' '), 0xA0u, 0x2026u, 0x663u, 0xDC80u})
    EXPECT_FALSE(py::is_alpha(c)) << c;  // 0 _ space NBSP … ٣ a lone surrogate
  for (uint32_t c : {uint32_t('7'), 0x663u, 0xB2u, 0x2166u, uint32_t('q')}) EXPECT_TRUE(py::is_alnum(c)) << c;  // ٣ ² Ⅶ
  for (uint32_t c : {uint32_t('_'), uint32_t('-'), 0x2026u, 0x3000u}) EXPECT_FALSE(py::is_alnum(c)) << c;
}
