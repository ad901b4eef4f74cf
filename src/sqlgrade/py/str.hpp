#pragma once
// Python str methods the official scripts apply, on UTF-8 text (CPython 3 semantics; checked against
// CPython 3.11). The module py/ holds every piece of Python or pandas behaviour sqlgrade must
// reproduce to print the official numbers; benchmark modules call it instead of re-implementing it.
// Needed by: Spider test-suite exec_eval.py/parse.py (strip, split on predictions and --plug_value),
// the Spider/BIRD line readers (line.strip()), the NeMo Gym answer extraction (answer/, Python re \s
// and .strip()).
//
// Invalid UTF-8: CPython would not get this far (the official scripts decode strictly and raise);
// here a byte that is not part of a whitespace character as listed below is simply not whitespace
// (as if decoded with errors="surrogateescape"), so such text is kept, never mangled.
#include <cstddef>
#include <string>
#include <string_view>
#include <cstdint>
#include <vector>

namespace sqlgrade::py {

// str.isspace() of one code point: ASCII \t\n\v\f\r and space, \x1c-\x1f, U+0085, U+00A0, U+1680,
// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool is_space(uint32_t cp);

// str.isalpha() / str.isalnum() of one code point: Unicode letters (L*); letters and numbers (N*).
bool is_alpha(uint32_t cp);
bool is_alnum(uint32_t cp);

// The same for the character starting at s[i] (well-formed UTF-8 only): its length in bytes when it is
// whitespace, else 0. i < s.size().
size_t space_len(std::string_view s, size_t i);

// str.strip() with no argument: leading and trailing whitespace (space_len) removed. Invalid UTF-8 is
// kept as it is.
std::string strip(std::string_view s);
// The same, as a view into `s`.
std::string_view strip_view(std::string_view s);

// str.split() with no argument: the runs of non-whitespace (space_len), empty pieces dropped.
std::vector<std::string> split(std::string_view s);

}  // namespace sqlgrade::py
