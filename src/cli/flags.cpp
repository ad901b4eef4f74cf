// The shared flag vocabulary, both spellings of every flag, and "did you mean" (flags.hpp).
#include "flags.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>

#include "sqlgrade/exec/benchmark.hpp"

#include "cli_common.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade::cli {

namespace {

std::string names(const std::string& canonical, const std::string& official) {
  return official.empty() ? canonical : canonical + "," + official;
}

// Hyphen and underscore are one character to the lookup: "db_root_path" and "db-root-path".
std::string spelling_key(std::string s) {
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

std::vector<const CLI::App*> subcommands_of(const CLI::App* a) {
  return a->get_subcommands(std::function<bool(const CLI::App*)>{});
}

// The long names (without "--") known where `path` ends: its own and, through fallthrough, its parents'.
std::vector<std::string> long_names(const std::vector<const CLI::App*>& path) {
  std::vector<std::string> out;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    for (const CLI::Option* o : (*it)->get_options())
      for (const auto& n : o->get_lnames()) out.push_back(n);
    if (!(*it)->get_fallthrough()) break;
  }
  return out;
}

// The option a long name reaches on `path` (for "does it take a value").
const CLI::Option* option_named(const std::vector<const CLI::App*>& path, const std::string& name) {
  for (auto it = path.rbegin(); it != path.rend(); ++it)
    for (const CLI::Option* o : (*it)->get_options())
      for (const auto& n : o->get_lnames())
        if (n == name) return o;
  return nullptr;
}

// The candidate closest to `typed` when it is close enough to be what was meant: a distance of at most
// 1 for short names, 2 up to 6 characters, 3 beyond (keys compared, so "_" and "-" do not count).
std::optional<std::string> closest(const std::string& typed, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_d = 0;
  const std::string t = spelling_key(typed);
  const size_t limit = t.size() <= 3 ? 1 : t.size() <= 6 ? 2 : 3;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(t, spelling_key(c));
    if (d <= limit && (!best || d < best_d)) best = c, best_d = d;
  }
  return best;
}

// "uda eval" ("" at the top): the error then reads "sqlgrade: uda eval: unknown flag ...".
std::string path_name(const std::vector<const CLI::App*>& path) {
  std::string s;
  for (size_t k = 1; k < path.size(); ++k) s += (k > 1 ? " " : "") + path[k]->get_name();
  return s;
}

}  // namespace

std::map<const CLI::Option*, PathRole>& path_roles() {
  static std::map<const CLI::Option*, PathRole> roles;
  return roles;
}

CLI::Option* path_role(CLI::Option* o, PathRole role) {
  path_roles()[o] = role;
  return o;
}

PathRole path_role_of(const CLI::Option* o) {
  auto it = path_roles().find(o);
  return it == path_roles().end() ? PathRole::Value : it->second;
}

const char* to_string(PathRole role) {
  switch (role) {
    case PathRole::ReadsFile: return "reads_file";
    case PathRole::WritesFile: return "writes_file";
    case PathRole::ReadsFolder: return "reads_folder";
    case PathRole::WritesFolder: return "writes_folder";
    case PathRole::ReadsPath: return "reads_path";
    case PathRole::Value: break;
  }
  return "value";
}

CLI::Option* add_db(CLI::App* c, std::string& dir, const std::string& what, const std::string& official) {
  return path_role(c->add_option(names("--db", official), dir, what), PathRole::ReadsFolder);
}

CLI::Option* add_now(CLI::App* c, std::string& now) {
  return c
      ->add_option("--now", now,
                   "pin SQL's clock: date('now'), CURRENT_DATE, CURRENT_TIMESTAMP, julianday('now'), ... return this "
                   "instant (ISO 8601, UTC unless an offset is given; recorded as options.now). Default: the real clock")
      ->type_name("TIMESTAMP")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            std::string why;
            return sql_clock::parse(text, &why) ? std::string() : why;
          },
          "YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|+HH:MM]"));
}

