// sqlgrade._native: Spider whole-benchmark evaluation (sqlgrade.spider.evaluate) over the public C++
// API include/sqlgrade/spider.hpp — the calls `sqlgrade spider` makes (src/cli/spider_cmd.cpp):
// check_required, then evaluate (one compat mode) or evaluate_both (--compat both: one pass, the
// test-suite pass borrowing the spider pass's results), then render_text/render_json per run.
// The options struct (_native.SpiderOptions) is bound in evaluate.cpp with the other benchmarks'.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider.hpp"
#include "native.hpp"
#include "released.hpp"
#include "verify_eval.hpp"

namespace py = pybind11;

namespace {

namespace sp = sqlgrade::spider;
using sqlgrade_native::Rendered;

py::object score_or_none(int v) { return v < 0 ? py::object(py::none()) : py::object(py::int_(v)); }

py::dict spider_level(const sp::LevelScores& l, bool partial) {
  py::dict d;
  d["count"] = l.count;
  d["exact"] = l.exact;
  d["exec"] = l.exec;
  if (partial) {
    py::dict p;
    for (int c = 0; c < sp::C_COUNT; ++c) {
      py::dict x;
      x["acc"] = l.partial[c].acc, x["rec"] = l.partial[c].rec, x["f1"] = l.partial[c].f1;
      x["acc_count"] = l.partial[c].acc_count, x["rec_count"] = l.partial[c].rec_count;
      p[sp::kComponentNames[c]] = x;
    }
    d["partial"] = p;
  }
  return d;
}

py::list spider_instances(const sp::Run& run) {
  py::list inst;
  for (const auto& e : run.examples) {
    py::dict d;
    d["interaction"] = e.interaction, d["turn"] = e.turn;
    d["gold_line"] = e.gold_line, d["pred_line"] = e.pred_line;
    d["db_id"] = e.db_id, d["gold_sql"] = e.gold_sql;
    d["pred_sql"] = e.has_pred ? py::object(py::str(e.pred_sql)) : py::object(py::none());
    d["gold_ok"] = e.gold_ok;
    d["gold_error"] = e.gold_error;
    d["hardness"] = sp::to_string(e.hardness);
    d["pred_parsed"] = e.pred_parsed;
    d["parse_error"] = e.parse_error;
    d["exact"] = score_or_none(e.exact);
    // The run record's names (spider/record.cpp), read from the execution check's outcome.
    const sqlgrade::Outcome none;
    const sqlgrade::Outcome& o = e.exec ? *e.exec : none;
    d["exec"] = score_or_none(e.exec_score());
    d["exec_reason"] = o.detail;
    d["timeout"] = o.deadline_hit;
    d["gold_exec_error"] = o.stage == sqlgrade::VerdictStage::GoldFailed;
    d["exec_timeout"] = o.deadline_hit;  // deprecated aliases of the two above (before issue 32)
    d["exec_gold_error"] = d["gold_exec_error"];
    d["outcome"] = e.exec ? py::object(sqlgrade_native::outcome_dict(o)) : py::object(py::none());
    inst.append(d);
  }
  return inst;
}

// One run as Python sees it (sqlgrade.SpiderRun): its text and record, warnings and numbers.
py::dict spider_run_dict(const sp::Run& run, const Rendered& rendered) {
  const bool partial = run.opt.etype != sp::Etype::Exec;
  py::dict summary;
  static const char* const kLevels[6] = {"easy", "medium", "hard", "extra", "all", "joint_all"};
  for (int i = 0; i < 6; ++i) summary[kLevels[i]] = spider_level(run.scores.levels[i], partial);
  if (run.scores.include_turn) {
    py::list turns;
    for (const auto& t : run.scores.turns) turns.append(spider_level(t, partial));
    summary["turns"] = turns;
  }
  py::dict out;
  out["text"] = rendered.text;
  out["json"] = rendered.json;
  out["warnings"] = run.warnings;
  out["summary"] = summary;
  out["instances"] = spider_instances(run);
  out["n_interactions"] = run.n_interactions;
  return out;
}

Rendered render_run(const sp::Run& run) { return Rendered{sp::render_text(run), sp::render_json(run)}; }

// What every call does first, as the CLI: its check of the required inputs (and message); then no
// progress bar, and the first result rows kept: "json" is the run record the CLI's --json writes.
void prepare(sp::Options& o) {
  try {
    sp::check_required(o);
  } catch (const sqlgrade::InputError& e) {
    sqlgrade_native::raise_input_line(e.what());
  }
  o.progress = 0;
  o.keep_rows = true;
}

// verify: the CLI's --verify (verify_eval.hpp); the dict then has "verify", the search's report.
py::dict spider_evaluate(sp::Options o, std::optional<sqlgrade::verify::Options> verify) {
  prepare(o);
  if (verify) {
    try {
      sqlgrade::verify::check_verifiable(o);
      verify = sqlgrade_native::verify_options(*verify, o.jobs);
    } catch (const sqlgrade::InputError& e) {
      sqlgrade_native::raise_input_line(e.what());
    }
  }
  std::string report;
  auto r = sqlgrade_native::evaluate_released([&] { return sp::evaluate(o); }, [&](const sp::Run& run) {
    Rendered out = render_run(run);
    if (verify) report = sqlgrade_native::add_verification(sqlgrade::verify::verify_spider({run}, {o.pred}, *verify), *verify, out);
    return out;
  });
  py::dict d = spider_run_dict(r.run, r.out);
  if (verify) d["verify"] = report;
  return d;
}

// `sqlgrade spider --compat both` for one prediction file: one evaluate_both pass (o.compat is
// ignored), each mode's run as spider_evaluate returns it for that compat, the CLI's stdout, and the
// statements the pass executed and borrowed (the numbers of the CLI's stderr line).
py::dict spider_evaluate_both(sp::Options o, std::optional<sqlgrade::verify::Options> verify) {
  prepare(o);
  if (verify) {
    try {
      sqlgrade::verify::check_verifiable(o, true);  // refused: verification follows the test-suite rule only
    } catch (const sqlgrade::InputError& e) {
      sqlgrade_native::raise_input_line(e.what());
    }
  }
  struct BothRendered {
    Rendered spider, test_suite;
  };
  auto r = sqlgrade_native::evaluate_released([&] { return sp::evaluate_both(o, {o.pred}); },
                                              [](const sp::BothModes& b) {
                                                return BothRendered{render_run(b.spider[0]), render_run(b.test_suite[0])};
                                              });
  const sp::ExecCounts& c = r.run.counts;
  py::dict statements;
  statements["executed"] = c.spider + c.test_suite;
  statements["spider"] = c.spider;
  statements["test_suite"] = c.test_suite;
  statements["lent"] = c.lent;
  py::dict out;
  out["text"] = sp::both_header(sp::Compat::Spider) + r.out.spider.text + sp::both_header(sp::Compat::TestSuite) +
                r.out.test_suite.text;
  out["spider"] = spider_run_dict(r.run.spider[0], r.out.spider);
  out["test_suite"] = spider_run_dict(r.run.test_suite[0], r.out.test_suite);
  out["statements"] = statements;
  return out;
}

}  // namespace

void sqlgrade_native::register_spider_evaluate(py::module_& m) {
  m.def("spider_evaluate", &spider_evaluate, py::arg("options"), py::arg("verify") = py::none(),
        "`sqlgrade spider [--verify]` in-process (GIL released, nothing printed).");
  m.def("spider_evaluate_both", &spider_evaluate_both, py::arg("options"), py::arg("verify") = py::none(),
        "`sqlgrade spider --compat both` in-process: one pass of both modes (GIL released, nothing printed).");
}
