// Nesting bound of JSON inputs. See json.hpp.
#include "sqlgrade/core/json.hpp"

#include <algorithm>

#include "sqlgrade/errors.hpp"

namespace sqlgrade {

size_t json_depth(std::string_view s) {
  size_t depth = 0, max_depth = 0;
  bool in_str = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return max_depth;
}

void check_json_depth(std::string_view text, const std::string& file, long line) {
  if (json_depth(text) > kMaxJsonDepth)
    throw InputError(file, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels", line);
}

}  // namespace sqlgrade