CLI::Option* add_jobs(CLI::App* c, int& jobs, const std::string& official) {
  return c->add_option(names("--jobs,-j", official), jobs, "worker threads (default: all cores)")->check(bounded("jobs"));
}

CLI::Option* add_timeout(CLI::App* c, double& seconds, const std::string& what, const std::string& official) {
  return c->add_option(names("--timeout", official), seconds, what)->check(bounded("timeout"));
}

CLI::Option* add_quiet(CLI::App* c, bool& quiet) {
  return c->add_flag("--quiet,-q", quiet, "nothing on stderr but errors (no warnings, no progress bar); the result is still printed");
}

CLI::Option* add_shard_by(CLI::App* c, std::string& by) {
  return c->add_option("--shard-by", by,
                       "with --shard: split by id (default) or by db, every question of a database in one shard (see sqlgrade merge)");
}

CLI::Option* add_require_all(CLI::App* c, bool& require_all) {
  return c->add_flag("--require-all", require_all,
                     "exit 1 when predictions are missing, truncated or unpaired (they score 0 either way)");
}

CLI::Option* add_out(CLI::App* c, std::string& file, const std::string& what, const std::string& aliases) {
  return path_role(c->add_option(names("--out", aliases), file, what)->type_name("FILE"), PathRole::WritesFile);
}

CLI::Option* add_out_dir(CLI::App* c, std::string& dir, const std::string& what, const std::string& aliases) {
  return path_role(c->add_option(names("--out-dir", aliases), dir, what)->type_name("DIR"), PathRole::WritesFolder);
}

CLI::Option* add_no_progress(CLI::App* c, bool& no_progress) {
  return c->add_flag("--no-progress", no_progress, "never draw a progress bar");
}

CLI::Option* add_max_rows(CLI::App* c, size_t& rows, const std::string& what) {
  return c->add_option("--max-rows", rows, what.empty() ? "result rows of one query before it is stopped" : what)
      ->capture_default_str()
      ->check(bounded("max_rows"));
}

CLI::Option* add_max_result_mb(CLI::App* c, double& mb, const std::string& what) {
  return c->add_option("--max-result-mb", mb, what.empty() ? "result size cap per query, MiB" : what)
      ->capture_default_str()
      ->check(bounded("result_mb"));
}

void check_db_layout(const std::string& dir, DbLayout want, const std::string& command, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return;
  size_t nested = 0, flat = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    std::error_code e2;
    if (it->is_directory(e2)) nested += fs::is_regular_file(p / (p.filename().string() + ".sqlite"), e2) ? 1 : 0;
    else if (p.extension() == ".sqlite") ++flat;
    if (nested && flat) return;  // both layouts: not a mistake this check can name
  }
  if (want == DbLayout::Nested && nested == 0 && flat > 0)
    throw InputError(flag, dir + " holds <db>.sqlite files directly (Spider 2.0-Lite's layout); " + command +
                               " reads DIR/<db_id>/<db_id>.sqlite");
  if (want == DbLayout::Flat && flat == 0 && nested > 0)
    throw InputError(flag, dir + " holds <db_id>/<db_id>.sqlite folders (Spider's and BIRD's layout); " + command +
                               " reads DIR/<db>.sqlite");
}

size_t mib_to_bytes(double mb) { return static_cast<size_t>(mb * double(size_t(1) << 20)); }

std::vector<std::string> benchmark_flag_as_subcommand(std::vector<std::string> args) {
  if (args.empty() || (args[0] != "verify" && args[0] != "audit")) return args;
  if (args.size() > 1 && !args[1].empty() && args[1][0] != '-') return args;  // the subcommand is there
  for (size_t k = 1; k < args.size(); ++k) {
    const std::string& a = args[k];
    if (a == "--") break;
    std::string name;
    size_t take = 1;
    if (a == "--benchmark" && k + 1 < args.size()) name = args[k + 1], take = 2;
    else if (a.rfind("--benchmark=", 0) == 0) name = a.substr(12);
    else continue;
    if (name != "spider" && name != "bird" && name != "spider2")
      throw InputError("--benchmark", "expected spider, bird or spider2, got '" + name + "'");
    args.erase(args.begin() + static_cast<long>(k), args.begin() + static_cast<long>(k + take));
    args.insert(args.begin() + 1, name);
    return args;
  }
  return args;
}

