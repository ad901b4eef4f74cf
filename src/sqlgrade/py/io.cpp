// Python text-mode reading — see io.hpp.
#include "sqlgrade/py/io.hpp"

#include "sqlgrade/core/fs.hpp"

namespace sqlgrade::py {

std::string universal_newlines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::vector<std::string> split_lines_universal(std::string_view text) {
  std::vector<std::string> lines;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r' || c == '\n') {
      lines.push_back(std::move(cur));
      cur.clear();
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(std::move(cur));
  return lines;
}

std::vector<std::string> read_lines_universal(const std::string& path, bool* had_bom) {
  std::string text = read_file(path);
  bool bom = strip_bom(text);
  if (had_bom) *had_bom = bom;
  return split_lines_universal(text);
}

}  // namespace sqlgrade::py
