#pragma once
// Small string helpers (ASCII case folding, trimming, splitting, UTF-8 repair).
#include <string>
#include <string_view>
#include <vector>
#include <optional>

namespace sqlgrade {

std::string to_lower(std::string_view s);
// One character's ASCII lower case (others unchanged).
inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
std::string to_upper(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
bool starts_with_ci(std::string_view s, std::string_view prefix);
// C's isspace() in the "C" locale: space, \t, \n, \v, \f, \r (also pandas' C tokenizer's whitespace).
// Not Python's str.isspace(), which is py/str.hpp's.
inline bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
std::string_view trim_view(std::string_view s);  // is_ascii_space
std::string trim(std::string_view s);
// Collapse every run of whitespace (space, tab, CR, LF, VT, FF) into one space and trim.
std::string collapse_ws(std::string_view s);
std::vector<std::string> split(std::string_view s, std::string_view sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// "a", "a or b", "a, b or c": a list of choices for an error message.
std::string join_or(const std::vector<std::string>& parts);
std::string replace_all(std::string s, std::string_view from, std::string_view to);
// The first non-empty line of a message (CR and LF both end a line): errors are shown as one line,
// and DuckDB appends "Possible solutions:" paragraphs and "LINE 1: ..." context after the message.
std::string first_line(std::string_view msg);
// Drop bytes that are not part of valid UTF-8 sequences (Python's decode(errors="ignore")).
std::string utf8_lenient(std::string_view s);
bool is_valid_utf8(std::string_view s);

}  // namespace sqlgrade
