#pragma once
// Per-query bookkeeping of judge use, and the audit log of judged pairs.
//
// QueryTrace marks "this thread is evaluating query X" (RAII; the UDA driver opens one around each
// query's evaluation and output writing). A judge called inside it adds its per-query counts
// (calls, cache hits, ...) to it and labels its log lines with X; acc.json's "judge" block reads it.
// Without an open trace the counts simply go nowhere.
#include <cstddef>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/uda/judge/judge.hpp"

namespace sqlgrade::uda::judge {

struct QueryJudgeCounts {
  size_t questions = 0;     // questions put to the judge for this query
  size_t calls = 0;         // distinct questions sent to the model
  size_t cache_hits = 0;    // distinct questions answered from the persistent cache
  size_t deduplicated = 0;  // questions already asked earlier in this run (or in flight elsewhere)
  size_t failures = 0;      // questions without a usable answer (scored as no match)
};

class QueryTrace {
 public:
  explicit QueryTrace(std::string label);
  ~QueryTrace();
  QueryTrace(const QueryTrace&) = delete;
  QueryTrace& operator=(const QueryTrace&) = delete;
  static QueryTrace* current();  // innermost open trace of this thread, or nullptr
  const std::string& label() const { return label_; }
  QueryJudgeCounts counts;

 private:
  std::string label_;
  QueryTrace* prev_;
};

// JSON Lines audit log: one line per judged question (every occurrence, in the order asked within a
// query; queries sorted by label). Written atomically by write().
class JudgeLog {
 public:
  explicit JudgeLog(std::filesystem::path file) : path_(std::move(file)) {}
  // source: "call", "cache", "dedup", "skipped" (judge disabled after repeated failures), "rules".
  void add(const Question& q, const Answer& a, std::string_view source, std::string_view error = {});
  void write();
  size_t size();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::mutex mu_;
  std::vector<std::pair<std::string, std::string>> lines_;  // (query label, json line)
};

// Any judge with a log: forwards questions, logs every answer with source = inner.name().
class LoggingJudge : public Judge {
 public:
  LoggingJudge(Judge& inner, JudgeLog& log) : inner_(inner), log_(log) {}
  std::string name() const override { return inner_.name(); }
  std::string model() const override { return inner_.model(); }
  JudgeStats stats() const override { return inner_.stats(); }
  std::vector<Answer> ask(const std::vector<Question>& questions) override;

 private:
  Judge& inner_;
  JudgeLog& log_;
};

const char* to_string(QuestionKind k);

}  // namespace sqlgrade::uda::judge
