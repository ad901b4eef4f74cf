// /aggregate_metrics: NeMo Gym's grouping of verify responses into tasks, mean reward, pass@k.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "sqlgrade/serve/server.hpp"

namespace sqlgrade::serve {

using json = nlohmann::json;
using BadRequest = RewardServer::BadRequest;

double pass_at_k(size_t n, size_t c, size_t k) {
  if (k == 0 || n == 0 || k > n) return std::nan("");
  if (n - c < k) return 1.0;
  double prod = 1.0;
  for (size_t i = n - c + 1; i <= n; ++i) prod *= 1.0 - static_cast<double>(k) / static_cast<double>(i);
  return 1.0 - prod;
}

namespace {

// Which task a response belongs to, ordered: task indices (numerically), then instance ids, then
// responses with neither (by position). Indices are exact over the whole JSON integer range
// [-2^63, 2^64 - 1]: a negative index keeps its two's-complement bits, which order the negatives
// among themselves, and sorts before every non-negative one.
struct TaskKey {
  int kind = 0;           // 0 = _ng_task_index, 1 = instance_id, 2 = position
  bool non_negative = true;
  uint64_t bits = 0;      // kind 0: the index (two's complement when negative); kind 2: the position
  std::string id;         // kind 1
  bool operator<(const TaskKey& o) const {
    if (kind != o.kind) return kind < o.kind;
    if (non_negative != o.non_negative) return !non_negative;
    if (bits != o.bits) return bits < o.bits;
    return id < o.id;
  }
};

TaskKey task_key(const json& r, size_t pos, json* key) {
  TaskKey k;
  if (auto t = r.find("_ng_task_index"); t != r.end() && !t->is_null()) {
    if (!t->is_number_integer())
      throw BadRequest("verify_responses[" + std::to_string(pos) + "]._ng_task_index must be an integer");
    k.kind = 0;
    if (t->is_number_unsigned()) {
      k.bits = t->get<uint64_t>();
    } else {
      int64_t v = t->get<int64_t>();
      k.non_negative = v >= 0;
      k.bits = static_cast<uint64_t>(v);
    }
    *key = *t;
  } else if (auto id = r.find("instance_id"); id != r.end() && id->is_string()) {
    k.kind = 1;
    k.id = id->get<std::string>();
    *key = *id;
  } else {
    k.kind = 2;
    k.bits = pos;
    *key = pos;
  }
  return k;
}

}  // namespace

json aggregate(const json& responses) {
  if (!responses.is_array()) throw BadRequest("`verify_responses` must be a list");
  struct Group {
    json key;
    json instance_id;
    size_t n = 0, correct = 0;
    double reward_sum = 0;
  };
  std::map<TaskKey, Group> groups;
  std::map<std::string, size_t> failures;
  double reward_sum = 0;
  size_t pos = 0;
  for (auto& r : responses) {
    if (!r.is_object()) throw BadRequest("verify_responses[" + std::to_string(pos) + "] is not an object");
    auto rw = r.find("reward");
    if (rw == r.end() || !rw->is_number())
      throw BadRequest("verify_responses[" + std::to_string(pos) + "] has no numeric `reward`");
    double reward = rw->get<double>();
    json key;
    TaskKey sort_key = task_key(r, pos, &key);
    Group& g = groups[sort_key];
    g.key = key;
    if (auto id = r.find("instance_id"); id != r.end()) g.instance_id = *id;
    g.n++;
    if (reward > 0) g.correct++;
    g.reward_sum += reward;
    reward_sum += reward;
    if (auto fr = r.find("failure_reason"); fr != r.end() && fr->is_string()) failures[fr->get<std::string>()]++;
    ++pos;
  }
  size_t kmax = 0;
  for (auto& [_, g] : groups) kmax = std::max(kmax, g.n);
  std::vector<size_t> ks;
  for (size_t k = 1; k <= kmax; k *= 2) ks.push_back(k);
  if (kmax && ks.back() != kmax) ks.push_back(kmax);

  json out;
  out["group_level_metrics"] = json::array();
  double avg_of_k = 0;
  for (auto& [_, g] : groups) {
    json m;
    m["task"] = g.key;
    if (!g.instance_id.is_null()) m["instance_id"] = g.instance_id;
    m["num_rollouts"] = g.n;
    m["num_correct"] = g.correct;
    m["mean/reward"] = g.reward_sum / static_cast<double>(g.n);
    m["pass@" + std::to_string(g.n)] = g.correct > 0 ? 1.0 : 0.0;
    out["group_level_metrics"].push_back(m);
    avg_of_k += static_cast<double>(g.correct) / static_cast<double>(g.n);
  }
  json agent;
  agent["num_tasks"] = groups.size();
  agent["num_rollouts"] = pos;
  agent["mean/reward"] = pos ? reward_sum / static_cast<double>(pos) : 0.0;
  agent["pass@1[avg-of-k]"] = groups.empty() ? 0.0 : avg_of_k / static_cast<double>(groups.size());
  for (size_t k : ks) {
    double sum = 0;
    size_t tasks = 0;
    for (auto& [_, g] : groups) {
      if (g.n < k) continue;
      sum += pass_at_k(g.n, g.correct, k);
      ++tasks;
    }
    agent["pass@" + std::to_string(k)] = tasks ? sum / static_cast<double>(tasks) : 0.0;
  }
  for (auto& [reason, n] : failures) agent["failure_reason/" + reason] = n;
  out["agent_metrics"] = agent;
  json key;
  key["mean/reward"] = agent["mean/reward"];
  key["pass@1[avg-of-k]"] = agent["pass@1[avg-of-k]"];
  if (kmax) key["pass@" + std::to_string(kmax)] = agent["pass@" + std::to_string(kmax)];
  out["key_metrics"] = key;
  return out;
}

}  // namespace sqlgrade::serve
