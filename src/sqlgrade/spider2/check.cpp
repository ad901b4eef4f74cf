// Spider 2.0-Lite: the check of one (system, instance) — the official rule on the prediction's frame
// (grade_frame, + strict, v2), the sql-mode execution of one distinct (database, SQL) and the failures
// each step can end in.
#include "sqlgrade/spider2/check.hpp"

#include <algorithm>
#include <cmath>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade::spider2 {

void grade_frame(const Frame& pred, const std::vector<Frame>& golds, bool single, const EvalEntry& entry,
                 const Options& opt, Instance& out, const Deadline& deadline) {
  std::string err;
  const int score = score_against_golds(pred, golds, entry, single, &err, deadline);
  out.outcome.score = score;
  out.outcome.stage = score == 1 ? VerdictStage::Equal : VerdictStage::Different;
  out.outcome.detail = score == 1 ? "" : err.empty() ? "Result Error" : err;
  if (opt.strict && err.empty()) {
    // Findings against the alternatives with the condition_cols the official rule used.
    std::vector<std::optional<nlohmann::json>> per;
    if (single) per.assign(1, entry.condition_cols);
    else per = resolve_condition_cols(entry.condition_cols, golds.size());
    for (size_t i = 0; i < golds.size() && per[i]; ++i) {
      std::string tag = golds.size() > 1 ? "gold alternative " + std::string(1, static_cast<char>('a' + i)) + ": " : "";
      try {
        if (out.outcome.match()) {
          if (!compare_frames(pred, golds[i], *per[i], entry.ignore_order, deadline)) continue;
          for (auto& x : strict_findings(pred, golds[i], *per[i], entry.ignore_order, deadline))
            if (x.find("scrambled") != std::string::npos) out.strict.push_back(tag + x), out.strict_scrambled = true;
          break;  // the alternative the official rule accepted
        }
        if (compare_frames_value_sort(pred, golds[i], *per[i], entry.ignore_order, deadline)) {
          out.strict_sort_miss = true;
          for (auto& x : strict_findings(pred, golds[i], *per[i], entry.ignore_order, deadline))
            if (x.find("string-representation sort") != std::string::npos) out.strict.push_back(tag + x);
          break;
        }
      } catch (const DeadlineExceeded&) {
        throw;
      } catch (const std::exception&) {
        break;
      }
    }
  }
  if (opt.v2) {
    try {
      out.v2 = v2::compare_multi(pred, golds, entry.condition_cols, single, deadline);
    } catch (const DeadlineExceeded&) {
      throw;
    } catch (const std::exception& e) {
      out.v2 = v2::Result{};
      out.v2_error = std::string("Post-exec processing error: ") + e.what();
    }
  }
}

namespace {

// The message of a prediction stopped by its deadline after the engine returned (the engine's own
// message for a query timeout reads "timeout after <s> s").
std::string timeout_message(const Options& opt, const char* during) {
  return "timeout after " + std::to_string(opt.timeout_s) + " s (" + during + ")";
}

std::string too_large_message(const std::string& what, size_t max_bytes) {
  return "result too large: " + what + " (--max-result-mb " + std::to_string(max_bytes >> 20) + ")";
}

// An exec_result prediction, read whole unless it is larger than the result bound.
Frame read_prediction_csv(const std::string& path, const Options& opt) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size > opt.max_result_bytes)
    throw ResultTooLarge(path + " is " + std::to_string(size) + " bytes, more than the result limit of " +
                         std::to_string(opt.max_result_bytes) + " bytes");
  return frame_from_csv_text(read_file(path, std::min(opt.max_result_bytes, max_input_bytes())), path);
}

// A failure scores 0 at `stage`, with the official error_info.
void fail(Instance& out, const Options& opt, const std::string& what, VerdictStage stage) {
  out.outcome.score = 0;
  out.outcome.stage = stage;
  out.outcome.deadline_hit = stage == VerdictStage::Timeout;
  out.outcome.detail = what;
  if (opt.mode == Mode::Sql) out.messages.push_back("[" + out.instance_id + "] An error occurred: " + what);
  else out.outcome.detail = "Evaluation Error: " + what;
  if (opt.v2) out.v2_error = "Post-exec processing error: " + what;
}

