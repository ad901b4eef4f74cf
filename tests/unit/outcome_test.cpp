// One Outcome for every benchmark (issue 32 item 2): how each benchmark's check ends as a
// sqlgrade::Outcome (stage, score, status, detail, deadline_hit, rows), and that the official record
// fields are read from it — BIRD's status/correct, Spider's exec/exec_reason/timeout/gold_exec_error,
// Spider 2.0's score/error_info — so that a record and its outcome can never disagree.
#include <gtest/gtest.h>

#include <string>

#include "sqlgrade/bird/check.hpp"
#include "sqlgrade/outcome.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/spider/bench.hpp"
#include "sqlgrade/spider/exec_evaluator.hpp"
#include "sqlgrade/spider/record.hpp"
#include "sqlgrade/spider2/check.hpp"

using namespace sqlgrade;

namespace {

ExecResult ok_rows(std::initializer_list<int64_t> xs) {
  ExecResult r;
  r.table.columns = {"x"};
  for (int64_t x : xs) r.table.rows.push_back({Value::integer(x)});
  return r;
}

ExecResult failed(ExecStatus s, std::string error) {
  ExecResult r;
  r.status = s;
  r.error = std::move(error);
  return r;
}

}  // namespace

TEST(Outcome, FailureReasonIsTheStagesOneWord) {
  for (VerdictStage s : {VerdictStage::NoSql, VerdictStage::PredFailed, VerdictStage::Timeout, VerdictStage::TooLarge,
                         VerdictStage::GoldFailed, VerdictStage::Different, VerdictStage::Equal, VerdictStage::Refuted,
                         VerdictStage::Unverified}) {
    Outcome o;
    o.stage = s;
    EXPECT_STREQ(o.failure_reason(), failure_reason(s)) << to_string(s);
    EXPECT_EQ(o.match(), s == VerdictStage::Equal) << to_string(s);
  }
  EXPECT_STREQ(failure_reason(VerdictStage::Equal), "none");
  EXPECT_STREQ(failure_reason(VerdictStage::Different), "result_mismatch");
}

TEST(OutcomeBird, StageFollowsStatusAndEx) {
  EXPECT_EQ(bird::stage_of("ok", true), VerdictStage::Equal);
  EXPECT_EQ(bird::stage_of("ok", false), VerdictStage::Different);
  EXPECT_EQ(bird::stage_of("pred_timeout", true), VerdictStage::Equal);  // a VES timing failure keeps the match
  EXPECT_EQ(bird::stage_of("pred_timeout", false), VerdictStage::Timeout);
  EXPECT_EQ(bird::stage_of("pred_error", false), VerdictStage::PredFailed);
  EXPECT_EQ(bird::stage_of("pred_too_large", false), VerdictStage::TooLarge);
  for (const char* s : {"gold_error", "gold_timeout", "gold_too_large"}) EXPECT_EQ(bird::stage_of(s, false), VerdictStage::GoldFailed) << s;
  for (const char* s : {"no_prediction", "not_a_string", "no_answer"}) EXPECT_EQ(bird::stage_of(s, false), VerdictStage::NoSql) << s;
}

TEST(OutcomeBird, CheckEndsInOneOutcome) {
  const bird::Checked same = bird::check(bird::Metric::Ex, ok_rows({1, 2}), ok_rows({2, 1}), 5, true);
  EXPECT_EQ(same.outcome.stage, VerdictStage::Equal);
  EXPECT_EQ(same.outcome.score, 1.0);
  EXPECT_EQ(same.outcome.status, "ok");
  EXPECT_TRUE(same.outcome.detail.empty());
  EXPECT_TRUE(same.outcome.gold_rows.present && same.outcome.pred_rows.present);  // keep_rows
  EXPECT_EQ(same.gold_rows, 2u);

  const bird::Checked soft = bird::check(bird::Metric::SoftF1, ok_rows({1, 2}), ok_rows({1}), 5, false);
  EXPECT_EQ(soft.outcome.stage, VerdictStage::Different);  // EX is set equality; Soft-F1 gives partial credit
  EXPECT_GT(soft.outcome.score, 0.0);
  EXPECT_LT(soft.outcome.score, 1.0);
  EXPECT_FALSE(soft.outcome.gold_rows.present);

  const bird::Checked slow = bird::check(bird::Metric::Ex, ok_rows({1}), failed(ExecStatus::Timeout, "timeout after 5 s"), 5, false);
  EXPECT_EQ(slow.outcome.stage, VerdictStage::Timeout);
  EXPECT_EQ(slow.outcome.status, "pred_timeout");
  EXPECT_TRUE(slow.outcome.deadline_hit);
  EXPECT_EQ(slow.outcome.detail, "timeout after 5 s");

  const bird::Checked gold = bird::check(bird::Metric::Ex, failed(ExecStatus::Error, "no such table: t"), ok_rows({1}), 5, false);
  EXPECT_EQ(gold.outcome.stage, VerdictStage::GoldFailed);
  EXPECT_EQ(gold.outcome.status, "gold_error");
  EXPECT_FALSE(gold.outcome.deadline_hit);

  bird::Instance it;
  EXPECT_EQ(it.outcome.status, "ok");  // an instance's status before its check
  bird::fail_before_running(it, "no_answer", "no {\"answer\": \"...\"} object in the model output");
  EXPECT_EQ(it.outcome.stage, VerdictStage::NoSql);
  EXPECT_STREQ(it.outcome.failure_reason(), "no_sql_extracted");
  bird::apply(it, same);
  EXPECT_TRUE(it.outcome.match());
  EXPECT_EQ(it.gold_rows, 2u);
}

