#pragma once
// Text for a terminal: instance text is hostile (escape sequences, bidi overrides, invalid UTF-8),
// so it is made inert before it is printed; widths count code points.
#include <string>
#include <string_view>

namespace sqlgrade::runs {

// Invalid UTF-8 dropped; C0/C1 controls, DEL and bidi controls become spaces; whitespace runs
// collapse to one space; at most max_chars code points (the last one "…" when cut; 0 = no limit).
std::string terminal_safe(std::string_view s, size_t max_chars = 0);
size_t display_width(std::string_view s);  // code points
std::string pad_right(std::string s, size_t width);
std::string pad_left(std::string s, size_t width);

}  // namespace sqlgrade::runs
