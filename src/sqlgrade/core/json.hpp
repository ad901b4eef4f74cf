#pragma once
// JSON inputs are nesting-bounded (issue 19, finding 12). nlohmann's parser itself is iterative, but
// copying, comparing, dumping and destroying a value recurse once per level, and so does every
// reader that walks a document: a 412 KB run record nested 200,000 deep crashed `diff`, `report` and
// `merge` (SIGSEGV, exit 139). Every JSON text sqlgrade reads — run records, predictions, gold and
// metadata files, JSONL lines, request bodies, stdin — is measured by json_depth first, in one
// linear pass without allocating, and refused beyond kMaxJsonDepth levels.
#include <cstddef>
#include <string>
#include <string_view>

namespace sqlgrade {

// Far above any document sqlgrade reads or writes (a run record nests about 6 levels, a request 5).
inline constexpr size_t kMaxJsonDepth = 256;

// Deepest nesting of arrays/objects in a JSON text (strings skipped; invalid JSON is measured too, the
// parser refuses it afterwards).
size_t json_depth(std::string_view s);

// InputError(file, "JSON nested deeper than 256 levels", line) when `text` nests deeper than
// kMaxJsonDepth; call it before parsing.
void check_json_depth(std::string_view text, const std::string& file, long line = 0);

}  // namespace sqlgrade
