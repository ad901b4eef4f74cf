#pragma once
// Helpers of the commands that grade several systems in one pass (repeatable prediction flag):
// where each system's run record goes, and the header line before each system's printed table.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"

namespace sqlgrade::cli {

// --json FILE (one system) or --json-dir DIR (any number): DIR/<name>.json where name is the
// prediction file's name without its last extension (preds/c3.txt → c3), preceded by as many parent
// folders as needed to tell the files apart, joined by "__" (c3/pred.txt and dail/pred.txt → c3__pred,
// dail__pred). Empty strings when no JSON is wanted. InputError when --json is given for several
// systems or one prediction file is given twice.
inline std::vector<std::string> record_paths(const std::vector<std::string>& preds, const std::string& json,
                                             const std::string& json_dir, const std::string& pred_flag) {
  std::vector<std::string> out(preds.size());
  if (!json.empty() && preds.size() > 1)
    throw InputError("--json", "one file for " + std::to_string(preds.size()) + " " + pred_flag +
                                   " files; use --json-dir DIR (one record per prediction file)");
  if (!json.empty()) out[0] = json;
  if (json_dir.empty()) return out;
  if (!json.empty()) throw InputError("--json-dir", "give either --json or --json-dir");
  std::vector<std::vector<std::string>> parts(preds.size());  // stem, parent, grandparent, ...
  size_t deepest = 0;
  for (size_t k = 0; k < preds.size(); ++k) {
    std::filesystem::path p = std::filesystem::absolute(preds[k]).lexically_normal();
    parts[k].push_back(p.stem().string().empty() ? "run" : p.stem().string());
    for (p = p.parent_path(); p.has_relative_path(); p = p.parent_path()) parts[k].push_back(p.filename().string());
    deepest = std::max(deepest, parts[k].size());
  }
  for (size_t depth = 1; depth <= deepest; ++depth) {
    std::set<std::string> seen;
    std::vector<std::string> names;
    for (const auto& ps : parts) {
      std::string name;
      for (size_t d = std::min(depth, ps.size()); d-- > 0;) name += ps[d] + (d ? "__" : "");
      names.push_back(name);
      seen.insert(name);
    }
    if (seen.size() < preds.size()) continue;
    std::error_code ec;
    std::filesystem::create_directories(json_dir, ec);
    if (!std::filesystem::is_directory(json_dir)) throw InputError(json_dir, "--json-dir is not a folder");
    for (size_t k = 0; k < preds.size(); ++k) out[k] = (std::filesystem::path(json_dir) / (names[k] + ".json")).string();
    return out;
  }
  throw InputError(pred_flag, "the same prediction file is given twice");
}

// Output files as IoPath (core/fs.hpp) for check_outputs_spare_inputs; empty paths are skipped.
inline std::vector<IoPath> io_paths(const std::vector<std::string>& files, const std::string& role) {
  std::vector<IoPath> out;
  for (const auto& f : files)
    if (!f.empty()) out.push_back({f, role});
  return out;
}

// --shard i/n into a benchmark's (index, count); an empty spec leaves them at 0 (everything).
inline void apply_shard(const std::string& spec, int& index, int& count) {
  if (spec.empty()) return;
  runs::Shard sh = runs::parse_shard(spec);
  index = sh.index;
  count = sh.count;
}

// With several systems, each one's printed output follows this line (head(1)'s style):
// "==> preds/c3.txt <==". One system prints exactly what the official script prints.
inline std::string system_header(const std::string& pred) { return "==> " + pred + " <==\n"; }

}  // namespace sqlgrade::cli
