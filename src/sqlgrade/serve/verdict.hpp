#pragma once
// Verdict dispatch of the reward server: the gold of a request (SQL, rows or the official gold folder,
// through the gold cache), the prediction's execution, and the comparison module of its benchmark.
// Internal to the serve module.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "sqlgrade/engine/engine.hpp"
#include "sqlgrade/serve/gold_cache.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/serve/wire.hpp"

#ifdef SQLGRADE_HAVE_SPIDER
#include "sqlgrade/spider/exec_evaluator.hpp"
#endif

namespace sqlgrade::serve {

struct Verdict {
  bool match = false;
  std::string failure = "execution_error";  // none / no_sql_extracted / execution_error / gold_execution_error / timeout
  std::string detail;
  bool gold_cached = false;
};

class Judge {
 public:
  Judge(const ServerOptions& opt, GoldCache& cache);

  // Verdict of `pred_sql` for a validated request (throws BadRequest when the request has no gold).
  Verdict judge(Bench b, const nlohmann::json& req, const std::string& db_id, const std::string& pred_sql);

  // Database file of db_id for a benchmark, or "" when there is none.
  std::string db_path(Bench b, const std::string& db_id) const;

  // The official condition_cols/ignore_order of the request's instance_id in --spider2-gold-dir.
  struct OfficialEntry {
    nlohmann::json condition_cols;
    bool ignore_order = false;
  };
  const OfficialEntry* official_entry(const nlohmann::json& req) const;
  size_t official_count() const { return official_.size(); }

 private:
  void load_official();
  GoldPtr gold_from_dir(const std::string& id, bool* hit);
  GoldPtr gold_from_sql(Bench b, const std::string& path, const std::string& gold_sql, bool* hit);
  GoldPtr gold_from_rows(Bench b, const nlohmann::json& gold_result, bool* hit);
  std::shared_ptr<const ExecResult> spider_gold(const std::string& db_file, const std::string& query,
                                                const std::function<ExecResult()>& execute, int* hits, int* misses);
  Limits pred_limits() const;
  Limits gold_limits() const;

  const ServerOptions& opt_;
  GoldCache& cache_;
  std::unordered_map<std::string, OfficialEntry> official_;  // spider2lite_eval.jsonl of spider2_gold_dir
#ifdef SQLGRADE_HAVE_SPIDER
  std::once_flag spider_once_;
  std::unique_ptr<spider::ExecEvaluator> spider_eval_;
  std::string spider_init_error_;
#endif
};

}  // namespace sqlgrade::serve
