// Merging shards of one run. See merge.hpp and docs/comparing-runs.md.
#include "sqlgrade/runs/merge.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/summary.hpp"
#include "sqlgrade/core/fs.hpp"

namespace sqlgrade::runs {

namespace {

std::map<std::string, std::string> gold_hashes(const RunRecord& r) {
  std::map<std::string, std::string> m;
  for (const auto& in : r.inputs)
    if (in.side == "gold") m[in.role] = in.sha256.value_or("");
  return m;
}

std::string metrics_key(const RunRecord& r) {
  std::string k;
  for (const auto& m : r.metrics) k += m.name + ":" + to_string(m.kind) + ";";
  return k + "primary=" + r.primary_metric;
}

void check_like_first(const MergeInput& first, const MergeInput& p) {
  const RunRecord &a = first.run, &b = p.run;
  auto differ = [&](const std::string& what) {
    throw InputError(p.file, what + " differs from " + first.file + "'s; merge combines shards of one run");
  };
  if (a.benchmark != b.benchmark) differ("benchmark \"" + b.benchmark + "\"");
  if (metrics_key(a) != metrics_key(b)) differ("the metrics");
  if (a.options != b.options) differ("the options");
  if (a.timeout_s != b.timeout_s) differ("timeout_s");
  if (a.tool_version != b.tool_version) differ("the sqlgrade version (" + b.tool_version + ")");
  auto ga = gold_hashes(a), gb = gold_hashes(b);
  if (ga != gb) {
    for (const auto& [role, h] : gb)
      if (!ga.count(role) || ga[role] != h) differ("gold input \"" + role + "\"");
    differ("the set of gold inputs");
  }
}

// Why an instance is not in the shard its part claims: the shard its id (or database) belongs to.
std::string not_in_shard(const Instance& in, const Shard& s) {
  const auto n = static_cast<uint64_t>(s.count);
  if (s.by == ShardBy::Id)
    return "instance \"" + in.id + "\" belongs to shard " + std::to_string(shard_of(in.id, n) + 1) + "/" + std::to_string(n) +
           ", not " + to_string(s);
  const std::string* found = shard_db(in);
  const std::string db = found ? *found : std::string();
  return "instance \"" + in.id + "\" of database \"" + db + "\" belongs to shard " + std::to_string(shard_of(db, n) + 1) + "/" +
         std::to_string(n) + " by db, not " + to_string(s);
}

}  // namespace

RunRecord merge_runs(const std::vector<MergeInput>& parts, const std::vector<std::string>& command) {
  return merge_runs(std::vector<MergeInput>(parts), command);
}

RunRecord merge_runs(std::vector<MergeInput>&& parts, const std::vector<std::string>& command) {
  if (parts.empty()) throw InputError("merge", "no parts given");
  for (const auto& p : parts)
    if (!p.run.shard)
      throw InputError(p.file, "has no \"shard\"; merge combines the parts of one run graded with --shard i/n");
  const int n = parts.front().run.shard->count;
  std::map<int, MergeInput*> by_index;
  for (auto& p : parts) {
    check_like_first(parts.front(), p);
    if (p.run.shard->count != n)
      throw InputError(p.file, "is shard " + to_string(*p.run.shard) + " but " + parts.front().file + " is one of " + std::to_string(n));
    auto [it, fresh] = by_index.emplace(p.run.shard->index, &p);
    if (!fresh) throw InputError(p.file, "shard " + to_string(*p.run.shard) + " is also " + it->second->file);
    if (p.run.shard->by != parts.front().run.shard->by)
      throw InputError(p.file, "is split by " + std::string(to_string(p.run.shard->by)) + " but " + parts.front().file + " by " +
                                   to_string(parts.front().run.shard->by) + " (--shard-by)");
    for (const auto& in : p.run.instances)
      if (!in_shard(in, *p.run.shard)) throw InputError(p.file, not_in_shard(in, *p.run.shard));
  }
  if (static_cast<int>(by_index.size()) != n) {
    std::string missing;
    int shown = 0;
    for (int i = 1; i <= n && shown < 5; ++i)
      if (!by_index.count(i)) missing += (shown++ ? ", " : "") + std::to_string(i) + "/" + std::to_string(n);
    throw InputError("merge", "shard(s) missing: " + missing + (n - static_cast<int>(by_index.size()) > shown ? ", …" : "") +
                                  " (" + std::to_string(by_index.size()) + " of " + std::to_string(n) + " given)");
  }

  const RunRecord& first = parts.front().run;
  RunRecord out;
  out.tool = first.tool, out.tool_version = first.tool_version;
  out.command = command;
  out.benchmark = first.benchmark, out.system = first.system;
  out.metrics = first.metrics, out.primary_metric = first.primary_metric;
  out.options = first.options, out.engines = first.engines, out.timeout_s = first.timeout_s;
  out.machine = first.machine;
  out.started_at = first.started_at;
  std::set<std::string> seen_inputs, seen_warnings, seen_axes;
  for (const auto& in : first.inputs)
    if (in.side == "gold") out.inputs.push_back(in), seen_inputs.insert(in.role + "\n" + in.path + "\n" + in.sha256.value_or(""));
  for (auto& [idx, p] : by_index) {
    RunRecord& r = p->run;
    for (const auto& in : r.inputs)
      if (in.side != "gold" && seen_inputs.insert(in.role + "\n" + in.path + "\n" + in.sha256.value_or("")).second) out.inputs.push_back(in);
    if (r.system != out.system && seen_warnings.insert("system:" + r.system).second)
      out.warnings.push_back(p->file + " names the system \"" + r.system + "\", " + parts.front().file + " \"" + out.system + "\"");
    if (r.engines != out.engines && seen_warnings.insert("engines:" + p->file).second)
      out.warnings.push_back(p->file + " was graded with other engine versions than " + parts.front().file);
    for (const auto& w : r.warnings)
      if (seen_warnings.insert(w).second) out.warnings.push_back("[shard " + to_string(*r.shard) + "] " + w);
    for (const auto& a : r.category_axes)
      if (seen_axes.insert(a.name).second) out.category_axes.push_back(a);
    if (!r.started_at.empty() && (out.started_at.empty() || r.started_at < out.started_at)) out.started_at = r.started_at;
    out.wall_s += r.wall_s;
    MergedPart mp;
    mp.path = p->file;
    mp.sha256 = p->sha256;
    mp.shard = *r.shard, mp.host = r.machine.host, mp.started_at = r.started_at, mp.wall_s = r.wall_s, mp.command = r.command;
    out.merged_from.push_back(std::move(mp));
    out.instances.insert(out.instances.end(), std::make_move_iterator(r.instances.begin()),
                         std::make_move_iterator(r.instances.end()));
    r.instances.clear();
  }
  std::sort(out.instances.begin(), out.instances.end(), [](const Instance& x, const Instance& y) { return id_less(x.id, y.id); });
  SummaryOut s = summarize(out);
  out.summary = std::move(s.summary);
  out.summary_text = std::move(s.text);
  return out;
}

RunRecord shard_subset(const RunRecord& r, const Shard& s) {
  RunRecord out = r;
  out.instances.clear();
  for (const auto& in : r.instances)
    if (in_shard(in, s)) out.instances.push_back(in);
  out.shard = s;
  SummaryOut sum = summarize(out);
  out.summary = std::move(sum.summary);
  out.summary_text = std::move(sum.text);
  return out;
}

}  // namespace sqlgrade::runs
