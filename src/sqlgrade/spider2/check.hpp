#pragma once
// Spider 2.0-Lite: the check of one (system, instance) pair (a job) — the official rule on frames
// (grade_frame, with --strict findings and --v2), the sql-mode execution of one distinct (database,
// SQL), the gold alternatives of an id read once. run.cpp schedules them over every job.
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/compare.hpp"
#include "sqlgrade/spider2/compare_v2.hpp"
#include "sqlgrade/spider2/inputs.hpp"

namespace sqlgrade::spider2 {

// Evaluate one prediction frame against the instance's golds with the official rule (+ strict, v2).
// DeadlineExceeded passes through when `deadline` expires (the caller scores a timeout).
void grade_frame(const Frame& pred, const std::vector<Frame>& golds, bool single, const EvalEntry& entry,
                 const Options& opt, Instance& out, const Deadline& deadline = {});

// The outcome of one distinct (database, SQL) execution, shared by every system that predicted it.
struct ExecOut {
  bool ok = false;
  VerdictStage stage = VerdictStage::PredFailed;  // when !ok: pred_failed, timeout or too_large
  std::string error, csv;
  double seconds = 0;
  double budget_s = INFINITY;  // what the query's deadline leaves for reading and comparing its result
};

// One (system, instance) pair to grade.
struct Job {
  size_t sys = 0, k = 0;  // system, index of the instance in its run
  std::string id;
  std::string pred_path;             // its prediction: <result_dir>/<id>.sql or .csv
  std::optional<std::string> error;  // failed before execution (unreadable file, no db, BigQuery)
  std::string db_path;               // sql mode, local: the database the statement (pred_sql) runs on
  std::shared_ptr<const ExecOut> exec;  // its execution, shared with the jobs that run the same
};

// The gold alternatives of one id, read once for every system.
struct Gold {
  GoldFiles files;
  std::vector<Frame> frames;
  std::optional<std::string> error;
};

// Step 2 of run_many for one distinct (database, SQL): the query, then its result as the CSV text the
// official script writes (see check.cpp).
ExecOut execute_one(const std::string& db_path, const std::string& sql, const Options& opt, const Limits& limits,
                    const SqliteOptions& sopt);

// Step 3: the gold alternatives of one id (an unreadable one sets `error`).
Gold read_gold(const std::string& exec_dir, const std::string& id, const std::vector<std::string>& listing);

// Step 4 for one job: its prediction's frame (the CSV file, or the executed query's CSV text) against
// the gold alternatives; a failure at any step scores 0 with its reason (into `it`).
void grade_job(const Job& j, const Gold& g, const EvalEntry& entry, const Options& opt, Instance& it);

}  // namespace sqlgrade::spider2
