#pragma once
// Helpers of the commands that grade several systems in one pass (repeatable prediction flag):
// where each system's run record goes, and the header line before each system's printed table.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "sqlgrade/errors.hpp"

namespace sqlgrade::cli {

// --json FILE (one system) or --json-dir DIR (any number: DIR/<prediction file name without its
// last extension>.json, e.g. preds/c3.txt → DIR/c3.json). Empty strings when no JSON is wanted.
// InputError when --json is given for several systems or two prediction files share a name.
inline std::vector<std::string> record_paths(const std::vector<std::string>& preds, const std::string& json,
                                             const std::string& json_dir, const std::string& pred_flag) {
  std::vector<std::string> out(preds.size());
  if (!json.empty() && preds.size() > 1)
    throw InputError("--json", "one file for " + std::to_string(preds.size()) + " " + pred_flag +
                                   " files; use --json-dir DIR (one record per prediction file)");
  if (!json.empty()) out[0] = json;
  if (json_dir.empty()) return out;
  if (!json.empty()) throw InputError("--json-dir", "give either --json or --json-dir");
  std::error_code ec;
  std::filesystem::create_directories(json_dir, ec);
  if (!std::filesystem::is_directory(json_dir)) throw InputError(json_dir, "--json-dir is not a folder");
  std::set<std::string> seen;
  for (size_t k = 0; k < preds.size(); ++k) {
    std::string stem = std::filesystem::path(preds[k]).stem().string();
    if (stem.empty()) stem = "run";
    if (!seen.insert(stem).second)
      throw InputError(preds[k], "another " + pred_flag + " file has the same name; its record would be overwritten in " + json_dir);
    out[k] = (std::filesystem::path(json_dir) / (stem + ".json")).string();
  }
  return out;
}

// With several systems, each one's printed output follows this line (head(1)'s style):
// "==> preds/c3.txt <==". One system prints exactly what the official script prints.
inline std::string system_header(const std::string& pred) { return "==> " + pred + " <==\n"; }

}  // namespace sqlgrade::cli
