#pragma once
// A small emulation of the parts of python-sqlparse 0.4.2 that the test-suite evaluator
// (taoyds/test-suite-sql-eval) depends on for its execution check:
//   - the lexer (token boundaries and the token types Whitespace / Newline / comments / strings /
//     names / numbers / punctuation), written from sqlparse's documented lexing rules;
//   - the statement splitter (`sqlparse.parse(s)[0]` keeps only the FIRST statement);
//   - remove_distinct (drop every token whose lower-cased text is exactly "distinct");
// (the lexer is sqlparse.cpp, the statement splitter and remove_distinct sqlparse_statement.cpp).
// The --plug_value value extraction and candidate generation built on it are in plug_value.hpp.
// Known gaps (documented in docs/spider-exec.md): non-ASCII characters are classified approximately
// (Python's Unicode \w and \s are not reproduced code point by code point), the keyword upper-casing
// and line-trailing-space removal done by sqlparse.format are not reproduced because the tokens are
// lower-cased afterwards and whitespace is split away (they cannot change the candidates except
// inside string literals spanning lines).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::spider::sqlparse {

enum class TokType : uint8_t {
  Whitespace,        // one whitespace character other than a newline (sqlparse `\s+?`)
  Newline,           // \r\n, \r or \n
  CommentSingle,     // -- ... or "# " ..., including the line end
  CommentMultiline,  // /* ... */
  StringSingle,      // '...'
  StringSymbol,      // "..."
  Name,
  Keyword,
  Number,
  Punctuation,  // ; : ( ) [ ] , . and ::
  Operator,
  Comparison,
  Wildcard,
  Placeholder,
  Literal,  // $tag$ ... $tag$
  Command,
  Assignment,
  Error  // a character no rule matches (sqlparse emits it as an Error token)
};

// A token points into the text it was read from (16 bytes: a prediction of 30 million one-byte tokens
// costs 480 MB here, not 1.4 GB as strings). The text must outlive its tokens.
struct Token {
  TokType type;
  uint32_t len;
  const char* ptr;
  std::string_view text() const { return {ptr, len}; }
};

// The flat token list of the whole text (sqlparse's lexer); the tokens point into `sql`. Texts of
// 4 GiB or more are not supported (the input limit, --max-input-mb, stays below that).
std::vector<Token> tokenize(std::string_view sql);

// The tokens of the first statement as `sqlparse.parse(sql)[0].flatten()` returns them.
// `found` is false when sqlparse would return no statement at all (empty or whitespace-only text),
// where the official code raises IndexError.
std::vector<Token> first_statement(std::string_view sql, bool* found = nullptr);

// parse.remove_distinct: the first statement with every `distinct` token dropped, the other tokens
// concatenated unchanged. Returns "" with *found=false when there is no statement.
std::string remove_distinct(std::string_view sql, bool* found = nullptr);

// Helpers shared with plug_value.cpp: ASCII lower-casing; the length of the UTF-8 character at s[i]
// (1 for an invalid byte). Python's str.strip()/str.split() are py::strip/py::split (py/str.hpp).
std::string lower_ascii(std::string_view s);
size_t char_len_at(std::string_view s, size_t i);

}  // namespace sqlgrade::spider::sqlparse
