#pragma once
// Python str methods the official scripts apply, on UTF-8 text (CPython 3 semantics).
// The module py/ holds every piece of Python or pandas behaviour sqlgrade must reproduce to print the
// official numbers; benchmark modules call it instead of re-implementing it.
#include <cstddef>
#include <string>
#include <string_view>

namespace sqlgrade::py {

// str.isspace() of the character starting at s[i]: its length in bytes when it is whitespace (ASCII
// \t\n\v\f\r and space, \x1c-\x1f, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
// U+205F, U+3000), else 0. i < s.size().
size_t space_len(std::string_view s, size_t i);

// str.strip() with no argument: leading and trailing whitespace (space_len) removed. Invalid UTF-8 is
// kept as it is.
std::string strip(std::string_view s);

}  // namespace sqlgrade::py
