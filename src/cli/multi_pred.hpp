#pragma once
// Helpers of the commands that grade several systems in one pass (repeatable prediction flag):
// where each system's run record goes, and the header line before each system's printed table.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"

namespace sqlgrade::cli {

// Names that tell the prediction paths apart: the last component (`stem`: without its extension),
// preceded by as many parent folders as needed for every name to differ, joined by `sep`. Empty when
// two paths are the same file.
inline std::vector<std::string> distinct_names(const std::vector<std::string>& preds, bool stem, const std::string& sep) {
  std::vector<std::vector<std::string>> parts(preds.size());  // last component, parent, grandparent, ...
  size_t deepest = 0;
  for (size_t k = 0; k < preds.size(); ++k) {
    std::filesystem::path p = std::filesystem::absolute(preds[k]).lexically_normal();
    if (!p.has_filename()) p = p.parent_path();  // a folder given as "dir/"
    const std::string last = stem ? p.stem().string() : p.filename().string();
    parts[k].push_back(last.empty() ? "run" : last);
    for (p = p.parent_path(); p.has_relative_path(); p = p.parent_path()) parts[k].push_back(p.filename().string());
    deepest = std::max(deepest, parts[k].size());
  }
  for (size_t depth = 1; depth <= deepest; ++depth) {
    std::set<std::string> seen;
    std::vector<std::string> names;
    for (const auto& ps : parts) {
      std::string name;
      for (size_t d = std::min(depth, ps.size()); d-- > 0;) name += ps[d] + (d ? sep : "");
      names.push_back(name);
      seen.insert(name);
    }
    if (seen.size() == preds.size()) return names;
  }
  return {};
}

// The label of each system in the run record, the printed headers, `diff` and the report: --name
// (repeatable, one per prediction file, in order) or else the prediction's file name, preceded by as
// many parent folders as needed to tell the systems apart (c3/pred.txt and dail/pred.txt → "c3/pred.txt",
// "dail/pred.txt"; a single system keeps its file name). InputError when the count of --name differs
// from the count of predictions, a name is empty or two names are equal.
inline std::vector<std::string> system_labels(const std::vector<std::string>& preds, const std::vector<std::string>& names,
                                              const std::string& pred_flag) {
  if (names.empty()) {
    std::vector<std::string> out = distinct_names(preds, false, "/");
    if (out.empty()) throw InputError(pred_flag, "the same prediction is given twice");
    return out;
  }
  if (names.size() != preds.size())
    throw InputError("--name", std::to_string(names.size()) + " name(s) for " + std::to_string(preds.size()) + " " + pred_flag +
                                   " (give one --name per system, in the same order)");
  std::set<std::string> seen;
  for (const auto& n : names) {
    if (n.empty()) throw InputError("--name", "a system name may not be empty");
    if (!seen.insert(n).second) throw InputError("--name", "'" + n + "' is given twice: each system needs its own name");
  }
  return names;
}

// A --name as a file name for --json-dir: characters other than letters, digits, '.', '-' and '_'
// become '_' (a name may hold '/' or spaces).
inline std::string file_safe(const std::string& name) {
  std::string out;
  for (unsigned char c : name) out += (std::isalnum(c) || c == '.' || c == '-' || c == '_') ? static_cast<char>(c) : '_';
  if (out.empty() || out == "." || out == "..") out = "run" + out;
  return out;
}

// --json FILE (one system) or --json-dir DIR (any number): DIR/<name>.json where name is the --name
// given (file_safe) or else the prediction file's name without its last extension (preds/c3.txt → c3),
// preceded by as many parent folders as needed to tell the files apart, joined by "__" (c3/pred.txt and
// dail/pred.txt → c3__pred, dail__pred). Empty strings when no JSON is wanted. InputError when --json is
// given for several systems, one prediction file is given twice or two names give one file.
inline std::vector<std::string> record_paths(const std::vector<std::string>& preds, const std::string& json,
                                             const std::string& json_dir, const std::string& pred_flag,
                                             const std::vector<std::string>& names = {}) {
  std::vector<std::string> out(preds.size());
  if (!json.empty() && preds.size() > 1)
    throw InputError("--json", "one file for " + std::to_string(preds.size()) + " " + pred_flag +
                                   " files; use --json-dir DIR (one record per prediction file)");
  if (!json.empty()) out[0] = json;
  if (json_dir.empty()) return out;
  if (!json.empty()) throw InputError("--json-dir", "give either --json or --json-dir");
  std::vector<std::string> stems;
  if (names.empty()) {
    stems = distinct_names(preds, true, "__");
    if (stems.empty()) throw InputError(pred_flag, "the same prediction file is given twice");
  } else {
    std::set<std::string> seen;
    for (const auto& n : names) {
      stems.push_back(file_safe(n));
      if (!seen.insert(stems.back()).second)
        throw InputError("--name", "two names give the record file " + stems.back() + ".json in --json-dir");
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(json_dir, ec);
  if (!std::filesystem::is_directory(json_dir)) throw InputError(json_dir, "--json-dir is not a folder");
  for (size_t k = 0; k < preds.size(); ++k) out[k] = (std::filesystem::path(json_dir) / (stems[k] + ".json")).string();
  return out;
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
// "==> preds/c3.txt <==", or with --name "==> c3sql (preds/c3.txt) <==". One system prints exactly
// what the official script prints.
inline std::string system_header(const std::string& pred, const std::string& name = {}) {
  return "==> " + (name.empty() || name == pred ? pred : name + " (" + pred + ")") + " <==\n";
}

}  // namespace sqlgrade::cli
