// Spider 2.0-Lite: the run's input files — spider2lite_eval.jsonl, the metadata (spider2-lite.jsonl),
// folder listings, the gold alternatives of an id (spec §4.3) and the default paths beside the gold.
#include "sqlgrade/spider2/inputs.hpp"

#include <algorithm>

#include "sqlgrade/core/json.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade::spider2 {

namespace {

template <class F>
void for_each_json_line(const std::string& path, F&& f) {
  std::string text = read_file(path);
  strip_bom(text);
  long line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    ++line_no;
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    if (trim_view(line).empty()) continue;
    nlohmann::json j;
    check_json_depth(line, path, line_no);
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      throw InputError(path, std::string("invalid JSON: ") + e.what(), line_no);
    }
    if (!j.is_object() || !j.contains("instance_id") || !j["instance_id"].is_string())
      throw InputError(path, "expected an object with a string \"instance_id\"", line_no);
    f(j, line_no);
  }
}

}  // namespace

std::map<std::string, EvalEntry> load_eval_jsonl(const std::string& path) {
  std::map<std::string, EvalEntry> out;
  for_each_json_line(path, [&](const nlohmann::json& j, long line) {
    EvalEntry e;
    e.instance_id = j["instance_id"].get<std::string>();
    e.condition_cols = j.contains("condition_cols") ? j["condition_cols"] : nlohmann::json();
    if (j.contains("ignore_order")) {
      const auto& io = j["ignore_order"];
      if (io.is_boolean()) e.ignore_order = io.get<bool>();
      else if (io.is_number()) e.ignore_order = io.get<double>() != 0;
      else if (!io.is_null()) throw InputError(path, "ignore_order must be a boolean", line);
    }
    out[e.instance_id] = std::move(e);  // a later line wins, as with a Python dict
  });
  return out;
}

std::map<std::string, std::string> load_db_map(const std::string& path) {
  std::map<std::string, std::string> out;
  for_each_json_line(path, [&](const nlohmann::json& j, long) {
    if (j.contains("db") && j["db"].is_string()) out[j["instance_id"].get<std::string>()] = j["db"].get<std::string>();
  });
  return out;
}

GoldFiles resolve_gold_files(const std::string& dir, const std::string& id, const std::vector<std::string>& listing) {
  GoldFiles g;
  const std::string single = id + ".csv";
  if (std::binary_search(listing.begin(), listing.end(), single)) {
    g.single = true;
    g.paths.push_back((fs::path(dir) / single).string());
    return g;
  }
  // ^<id>(_[a-z])?\.csv$ , sorted by name (listing is sorted).
  for (auto& f : listing) {
    if (f.size() != id.size() + 6 || !std::string_view(f).starts_with(id)) continue;
    if (f[id.size()] == '_' && f[id.size() + 1] >= 'a' && f[id.size() + 1] <= 'z' && f.substr(id.size() + 2) == ".csv")
      g.paths.push_back((fs::path(dir) / f).string());
  }
  return g;
}

namespace {

std::string parent_of(const std::string& dir) {
  fs::path p(dir);
  if (!p.has_filename()) p = p.parent_path();  // trailing slash
  return (p.parent_path().empty() ? fs::path(".") : p.parent_path()).string();
}

}  // namespace

std::vector<std::string> sorted_listing(const std::string& dir, const std::string& what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, what + " directory not found");
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) || e.is_symlink(ec)) names.push_back(e.path().filename().string());
  if (ec) throw InputError(dir, "cannot list directory: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

std::string default_meta_path(const Options& opt) {
  if (!opt.meta.empty()) return opt.meta;
  return (fs::path(parent_of(opt.gold_dir)) / "spider2-lite.jsonl").string();
}

std::string default_db_dir(const Options& opt) {
  if (!opt.db_dir.empty()) return opt.db_dir;
  return (fs::path(parent_of(opt.gold_dir)) / "databases").string();
}

}  // namespace sqlgrade::spider2
