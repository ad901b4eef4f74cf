// Reply parsers of the LLM judge (see llm_parse.hpp).
#include "sqlgrade/uda/judge/llm_parse.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "sqlgrade/core/text.hpp"

namespace sqlgrade::uda::judge {

namespace {

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (is_alpha(c)) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

}  // namespace

std::string strip_reasoning(std::string_view reply) {
  std::string s(reply);
  for (;;) {
    std::string low = to_lower(s);
    size_t open = low.find("<think>");
    if (open == std::string::npos) break;
    size_t close = low.find("</think>", open);
    if (close == std::string::npos) {
      s.erase(open);  // cut off mid-thought: nothing after it is an answer
      break;
    }
    s.erase(open, close + 8 - open);
  }
  return trim(s);
}

std::optional<bool> parse_yes_no(std::string_view reply) {
  std::string s = strip_reasoning(reply);
  for (auto& w : words(s)) {
    if (w == "yes" || w == "true") return true;
    if (w == "no" || w == "false") return false;
  }
  // Chinese-tuned models sometimes answer in Chinese: 是 (yes), 否 / 不是 / 不 (no), after any
  // leading punctuation or markup.
  size_t i = 0;
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  std::string_view rest = std::string_view(s).substr(i);
  if (rest.rfind("\xE6\x98\xAF", 0) == 0) return true;                                 // 是
  if (rest.rfind("\xE5\x90\xA6", 0) == 0 || rest.rfind("\xE4\xB8\x8D", 0) == 0) return false;  // 否, 不
  return std::nullopt;
}

std::optional<size_t> parse_count(std::string_view reply, size_t max_count) {
  std::string s = strip_reasoning(reply);
  for (size_t i = 0; i < s.size(); ++i) {
    if (!is_digit(s[i])) continue;
    size_t j = i;
    while (j < s.size() && is_digit(s[j])) ++j;
    if (i > 0 && s[i - 1] == '-') return std::nullopt;                                // negative
    if (j + 1 < s.size() && s[j] == '.' && is_digit(s[j + 1])) return std::nullopt;  // 1.5
    if (j - i > 9) return max_count;                                                 // absurd: clamp
    size_t v = std::stoul(s.substr(i, j - i));
    return std::min(v, max_count);
  }
  static const std::array<std::string_view, 21> kWords = {
      "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
      "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"};
  for (auto& w : words(s)) {
    if (w == "none") return 0;
    for (size_t k = 0; k < kWords.size(); ++k)
      if (w == kWords[k]) return std::min(k, max_count);
  }
  return std::nullopt;
}

}  // namespace sqlgrade::uda::judge
