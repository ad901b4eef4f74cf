// Per-query judge counts and the judged-pairs audit log (see llm_trace.hpp).
#include "sqlgrade/uda/judge/llm_trace.hpp"

#include <algorithm>

#include "sqlgrade/core/fs.hpp"

namespace sqlgrade::uda::judge {

namespace {
thread_local QueryTrace* t_current = nullptr;
}

QueryTrace::QueryTrace(std::string label) : label_(std::move(label)), prev_(t_current) { t_current = this; }
QueryTrace::~QueryTrace() { t_current = prev_; }
QueryTrace* QueryTrace::current() { return t_current; }

const char* to_string(QuestionKind k) {
  switch (k) {
    case QuestionKind::Cell: return "cell";
    case QuestionKind::MultiCount: return "multi_count";
    case QuestionKind::Entity: return "entity";
    case QuestionKind::GroupKey: return "group_key";
  }
  return "?";
}

void JudgeLog::add(const Question& q, const Answer& a, std::string_view source, std::string_view error) {
  nlohmann::ordered_json j;
  QueryTrace* t = QueryTrace::current();
  std::string label = t ? t->label() : "";
  j["query"] = label;
  j["kind"] = to_string(q.kind);
  j["column"] = q.column;
  if (q.kind == QuestionKind::Cell || q.kind == QuestionKind::Entity) {
    j["pred"] = q.pred.empty() ? "" : q.pred[0];
    j["gold"] = q.gold.empty() ? "" : q.gold[0];
  } else {
    j["pred"] = q.pred;
    j["gold"] = q.gold;
  }
  if (!a.answered) j["verdict"] = nullptr;
  else if (q.kind == QuestionKind::MultiCount) j["verdict"] = a.count;
  else j["verdict"] = a.yes ? "yes" : "no";
  j["source"] = source;
  j["raw"] = a.raw;
  if (!error.empty()) j["error"] = error;
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard<std::mutex> lk(mu_);
  lines_.emplace_back(std::move(label), std::move(line));
}

void JudgeLog::write() {
  std::string out;
  {
    std::lock_guard<std::mutex> lk(mu_);
    auto sorted = lines_;
    std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& [label, line] : sorted) out += line + "\n";
  }
  write_file_atomic(path_, out);
}

size_t JudgeLog::size() {
  std::lock_guard<std::mutex> lk(mu_);
  return lines_.size();
}

std::vector<Answer> LoggingJudge::ask(const std::vector<Question>& questions) {
  auto ans = inner_.ask(questions);
  for (size_t i = 0; i < questions.size() && i < ans.size(); ++i) log_.add(questions[i], ans[i], inner_.name());
  return ans;
}

}  // namespace sqlgrade::uda::judge
