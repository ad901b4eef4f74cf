#pragma once
// Python text-mode file reading: open(path) with newline=None (universal newlines), as the official
// scripts read predictions — Spider's readlines() (spider/) and Spider 2.0's read() of a .sql file
// (spider2/).
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::py {

// open(path).read() of `text`: "\r\n" and "\r" read as "\n"; every other byte kept.
std::string universal_newlines(std::string_view text);

// The lines of `text` as universal newlines see them: "\r\n", "\r" and "\n" each end a line; the
// terminators are removed; a last line without a terminator is kept; "" gives no lines.
std::vector<std::string> split_lines_universal(std::string_view text);

// The file's lines that way. A UTF-8 BOM is removed (reported through `had_bom`); invalid UTF-8 is
// kept. InputError naming the file when it cannot be read (or is over the input size limit).
std::vector<std::string> read_lines_universal(const std::string& path, bool* had_bom = nullptr);

}  // namespace sqlgrade::py
