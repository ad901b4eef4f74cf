// sqlgrade._native: whole-benchmark evaluation (sqlgrade.spider/bird/spider2/uda.evaluate) over the
// public C++ APIs include/sqlgrade/{spider,bird,spider2,uda}.hpp — the same calls the CLI makes.
//
// Each function takes the library's option struct (bound below: SpiderOptions, BirdOptions,
// Spider2Options, UdaOptions, UdaQueryOptions, their defaults the library's), runs the evaluation with the GIL released and no
// progress bar, and returns a dict: "text" (render_text: what the CLI prints on stdout), "json"
// (render_json: what the CLI's --json writes; absent where the CLI has none), "warnings" (the lines
// the CLI prints on stderr, unprinted) and the headline numbers as Python values ("summary",
// "instances"). Bad input raises _native.InputError with the CLI's one-line message (without the
// "sqlgrade: " prefix); nothing here prints. The Spider functions are in spider_eval.cpp (with
// --compat both); their options struct is bound here with the others.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sqlgrade/bird.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/uda.hpp"
#include "native.hpp"
#include "released.hpp"
#include "verify_eval.hpp"

namespace py = pybind11;

namespace {

using sqlgrade::first_line;

// _native.InputError with the first line of the message, as the CLI prints an error.
[[noreturn]] void raise_input(const std::string& msg) { sqlgrade_native::raise_input_line(msg); }

using sqlgrade_native::evaluate_released;
using sqlgrade_native::Rendered;
using sqlgrade_native::run_released;

py::object opt_str(const std::optional<std::string>& s) { return s ? py::object(py::str(*s)) : py::object(py::none()); }
py::object num_or_none(double v) { return std::isfinite(v) ? py::object(py::float_(v)) : py::object(py::none()); }

// ---- BIRD ----

// verify: the CLI's --verify (verify_eval.hpp); the dict then has "verify", the search's report.
py::dict bird_evaluate(sqlgrade::bird::Options o, std::optional<sqlgrade::verify::Options> verify) {
  namespace bd = sqlgrade::bird;
  try {
    bd::check_required(o);  // the CLI's check and message (bird/inputs.cpp)
    if (verify) {
      sqlgrade::verify::check_verifiable(o);
      verify = sqlgrade_native::verify_options(*verify, o.jobs);
    }
  } catch (const sqlgrade::InputError& e) {
    raise_input(e.what());
  }
  o.progress = 0;
  o.keep_rows = true;  // "json" is the run record the CLI's --json writes, first result rows included
  struct BirdRendered {
    bd::Summary sum;
    std::string text, json, log, report;
  };
  auto r = evaluate_released([&] { return bd::evaluate(o); }, [&](const bd::Run& run) {
    BirdRendered b{bd::summarize(run), bd::render_text(run), bd::render_json(run), bd::render_log_block(run), {}};
    if (verify) {
      Rendered x{std::move(b.text), std::move(b.json)};
      b.report = sqlgrade_native::add_verification(sqlgrade::verify::verify_bird({run}, {o.pred}, *verify),
                                                   *verify, x);
      b.text = std::move(x.text), b.json = std::move(x.json);
    }
    return b;
  });
  py::dict summary;
  static const char* const kBuckets[4] = {"simple", "moderate", "challenging", "total"};
  for (int i = 0; i < 4; ++i) {
    py::dict b;
    b["count"] = r.out.sum.counts[i];
    b["score"] = r.out.sum.empty[i] ? py::object(py::none()) : num_or_none(r.out.sum.scores[i]);
    summary[kBuckets[i]] = b;
  }
  py::list inst;
  for (const auto& it : r.run.items) {
    py::dict d;
    d["index"] = it.index;
    d["question_id"] = it.question_id < 0 ? py::object(py::none()) : py::object(py::int_(it.question_id));
    d["db_id"] = it.db_id, d["difficulty"] = it.difficulty, d["key"] = it.key;
    d["pred_sql"] = it.has_pred ? py::object(py::str(it.pred_sql)) : py::object(py::none());
    d["gold_sql"] = it.gold_sql;
    // The record's names (bird/record.cpp), then the outcome they are read from.
    d["correct"] = it.outcome.match(), d["score"] = it.outcome.score;
    if (r.run.metric == bd::Metric::Ves || r.run.metric == bd::Metric::RVes) d["time_ratio"] = it.time_ratio;
    d["status"] = it.outcome.status, d["reason"] = it.outcome.detail;
    d["outcome"] = sqlgrade_native::outcome_dict(it.outcome);
    inst.append(d);
  }
  py::dict out;
  out["text"] = r.out.text;
  out["json"] = r.out.json;
  out["log_block"] = r.out.log;
  out["warnings"] = r.run.warnings;
  out["metric"] = bd::metric_name(r.run.metric);
  out["summary"] = summary;
  out["instances"] = inst;
  if (verify) out["verify"] = r.out.report;
  return out;
}

// ---- Spider 2.0-Lite ----

py::dict spider2_evaluate(sqlgrade::spider2::Options o, bool write_outputs,
                          std::optional<sqlgrade::verify::Options> verify) {
  namespace s2 = sqlgrade::spider2;
  o.progress = 0;
  if (verify) {
    try {
      sqlgrade::verify::check_verifiable(o);
      verify = sqlgrade_native::verify_options(*verify, o.jobs);
    } catch (const sqlgrade::InputError& e) {
      raise_input(e.what());
    }
  }
  const bool strict = o.strict, v2 = o.v2;
  std::string report;
  auto r = evaluate_released([&] { return s2::evaluate(o); }, [&](const s2::Run& run) {
    if (write_outputs) s2::write_outputs(run);
    // the CLI's rule of a --json file (spider2::has_record: none for a run without items, but a shard's)
    Rendered out{s2::render_text(run), s2::has_record(run) ? s2::render_json(run) : std::string()};
    if (verify) report = sqlgrade_native::add_verification(sqlgrade::verify::verify_spider2({run}, *verify), *verify, out);
    return out;
  });
  long correct = 0;
  py::list inst;
  for (const auto& it : r.run.items) {
    const int s = v2 ? s2::v2_data_score(it) : it.outcome.match() ? 1 : 0;
    correct += s;
    py::dict d;
    d["instance_id"] = it.instance_id;
    // The official fields (the record's: score 1/0, error_info null on a match), then the outcome.
    d["score"] = it.outcome.match() ? 1 : 0;
    d["error_info"] = it.outcome.match() ? py::object(py::none()) : py::object(py::str(it.outcome.detail));
    d["outcome"] = sqlgrade_native::outcome_dict(it.outcome);
    d["pred_sql"] = opt_str(it.pred_sql);
    d["messages"] = it.messages;
    if (strict) {
      d["strict"] = it.strict;
      d["strict_scrambled"] = it.strict_scrambled;
      d["strict_sort_miss"] = it.strict_sort_miss;
    }
    if (v2) {
      py::dict m;
      m["score"] = it.v2.score;
      m["column_f1"] = it.v2.columns.f1, m["column_precision"] = it.v2.columns.precision;
      m["column_recall"] = it.v2.columns.recall;
      m["row_f1"] = it.v2.rows.f1, m["row_precision"] = it.v2.rows.precision, m["row_recall"] = it.v2.rows.recall;
      m["f1"] = it.v2.overall.f1, m["precision"] = it.v2.overall.precision, m["recall"] = it.v2.overall.recall;
      m["error"] = opt_str(it.v2_error);
      d["v2"] = m;
    }
    inst.append(d);
  }
  py::dict summary;
  summary["n_gold_ids"] = r.run.n_gold_ids;
  summary["n_pred_ids"] = r.run.n_pred_ids;
  summary["n_evaluated"] = r.run.items.size();
  summary["n_correct"] = correct;
  // evaluate.py: the score is the mean over the evaluated ids (those with gold and a prediction).
  summary["score"] = r.run.items.empty() ? py::object(py::none())
                                         : py::object(py::float_(double(correct) / double(r.run.items.size())));
  // evaluate.py's "Real score": correct / the full benchmark's size (hard-coded there).
  summary["real_score"] = double(correct) / double(s2::kRealTotal);
  py::dict out;
  out["text"] = r.out.text;
  out["json"] = r.out.json.empty() ? py::object(py::none()) : py::object(py::str(r.out.json));
  out["warnings"] = py::list();
  out["summary"] = summary;
  out["instances"] = inst;
  if (verify) out["verify"] = report;
  return out;
}

// ---- UDA-Bench ----

py::object opt_num(const std::optional<double>& v) { return v ? py::object(py::float_(*v)) : py::object(py::none()); }

py::dict uda_counts(const sqlgrade::uda::SummaryCounts& c) {
  py::dict d;
  d["statements"] = c.statements, d["scored"] = c.scored, d["result_errors"] = c.result_errors;
  d["missing_results"] = c.missing_results, d["gold_errors"] = c.gold_errors;
  d["averaged_over"] = c.averaged_over();
  d["precision"] = opt_num(c.precision()), d["recall"] = opt_num(c.recall()), d["f1"] = opt_num(c.f1());
  d["scored_precision"] = opt_num(c.scored_precision()), d["scored_recall"] = opt_num(c.scored_recall());
  d["scored_f1"] = opt_num(c.scored_f1());
  return d;
}

py::dict uda_entry(const sqlgrade::uda::RunEntry& e) {
  py::dict d;
  d["path"] = e.path, d["dataset"] = e.dataset, d["task"] = e.task, d["file_stem"] = e.file_stem;
  d["index"] = e.index, d["label"] = e.label, d["category"] = e.category, d["query_type"] = e.query_type;
  d["status"] = e.status, d["reason"] = e.reason;
  d["error_kind"] = e.error_kind.empty() ? py::object(py::none()) : py::object(py::str(e.error_kind));
  d["macro_precision"] = e.macro_precision, d["macro_recall"] = e.macro_recall, d["macro_f1"] = e.macro_f1;
  d["len_gold"] = e.len_gold, d["len_pred"] = e.len_pred, d["matched_rows"] = e.matched_rows;
  d["judge_questions"] = e.judge_questions;
  return d;
}

py::dict uda_run(sqlgrade::uda::Options o, bool list_errors) {
  namespace ud = sqlgrade::uda;
  o.run.progress = 0;
  struct UdaRendered {
    std::string text, json;
    ud::SummaryCounts totals;
  };
  auto r = evaluate_released([&] { return ud::evaluate(o); }, [&](const ud::Run& run) {
    return UdaRendered{ud::render_text(run, list_errors), ud::render_json(run, o), ud::totals(run)};
  });
  py::list datasets;
  for (const auto& ds : r.run.datasets) {
    py::dict d;
    d["dataset"] = ds.dataset;
    d["counts"] = uda_counts(ds.counts());
    py::list q;
    for (const auto& e : ds.queries) q.append(uda_entry(e));
    d["queries"] = q;
    d["load_notes"] = ds.load_notes;
    datasets.append(d);
  }
  py::dict out;
  out["text"] = r.out.text;
  out["json"] = r.out.json;  // the run record `uda run --json` writes (without the command line)
  out["summary"] = uda_counts(r.out.totals);
  out["datasets"] = datasets;
  out["judge_summary"] = r.run.judge_summary;
  return out;
}

py::dict uda_eval(sqlgrade::uda::QueryOptions o) {
  namespace ud = sqlgrade::uda;
  o.run.progress = 0;
  ud::QueryReport r = run_released([&] { return ud::evaluate_query(o); });
  py::dict out;
  out["ok"] = r.ok;
  out["error_kind"] = r.error_kind.empty() ? py::object(py::none()) : py::object(py::str(r.error_kind));
  out["reason"] = first_line(r.reason);
  out["acc_json"] = r.acc_json;
  out["text"] = r.acc_json + "\n";  // what `uda eval` prints on stdout (without --quiet)
  out["judge_summary"] = r.judge_summary;
  return out;
}

// ---- The library's option structs, bound field by field ----
//
// Defaults are the structs' own (include/sqlgrade/{spider,bird,spider2}.hpp: the CLI's); a numeric field
// is checked against its row of the table of bounds when it is set (the message names the Python
// keyword, "timeout: must be ..."), a choice goes through the library's parser and its message.

template <class O, class T>
void bounded(py::class_<O>& c, const char* name, const char* row, T O::*field) {
  c.def_property(
      name, [field](const O& o) { return o.*field; },
      [field, name, row](O& o, double v) { o.*field = static_cast<T>(sqlgrade_native::check_bound(row, v, name)); });
}

template <class O, class E>
void choice(py::class_<O>& c, const char* name, E O::*field, E (*parse)(const std::string&)) {
  c.def_property(
      name, [field](const O& o) { return static_cast<int>(o.*field); },
      [field, parse](O& o, const std::string& v) {
        try {
          o.*field = parse(v);
        } catch (const sqlgrade::InputError& e) {
          raise_input(e.what());
        }
      });
}

// `now` (SQL's clock, core/clock.hpp): a TIMESTAMP, checked and made canonical when set (the message
// names the keyword: "now: not a timestamp: ..."); "" = the real clock.
template <class O, class At>
void clock_field(py::class_<O>& c, At at) {
  c.def_property("now", [at](O& o) -> std::string { return at(o); }, [at](O& o, const std::string& v) {
    try {
      at(o) = sqlgrade::sql_clock::canonical(v, "now");
    } catch (const sqlgrade::InputError& e) {
      raise_input(e.what());
    }
  });
}

void register_options(py::module_& m) {
  namespace sp = sqlgrade::spider;
  py::class_<sp::Options> so(m, "SpiderOptions", "sqlgrade::spider::Options (`sqlgrade spider`'s flags).");
  so.def(py::init<>())
      .def_readwrite("gold", &sp::Options::gold)
      .def_readwrite("pred", &sp::Options::pred)
      .def_readwrite("db_dir", &sp::Options::db_dir)
      .def_readwrite("table", &sp::Options::table)
      .def_readwrite("plug_value", &sp::Options::plug_value)
      .def_readwrite("keep_distinct", &sp::Options::keep_distinct)
      .def_readwrite("shard_index", &sp::Options::shard_index)  // checked with shard_count by evaluate
      .def_readwrite("shard_count", &sp::Options::shard_count)
      .def_readwrite("shard_by", &sp::Options::shard_by)
      .def_readwrite("name", &sp::Options::name);
  choice(so, "etype", &sp::Options::etype, &sp::parse_etype);
  choice(so, "compat", &sp::Options::compat, &sp::parse_compat);
  bounded(so, "timeout", "timeout", &sp::Options::timeout_s);
  bounded(so, "jobs", "jobs", &sp::Options::jobs);
  clock_field(so, [](sp::Options& o) -> std::string& { return o.now; });

  namespace bd = sqlgrade::bird;
  py::class_<bd::Options> bo(m, "BirdOptions", "sqlgrade::bird::Options (`sqlgrade bird`'s flags).");
  bo.def(py::init<>())
      .def_readwrite("pred", &bd::Options::pred)
      .def_readwrite("gold", &bd::Options::gold)
      .def_readwrite("db_dir", &bd::Options::db_dir)
      .def_readwrite("diff_json", &bd::Options::diff_json)
      .def_readwrite("data_mode", &bd::Options::data_mode)
      .def_readwrite("sql_dialect", &bd::Options::sql_dialect)
      .def_readwrite("dsn", &bd::Options::dsn)
      .def_readwrite("answer_json", &bd::Options::answer_json)
      .def_readwrite("shard_index", &bd::Options::shard_index)  // checked with shard_count by evaluate
      .def_readwrite("shard_count", &bd::Options::shard_count)
      .def_readwrite("shard_by", &bd::Options::shard_by)
      .def_readwrite("name", &bd::Options::name);
  choice(bo, "metric", &bd::Options::metric, &bd::metric_from_name);
  choice(bo, "pair_by", &bd::Options::pair_by, &bd::pair_by_from_name);
  bounded(bo, "jobs", "jobs", &bd::Options::jobs);
  bounded(bo, "timeout", "timeout", &bd::Options::timeout_s);
  bounded(bo, "gold_timeout", "timeout", &bd::Options::gold_timeout_s);  // unset: -1, the same as timeout
  bounded(bo, "repeat", "repeat", &bd::Options::repeat);
  bounded(bo, "max_rows", "max_rows", &bd::Options::max_rows);
  clock_field(bo, [](bd::Options& o) -> std::string& { return o.now; });

  namespace s2 = sqlgrade::spider2;
  py::class_<s2::Options> s2o(m, "Spider2Options", "sqlgrade::spider2::Options (`sqlgrade spider2`'s flags).");
  s2o.def(py::init<>())
      .def_readwrite("result_dir", &s2::Options::result_dir)
      .def_readwrite("gold_dir", &s2::Options::gold_dir)
      .def_readwrite("db_dir", &s2::Options::db_dir)
      .def_readwrite("meta", &s2::Options::meta)
      .def_readwrite("strict", &s2::Options::strict)
      .def_readwrite("v2", &s2::Options::v2)
      .def_readwrite("errors_log", &s2::Options::errors_log)
      .def_readwrite("shard", &s2::Options::shard)  // "i/n", checked with shard_by by evaluate
      .def_readwrite("shard_by", &s2::Options::shard_by)
      .def_readwrite("name", &s2::Options::name);
  choice(s2o, "mode", &s2::Options::mode, &s2::mode_from_name);
  bounded(s2o, "jobs", "jobs", &s2::Options::jobs);
  bounded(s2o, "timeout", "timeout", &s2::Options::timeout_s);
  clock_field(s2o, [](s2::Options& o) -> std::string& { return o.now; });

  namespace vf = sqlgrade::verify;
  py::class_<vf::Options> vo(m, "VerifyOptions",
                             "sqlgrade::verify::Options (the CLI's --verify-budget, --verify-candidates, --seed, --counterexamples).");
  vo.def(py::init<>()).def_readwrite("counterexamples", &vf::Options::counterexamples_dir);
  bounded(vo, "budget", "verify_budget", &vf::Options::budget_s);
  bounded(vo, "candidates", "verify_candidates", &vf::Options::candidates);
  bounded(vo, "seed", "seed", &vf::Options::seed);
}

// UDA's options are nested (RunOptions: DatasetOptions, EvalOptions; JudgeOptions); the CLI's flags
// and the Python keywords are flat: each keyword is a property that reaches its field through `at`.
template <class O, class T, class At>
void field(py::class_<O>& c, const char* name, At at) {
  c.def_property(name, [at](O& o) -> T { return at(o); }, [at](O& o, const T& v) { at(o) = v; });
}

template <class O, class T, class At>
void bounded_at(py::class_<O>& c, const char* name, const char* row, At at) {
  c.def_property(name, [at](O& o) -> T { return at(o); }, [at, name, row](O& o, double v) {
    at(o) = static_cast<T>(sqlgrade_native::check_bound(row, v, name));
  });
}

template <class O>
void uda_common(py::class_<O>& c) {
  namespace ud = sqlgrade::uda;
  using Path = std::optional<std::filesystem::path> ud::DatasetOptions::*;
  for (auto [name, member] : {std::pair<const char*, Path>{"attributes_file", &ud::DatasetOptions::attributes_file},
                              {"gt_dir", &ud::DatasetOptions::gt_dir}, {"table_map", &ud::DatasetOptions::table_map}})
    c.def_property(name, [member](O& o) { auto& p = o.run.dataset.*member; return p ? p->string() : std::string(); },
                   [member](O& o, const std::string& v) {
                     auto& p = o.run.dataset.*member;
                     if (v.empty()) p.reset();  // "": the default (as the flag not given)
                     else p = std::filesystem::path(v);
                   });
  c.def_property("memory_limit", [](O& o) { return o.run.dataset.memory_limit; }, [](O& o, const std::string& v) {
    if (auto why = ud::memory_size_error(v); !why.empty()) raise_input("--memory-limit: " + why);  // the CLI's check
    o.run.dataset.memory_limit = v;
  });
  c.def_property("judge", [](O& o) { return static_cast<int>(o.judge.kind); }, [](O& o, const std::string& v) {
    try {
      o.judge.kind = ud::JudgeOptions::kind_from_name(v);  // the CLI's check and message
    } catch (const sqlgrade::InputError& e) {
      raise_input(e.what());
    }
  });
  field<O, std::string>(c, "primary_key", [](O& o) -> std::string& { return o.run.eval.primary_key; });
  field<O, std::string>(c, "multi_value_sep", [](O& o) -> std::string& { return o.run.eval.multi_sep; });
  field<O, std::string>(c, "llm_base_url", [](O& o) -> std::string& { return o.judge.base_url; });
  field<O, std::string>(c, "llm_model", [](O& o) -> std::string& { return o.judge.model; });
  field<O, std::string>(c, "llm_api_key", [](O& o) -> std::string& { return o.judge.api_key; });
  field<O, std::string>(c, "llm_cache", [](O& o) -> std::string& { return o.judge.cache; });
  field<O, std::string>(c, "judge_log", [](O& o) -> std::string& { return o.judge.log; });
  bounded_at<O, double>(c, "gold_timeout", "timeout", [](O& o) -> double& { return o.run.eval.gold_timeout_s; });
  clock_field(c, [](O& o) -> std::string& { return o.run.now; });
  bounded_at<O, double>(c, "float_tolerance", "float_tolerance", [](O& o) -> double& { return o.run.eval.float_tolerance; });
  bounded_at<O, int>(c, "jobs", "jobs", [](O& o) -> int& { return o.run.jobs; });
  bounded_at<O, int>(c, "llm_concurrency", "llm_concurrency", [](O& o) -> int& { return o.judge.concurrency; });
  bounded_at<O, int>(c, "llm_retries", "llm_retries", [](O& o) -> int& { return o.judge.retries; });
  bounded_at<O, int>(c, "llm_max_tokens", "llm_max_tokens", [](O& o) -> int& { return o.judge.max_tokens; });
  bounded_at<O, int>(c, "llm_max_failures", "llm_max_failures", [](O& o) -> int& { return o.judge.max_failures; });
  bounded_at<O, double>(c, "llm_timeout", "llm_timeout", [](O& o) -> double& { return o.judge.timeout_s; });
}

void register_uda_options(py::module_& m) {
  namespace ud = sqlgrade::uda;
  py::class_<ud::Options> uo(m, "UdaOptions", "sqlgrade::uda::Options (`sqlgrade uda run`'s flags, flat).");
  uo.def(py::init<>())
      .def_readwrite("dataset_dir", &ud::Options::dataset_dir)
      .def_readwrite("results", &ud::Options::results)
      .def_readwrite("name", &ud::Options::name)
      .def_property(  // checked with shard_count and shard_by by evaluate
          "shard_index", [](ud::Options& o) { return o.run.shard_index; }, [](ud::Options& o, int v) { o.run.shard_index = v; })
      .def_property(
          "shard_count", [](ud::Options& o) { return o.run.shard_count; }, [](ud::Options& o, int v) { o.run.shard_count = v; })
      .def_property(
          "shard_by", [](ud::Options& o) { return o.run.shard_by; }, [](ud::Options& o, const std::string& v) { o.run.shard_by = v; });
  uda_common(uo);
  py::class_<ud::QueryOptions> qo(m, "UdaQueryOptions", "sqlgrade::uda::QueryOptions (`sqlgrade uda eval`'s flags).");
  qo.def(py::init<>())
      .def_readwrite("dataset_dir", &ud::QueryOptions::dataset_dir)
      .def_readwrite("dataset", &ud::QueryOptions::dataset)
      .def_readwrite("query_root", &ud::QueryOptions::query_root)
      .def_readwrite("sql_file", &ud::QueryOptions::sql_file)
      .def_readwrite("result_csv", &ud::QueryOptions::result_csv)
      .def_readwrite("output_dir", &ud::QueryOptions::output_dir);
  bounded(qo, "query_id", "query_id", &ud::QueryOptions::query_id);  // unset: 0, the only statement
  uda_common(qo);
}

}  // namespace