void require_flags(const std::string& where, const std::vector<std::pair<std::string, bool>>& flags_given) {
  std::vector<std::string> missing;
  for (const auto& [flag, given] : flags_given)
    if (!given) missing.push_back(flag);
  if (missing.empty()) return;
  std::string list;
  for (size_t k = 0; k < missing.size(); ++k)
    list += (k == 0 ? "" : k + 1 == missing.size() ? " and " : ", ") + missing[k];
  throw InputError(where, list + (missing.size() == 1 ? " is required" : " are required"));
}

void enforce_require_all(const std::vector<Pairing>& systems) {
  bool failed = false;
  for (const Pairing& p : systems) {
    if (p.missing == 0 && p.unpaired == 0) continue;
    std::fflush(stdout);
    std::fprintf(stderr, "sqlgrade: --require-all: %s: %zu of %zu gold questions without a prediction, %zu unpaired prediction(s)\n",
                 p.file.c_str(), p.missing, p.golds, p.unpaired);
    failed = true;
  }
  if (failed) throw Exit{1};
}

void example(CLI::App* c, const std::string& command_line) { c->footer("Example:\n  " + command_line); }

size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::vector<std::string> resolve_spellings(const CLI::App& app, std::vector<std::string> args) {
  std::vector<const CLI::App*> path{&app};
  bool value_next = false;  // the word after a flag that takes a value is that value
  for (auto& arg : args) {
    if (arg == "--") break;  // positionals follow
    const bool takes_word = value_next;
    value_next = false;
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      const size_t eq = arg.find('=');
      const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      const std::vector<std::string> known = long_names(path);
      const std::string* hit = nullptr;
      for (const auto& k : known)
        if (k == name) hit = &k;
      for (const auto& k : known)
        if (!hit && spelling_key(k) == spelling_key(name)) hit = &k;
      if (hit) {
        if (*hit != name) arg = "--" + *hit + (eq == std::string::npos ? "" : arg.substr(eq));
        const CLI::Option* o = option_named(path, *hit);
        value_next = eq == std::string::npos && o && o->get_type_size() != 0;
        continue;
      }
      if (auto near = closest(name, known))
        throw InputError(path_name(path), "unknown flag --" + name + " (did you mean --" + *near + "?)");
      continue;  // CLI11 reports it
    }
    if (takes_word || arg.empty() || arg[0] == '-') continue;
    const CLI::App* here = path.back();
    const auto subs = subcommands_of(here);
    auto sub = std::find_if(subs.begin(), subs.end(), [&](const CLI::App* s) { return s->check_name(arg); });
    if (sub != subs.end()) {
      path.push_back(*sub);
      continue;
    }
    // A word where only a subcommand may stand (no positional arguments here).
    if (subs.empty() || !here->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty()) continue;
    std::vector<std::string> sub_names;
    for (const CLI::App* s : subs) sub_names.push_back(s->get_name());
    if (auto near = closest(arg, sub_names))
      throw InputError(path_name(path), "unknown subcommand '" + arg + "' (did you mean '" + *near + "'?)");
  }
  return args;
}

void warn(const std::string& file, const std::string& text, const std::string& other) {
  auto starts_with = [&text](const std::string& f) { return !f.empty() && text.compare(0, f.size(), f) == 0; };
  if (file.empty() || starts_with(file) || starts_with(other))
    std::fprintf(stderr, "sqlgrade: warning: %s\n", text.c_str());
  else
    std::fprintf(stderr, "sqlgrade: warning: %s: %s\n", file.c_str(), text.c_str());
}

}  // namespace sqlgrade::cli
