#pragma once
// BIRD printing internals. The renderers (render_text, render_log_block, render_json, summarize) are
// public: sqlgrade/bird.hpp.
#include <string>

#include "sqlgrade/bird.hpp"

namespace sqlgrade::bird {

// The table block shared by the scripts: header row, count row, "=== <metric> ===" line, score row.
// `sep` is the text between the '=' runs; empty buckets print "-".
std::string format_table(const Summary& s, const std::string& label, const std::string& separator);

}  // namespace sqlgrade::bird