py::dict sqlgrade_native::outcome_dict(const sqlgrade::Outcome& o) {
  py::dict d;
  d["stage"] = sqlgrade::to_string(o.stage);
  d["failure_reason"] = o.failure_reason();
  d["status"] = o.status;
  d["score"] = o.score;
  d["detail"] = o.detail;
  d["deadline_hit"] = o.deadline_hit;
  return d;
}

void sqlgrade_native::register_evaluate(py::module_& m) {
  register_options(m);
  register_uda_options(m);
  register_spider_evaluate(m);  // spider_eval.cpp
  m.def("bird_evaluate", &bird_evaluate, py::arg("options"), py::arg("verify") = py::none(),
        "`sqlgrade bird [--verify]` in-process (GIL released, nothing printed).");
  m.def("spider2_evaluate", &spider2_evaluate, py::arg("options"), py::arg("write_outputs"), py::arg("verify") = py::none(),
        "`sqlgrade spider2 [--verify]` in-process (GIL released, nothing printed; files only with write_outputs).");
  m.def("uda_run", &uda_run, py::arg("options"), py::arg("list_errors"),
        "`sqlgrade uda run` in-process (GIL released, nothing printed).");
  m.def("uda_eval", &uda_eval, py::arg("options"), "`sqlgrade uda eval` in-process (GIL released, nothing printed).");
}
