#pragma once
// The verdict of one validated request (internal to the verdict module; the public entry point is
// include/sqlgrade/verdict.hpp): the gold (SQL, rows or the official gold folder, through the gold
// cache), the prediction's execution, and the check of its benchmark (Benchmark::gold_form and
// Benchmark::check, each benchmark's bench.cpp). Every piece of benchmark logic comes from the
// benchmark modules; this file runs the queries and caches the golds.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/engine/engine.hpp"
#include "sqlgrade/verdict/gold_cache.hpp"
#include "sqlgrade/verdict/request.hpp"
#include "sqlgrade/spider/exec_evaluator.hpp"
#include "sqlgrade/verdict.hpp"

namespace sqlgrade::verdicts {

class Judge {
 public:
  // Reads the official gold folder (if any) with its benchmark's reader (Benchmark::official_gold).
  Judge(const GraderConfig& cfg, GoldCache& cache);

  // Sets v's match, failure, detail, gold_cached, pred_executed and gold/pred/compare timings.
  // The request has a gold (Grader::require_gold). Throws InputError when its database layout
  // cannot be graded.
  void judge(const Benchmark& b, const VerdictRequest& req, const std::string& pred_sql, Verdict& v);

  bool has_official(const std::string& instance_id) const { return official_ && official_->has(instance_id); }
  size_t official_count() const { return official_ ? official_->size() : 0; }

 private:
  GoldPtr gold_from_dir(const std::string& id, bool* hit);
  GoldPtr gold_from_sql(const Benchmark& b, const std::string& path, const std::string& gold_sql, bool* hit);
  GoldPtr gold_from_rows(const Benchmark& b, const std::string& gold_result_json, bool* hit);
  void judge_spider(const VerdictRequest& req, const std::string& pred_sql, Verdict& v);
  void compare(const Benchmark& b, const VerdictRequest& req, const GoldData& gold, const Table& pred, const Deadline& deadline,
               Verdict& v);
  std::shared_ptr<spider::ExecEvaluator> spider_evaluator(const std::string& db_dir);
  Limits pred_limits(const VerdictRequest& req) const;
  Limits gold_limits() const;

  const GraderConfig& cfg_;
  GoldCache& cache_;
  std::unique_ptr<const OfficialGold> official_;  // spider2_gold_dir, or null
  std::mutex spider_mu_;
  std::map<std::string, std::shared_ptr<spider::ExecEvaluator>> spider_evals_;  // by test-suite parent folder
};

}  // namespace sqlgrade::verdicts
