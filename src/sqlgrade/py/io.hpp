#pragma once
// Python text-mode file reading (open(path).readlines() with universal newlines).
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::py {

// The lines of `text` as universal newlines see them: "\r\n", "\r" and "\n" each end a line; the
// terminators are removed; a last line without a terminator is kept; "" gives no lines.
std::vector<std::string> split_lines_universal(std::string_view text);

// The file's lines that way. A UTF-8 BOM is removed (reported through `had_bom`); invalid UTF-8 is
// kept. InputError naming the file when it cannot be read (or is over the input size limit).
std::vector<std::string> read_lines_universal(const std::string& path, bool* had_bom = nullptr);

}  // namespace sqlgrade::py