// The prediction of a job as a frame (the CSV file, or the query's CSV text with the deadline it has
// left, set in `deadline`); std::nullopt once `it` has failed with the reason.
std::optional<Frame> prediction_frame(const Job& j, const Options& opt, Instance& it, Deadline& deadline) {
  try {
    if (opt.mode == Mode::ExecResult) return read_prediction_csv(j.pred_path, opt);
    const ExecOut& o = *j.exec;
    it.seconds = o.seconds;
    if (!o.ok) {
      fail(it, opt, o.error, o.stage);
      return std::nullopt;
    }
    if (std::isfinite(o.budget_s)) deadline = Deadline::in(std::max(o.budget_s, 1e-6));
    return frame_from_csv_text(o.csv, j.id + ".csv", deadline);
  } catch (const DeadlineExceeded&) {
    fail(it, opt, timeout_message(opt, "reading the result"), VerdictStage::Timeout);
  } catch (const ResultTooLarge& e) {
    fail(it, opt, too_large_message(e.what(), opt.max_result_bytes), VerdictStage::TooLarge);
  } catch (const std::exception& e) {
    fail(it, opt, e.what(), VerdictStage::PredFailed);
  }
  return std::nullopt;
}

}  // namespace

// The query's deadline starts here and also bounds the conversion; what it leaves bounds reading and
// comparing the result in step 4.
ExecOut execute_one(const std::string& db_path, const std::string& sql, const Options& opt, const Limits& limits,
                    const SqliteOptions& sopt) {
  ExecOut o;
  try {
    const Deadline deadline = Deadline::in(opt.timeout_s);
    ExecResult er = SqlitePool::lease(db_path, sopt)->execute(sql, limits);
    o.seconds = er.seconds;
    if (!er.ok()) {
      o.error = er.error.empty() ? to_string(er.status) : er.error;
      o.stage = er.status == ExecStatus::Timeout    ? VerdictStage::Timeout
                : er.status == ExecStatus::TooLarge ? VerdictStage::TooLarge
                                                    : VerdictStage::PredFailed;
      return o;
    }
    o.csv = to_csv_text(std::move(er.table), deadline, opt.max_result_bytes);
    o.ok = true;
    o.budget_s = deadline.remaining_s();
  } catch (const DeadlineExceeded&) {
    o.error = timeout_message(opt, "converting the result");
    o.stage = VerdictStage::Timeout;
  } catch (const ResultTooLarge& e) {
    o.error = too_large_message(e.what(), opt.max_result_bytes);
    o.stage = VerdictStage::TooLarge;
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

void grade_job(const Job& j, const Gold& g, const EvalEntry& entry, const Options& opt, Instance& it) {
  if (j.error) return fail(it, opt, *j.error, VerdictStage::PredFailed);
  Deadline deadline;
  const std::optional<Frame> pred = prediction_frame(j, opt, it, deadline);
  if (!pred) return;
  if (g.files.paths.empty()) {
    it.outcome.score = 0;
    it.outcome.stage = VerdictStage::GoldFailed;
    it.outcome.detail = "No matching gold file found";
    if (opt.v2) it.v2_error = "No matching gold file found";
  } else if (g.error) {
    it.outcome.score = 0;
    it.outcome.stage = VerdictStage::GoldFailed;
    it.outcome.detail = "Evaluation Error: " + *g.error;
    if (opt.v2) it.v2_error = "Post-exec processing error: " + *g.error;
  } else {
    try {
      grade_frame(*pred, g.frames, g.files.single, entry, opt, it, deadline);
    } catch (const DeadlineExceeded&) {
      // Nothing of a verdict that did not finish is kept.
      it.strict.clear();
      it.strict_scrambled = it.strict_sort_miss = false;
      it.v2 = v2::Result{};
      it.v2_error.reset();
      fail(it, opt, timeout_message(opt, "comparing the result"), VerdictStage::Timeout);
    }
  }
}

Gold read_gold(const std::string& exec_dir, const std::string& id, const std::vector<std::string>& listing) {
  Gold g;
  g.files = resolve_gold_files(exec_dir, id, listing);
  try {
    for (auto& p : g.files.paths) g.frames.push_back(frame_from_csv_file(p));
  } catch (const std::exception& e) {
    g.error = e.what();
  }
  return g;
}

}  // namespace sqlgrade::spider2