TEST(OutcomeSpider, ExecVerdictToOutcome) {
  spider::ExecVerdict v;
  v.no_pred = true;
  v.reason = "no prediction";
  EXPECT_EQ(spider::outcome_of(v).stage, VerdictStage::NoSql);

  v = {};
  v.gold_error = true;
  v.reason = "gold failed on a.sqlite: boom";
  EXPECT_EQ(spider::outcome_of(v).stage, VerdictStage::GoldFailed);

  // A plug_value candidate timed out, another matched: Equal, and the record's `timeout` stays as the
  // evaluator left it.
  v = {};
  v.score = 1;
  v.timeout = false;
  EXPECT_EQ(spider::outcome_of(v).stage, VerdictStage::Equal);
  // Every candidate tried, one timed out, none matched: Timeout, deadline_hit.
  v = {};
  v.timeout = true;
  v.reason = "prediction timed out on a.sqlite";
  Outcome o = spider::outcome_of(v);
  EXPECT_EQ(o.stage, VerdictStage::Timeout);
  EXPECT_TRUE(o.deadline_hit);
  EXPECT_EQ(o.detail, "prediction timed out on a.sqlite");

  v = {};
  v.pred_failed = true;
  v.reason = "prediction failed on a.sqlite: near \"SELEC\": syntax error";
  EXPECT_EQ(spider::outcome_of(v).stage, VerdictStage::PredFailed);
  v = {};
  v.reason = "results differ on a.sqlite";
  EXPECT_EQ(spider::outcome_of(v).stage, VerdictStage::Different);
}

TEST(OutcomeSpider, RecordFieldsAreReadFromTheOutcome) {
  spider::Run run;
  run.opt.etype = spider::Etype::Exec;
  run.opt.compat = spider::Compat::TestSuite;
  run.opt.pred = "pred.txt";
  run.n_interactions = 3;
  for (size_t i = 0; i < 3; ++i) {
    spider::Example e;
    e.index = e.interaction = i;
    e.db_id = "shop";
    e.gold_sql = e.pred_sql = "SELECT 1";
    run.examples.push_back(e);
  }
  spider::ExecVerdict gold_bad, slow, same;
  gold_bad.gold_error = true;
  gold_bad.reason = "gold failed on shop.sqlite: boom";
  slow.timeout = true;
  slow.reason = "prediction timed out on shop.sqlite (comparing the result)";
  same.score = 1;
  run.examples[0].exec = spider::outcome_of(gold_bad);
  run.examples[1].exec = spider::outcome_of(slow);
  run.examples[2].exec = spider::outcome_of(same);
  const runs::RunRecord rec = spider::to_run_record(run, {"sqlgrade", "spider"});
  ASSERT_EQ(rec.instances.size(), 3u);
  EXPECT_EQ(rec.instances[0].detail["gold_exec_error"], true);
  EXPECT_EQ(rec.instances[0].detail["exec_reason"], "gold failed on shop.sqlite: boom");
  EXPECT_FALSE(rec.instances[0].detail.contains("timeout"));
  EXPECT_EQ(rec.instances[1].detail["timeout"], true);
  EXPECT_FALSE(rec.instances[1].detail.contains("gold_exec_error"));
  EXPECT_EQ(*rec.instances[1].score("exec"), 0.0);
  EXPECT_EQ(*rec.instances[2].score("exec"), 1.0);
  EXPECT_FALSE(rec.instances[2].detail.contains("exec_reason"));
  // ... and read back (sqlgrade merge) into the same stages.
  const spider::Run back = spider::run_from_record(rec);
  ASSERT_EQ(back.examples.size(), 3u);
  EXPECT_EQ(back.examples[0].exec->stage, VerdictStage::GoldFailed);
  EXPECT_EQ(back.examples[1].exec->stage, VerdictStage::Timeout);
  EXPECT_TRUE(back.examples[1].exec->deadline_hit);
  EXPECT_EQ(back.examples[2].exec->stage, VerdictStage::Equal);
  EXPECT_EQ(back.examples[1].exec_score(), 0);
  spider::Example none;
  EXPECT_EQ(none.exec_score(), -1);
}

TEST(OutcomeSpider2, GradeFrameEndsInOneOutcome) {
  const spider2::Frame gold = spider2::frame_from_csv_text("x\n1\n2\n", "gold.csv");
  spider2::EvalEntry entry;
  spider2::Options opt;
  spider2::Instance it;
  it.instance_id = "local001";
  spider2::grade_frame(gold, {gold}, true, entry, opt, it);
  EXPECT_EQ(it.outcome.stage, VerdictStage::Equal);
  EXPECT_EQ(it.outcome.score, 1.0);
  EXPECT_TRUE(it.outcome.detail.empty());

  const spider2::Frame other = spider2::frame_from_csv_text("x\n1\n", "pred.csv");
  spider2::grade_frame(other, {gold}, true, entry, opt, it);
  EXPECT_EQ(it.outcome.stage, VerdictStage::Different);
  EXPECT_EQ(it.outcome.score, 0.0);
  EXPECT_EQ(it.outcome.detail, "Result Error");  // the official error_info
}
