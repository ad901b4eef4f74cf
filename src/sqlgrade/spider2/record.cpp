// Spider 2.0-Lite as a run record (docs/run-record.schema.json, docs/comparing-runs.md §6) and the
// "spider2" summarizer that rebuilds the printed text from the instances' detail, so that
// `sqlgrade merge` of shards prints what grading everything at once prints.
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "sqlgrade/core/csv.hpp"
#include "sqlgrade/core/digest.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/runs/summary.hpp"
#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/report.hpp"
#include "sqlgrade/spider2/run.hpp"

namespace sqlgrade::spider2 {

namespace {

namespace fs = std::filesystem;
using runs::Json;

bool exists(const std::string& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

std::string basename_of(const std::string& dir) {
  fs::path p(dir);
  if (!p.has_filename()) p = p.parent_path();
  return p.filename().string();
}

// The numbers of the printed text (official lines, --v2 summary, --strict counts).
Json summary_of(const Run& r) {
  size_t c = 0, scrambled = 0, missed = 0;
  for (auto& it : r.items) c += it.outcome.match(), scrambled += it.strict_scrambled, missed += it.strict_sort_miss;
  const size_t n = r.items.size();
  Json s = {{"mode", r.opt.mode == Mode::Sql ? "sql" : "exec_result"},
            {"correct", c},
            {"total", n},
            {"final_score", n ? static_cast<double>(c) / static_cast<double>(n) : 0.0},
            {"real_score", static_cast<double>(c) / kRealTotal},
            {"real_total", kRealTotal}};
  if (r.opt.strict)
    s["strict"] = {{"scrambled", scrambled},
                   {"sort_miss", missed},
                   {"strict_score", n ? static_cast<double>(c - scrambled) / static_cast<double>(n) : 0.0}};
  if (r.opt.v2) s["v2"] = Json(v2_summary_json(r));
  return s;
}

// The first rows of a result CSV for the report's drill-down (cells as the CSV's text). Large ones
// (over kParseWhole bytes) are cut after kCutLines lines (the total is then unknown), and of a large
// file only the blocks up to that cut are read; a CSV that cannot be read keeps no rows.
constexpr size_t kRowsKept = 5;
constexpr size_t kParseWhole = 1 << 20;
constexpr size_t kCutLines = 64;

struct FirstRows {
  Json columns, rows;
  std::optional<size_t> total;
};

// The length of text up to and including its kCutLines-th line end (a '\n' at offset 0 does not
// count); npos when it has fewer.
size_t cut_length(std::string_view text) {
  size_t pos = 0;
  for (size_t n = 0; n < kCutLines && pos != std::string_view::npos; ++n) pos = text.find('\n', pos + 1);
  return pos == std::string_view::npos ? pos : pos + 1;
}

// `whole`: text is the entire CSV and small enough to parse whole (the total is then known).
std::optional<FirstRows> first_rows(std::string_view text, bool whole) {
  if (!whole) text = text.substr(0, cut_length(text));
  try {
    CsvOptions o;
    o.allow_ragged = true;
    CsvData d = parse_csv(text, "result", o);
    FirstRows f;
    f.columns = d.header;
    f.rows = Json::array();
    for (size_t i = 0; i < d.rows.size() && i < kRowsKept; ++i) f.rows.push_back(d.rows[i]);
    if (whole) f.total = d.rows.size();
    return f;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<FirstRows> first_rows(std::string_view text) { return first_rows(text, text.size() <= kParseWhole); }

// Of a file: a small one is read whole; a large one in 1 MiB blocks until the cut (or its end). No
// rows for a file that is missing, unreadable, not a regular file, or larger than any input the run
// reads (max_input_bytes()).
std::optional<FirstRows> first_rows_of_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  const auto size = fs::file_size(path, ec);
  if (ec || size > max_input_bytes()) return std::nullopt;
  try {
    if (size <= kParseWhole) return first_rows(read_file(path), true);
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text;
    constexpr size_t kBlock = size_t(1) << 20;
    while (in && cut_length(text) == std::string::npos) {
      const size_t have = text.size();
      text.resize(have + kBlock);
      in.read(text.data() + have, static_cast<std::streamsize>(kBlock));
      text.resize(have + static_cast<size_t>(in.gcount()));
      if (in.bad()) return std::nullopt;
    }
    return first_rows(text, false);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// gold: the first alternative (resolve_gold_files over `gold_listing`, the sorted exec_result folder).
Json rows_json(const Instance& it, const Options& opt, const std::vector<std::string>& gold_listing) {
  const std::string gold_dir = (fs::path(opt.gold_dir) / "exec_result").string();
  const GoldFiles gf = resolve_gold_files(gold_dir, it.instance_id, gold_listing);
  std::optional<FirstRows> g;
  if (!gf.paths.empty()) g = first_rows_of_file(gf.paths.front());
  std::optional<FirstRows> p;
  if (opt.mode == Mode::Sql) {
    if (it.result_csv) p = first_rows(*it.result_csv);
  } else {
    p = first_rows_of_file((fs::path(opt.result_dir) / (it.instance_id + ".csv")).string());
  }
  if (!g && !p) return Json();
  Json r = Json::object();
  bool truncated = false;
  for (auto& [side, f] : {std::pair<const char*, std::optional<FirstRows>*>{"gold", &g}, {"pred", &p}}) {
    if (!*f) continue;
    r[side] = (*f)->rows;
    r[std::string(side) + "_columns"] = (*f)->columns;
    if ((*f)->total) r[std::string(side) + "_total"] = *(*f)->total;
    truncated = truncated || !(*f)->total || *(*f)->total > (*f)->rows.size();
  }
  r["truncated"] = truncated;
  return r;
}

v2::Result v2_from_json(const Json& j) {
  v2::Result r;
  r.score = j.value("data_score", 0);
  const Json& c = j.at("column_metrics");
  r.columns.precision = c.at("precision"), r.columns.recall = c.at("recall"), r.columns.f1 = c.at("f1");
  r.columns.tp = c.at("true_positive_columns").get<std::vector<std::string>>();
  r.columns.fp = c.at("false_positive_columns").get<std::vector<std::string>>();
  r.columns.fn = c.at("false_negative_columns").get<std::vector<std::string>>();
  const Json& w = j.at("row_metrics");
  r.rows.precision = w.at("precision"), r.rows.recall = w.at("recall"), r.rows.f1 = w.at("f1");
  r.rows.tp = w.at("true_positive_rows"), r.rows.fp = w.at("false_positive_rows"), r.rows.fn = w.at("false_negative_rows");
  r.rows.common_columns = w.at("common_columns_used").get<std::vector<std::string>>();
  const Json& o = j.at("overall_metrics");
  r.overall.precision = o.at("precision"), r.overall.recall = o.at("recall"), r.overall.f1 = o.at("f1");
  r.overall.tp = o.at("tp"), r.overall.fp = o.at("fp"), r.overall.fn = o.at("fn");
  return r;
}

runs::Instance to_instance(const Instance& it, const Options& opt, const std::vector<std::string>& gold_listing) {
  runs::Instance x;
  x.id = it.instance_id;
  x.scores.emplace_back("ex", it.outcome.match() ? 1.0 : 0.0);
  if (opt.v2) {
    x.scores.emplace_back("v2_score", static_cast<double>(v2_data_score(it)));
    x.scores.emplace_back("column_f1", it.v2.columns.f1);
    x.scores.emplace_back("row_f1", it.v2.rows.f1);
    x.scores.emplace_back("overall_f1", it.v2.overall.f1);
  }
  if (it.db) x.category.emplace_back("db", *it.db);
  x.pred_sql = it.pred_sql;
  // The public gold SQL, when the gold folder has it (gold/sql/<id>.sql).
  const std::string gold_sql = (fs::path(opt.gold_dir) / "sql" / (it.instance_id + ".sql")).string();
  if (exists(gold_sql)) {
    try {
      x.gold_sql = read_file(gold_sql);
    } catch (const std::exception&) {
    }
  }
  if (!it.outcome.match()) x.failure_reason = it.outcome.detail;
  else if (opt.v2 && it.v2_error) x.failure_reason = *it.v2_error;
  if (opt.mode == Mode::Sql) x.time_s = it.seconds;
  x.rows = rows_json(it, opt, gold_listing);
  // The official script's per-instance fields: score 1/0, error_info null on a match.
  Json d = {{"score", it.outcome.match() ? 1 : 0}};
  d["error_info"] = it.outcome.match() ? Json() : Json(it.outcome.detail);
  if (!it.messages.empty()) d["messages"] = it.messages;
  if (opt.strict) {
    d["strict_findings"] = it.strict;
    d["strict_scrambled"] = it.strict_scrambled;
    d["strict_sort_miss"] = it.strict_sort_miss;
  }
  if (opt.v2) {
    d["v2"] = Json(v2::to_json(it.v2));
    if (it.v2_error) d["v2"]["error"] = *it.v2_error;
  }
  x.detail = std::move(d);
  return x;
}

Instance from_instance(const runs::Instance& x, bool v2) {
  Instance it;
  it.instance_id = x.id;
  const Json& d = x.detail;
  const double* ex = x.score("ex");
  // The stage of a failure is not in the record (its official fields are score and error_info):
  // a merged instance is Equal or Different.
  it.outcome.score = ex && *ex == 1.0 ? 1 : 0;
  it.outcome.stage = it.outcome.score == 1 ? VerdictStage::Equal : VerdictStage::Different;
  if (d.is_object()) {
    if (d.contains("error_info") && d["error_info"].is_string()) it.outcome.detail = d["error_info"].get<std::string>();
    if (d.contains("messages")) it.messages = d["messages"].get<std::vector<std::string>>();
    if (d.contains("strict_findings")) it.strict = d["strict_findings"].get<std::vector<std::string>>();
    it.strict_scrambled = d.value("strict_scrambled", false);
    it.strict_sort_miss = d.value("strict_sort_miss", false);
    if (v2 && d.contains("v2")) {
      it.v2 = v2_from_json(d["v2"]);
      if (d["v2"].contains("error")) it.v2_error = d["v2"]["error"].get<std::string>();
    }
  }
  it.pred_sql = x.pred_sql;
  if (const std::string* db = x.category_of("db")) it.db = *db;
  return it;
}

runs::SummaryOut summarize_record(const runs::RunRecord& rec) {
  Run r;
  const Json& o = rec.options;
  r.opt.mode = o.value("mode", std::string("sql")) == "sql" ? Mode::Sql : Mode::ExecResult;
  r.opt.strict = o.value("strict", false);
  r.opt.v2 = o.value("v2", false);
  // The printed paths derive from --result_dir: the (first) prediction input.
  for (auto& in : rec.inputs)
    if (in.role == "pred") {
      r.opt.result_dir = in.path;
      break;
    }
  try {
    for (auto& x : rec.instances) r.items.push_back(from_instance(x, r.opt.v2));
  } catch (const std::exception& e) {
    throw InputError("spider2 run record", std::string("instance detail cannot be read: ") + e.what());
  }
  runs::SummaryOut s;
  s.summary = summary_of(r);
  s.text = render_text(r);
  return s;
}

}  // namespace

bool has_record(const Run& run) { return !run.items.empty() || !run.opt.shard.empty(); }

std::string render_json(const Run& r, const std::vector<std::string>& command) {
  const Options& opt = r.opt;
  runs::RunRecord rec = runs::begin_run_record("spider2", r.started_at, r.wall_s, command);
  rec.system = opt.name.empty() ? basename_of(opt.result_dir) : opt.name;
  rec.metrics.push_back({"ex", runs::MetricKind::Binary, "Execution accuracy (evaluate.py)"});
  if (opt.v2) {
    rec.metrics.push_back({"v2_score", runs::MetricKind::Binary, "v2 data score (column and row F1 = 1)"});
    rec.metrics.push_back({"column_f1", runs::MetricKind::Continuous, "v2 column F1"});
    rec.metrics.push_back({"row_f1", runs::MetricKind::Continuous, "v2 row F1"});
    rec.metrics.push_back({"overall_f1", runs::MetricKind::Continuous, "v2 overall F1"});
  }
  rec.primary_metric = opt.v2 ? "v2_score" : "ex";
  rec.options = {{"mode", opt.mode == Mode::Sql ? "sql" : "exec_result"}, {"strict", opt.strict}, {"v2", opt.v2}};
  runs::note_clock(rec, opt.now);
  const std::string eval = (fs::path(opt.gold_dir) / "spider2lite_eval.jsonl").string();
  const std::string exec = (fs::path(opt.gold_dir) / "exec_result").string();
  rec.inputs.push_back({"eval", "gold", eval, sha256_file(eval)});
  rec.inputs.push_back({"gold", "gold", exec, sha256_path(exec)});
  const std::string meta = default_meta_path(opt);
  if (exists(meta)) rec.inputs.push_back({"meta", "gold", meta, sha256_file(meta)});
  if (opt.mode == Mode::Sql) {
    rec.inputs.push_back({"db", "gold", default_db_dir(opt), std::nullopt});  // large: not hashed
    rec.engines.emplace_back("sqlite", runs::sqlite_version());
    rec.timeout_s = opt.timeout_s;
  }
  rec.inputs.push_back({"pred", "pred", opt.result_dir, sha256_path(opt.result_dir)});
  rec.shard = runs::shard_spec(opt.shard, opt.shard_by);
  rec.summary = summary_of(r);
  rec.summary_text = render_text(r);
  rec.instances.reserve(r.items.size());
  std::vector<std::string> gold_listing;  // no gold rows when the folder cannot be listed
  try {
    gold_listing = sorted_listing(exec, "gold exec_result");
  } catch (const std::exception&) {
  }
  for (auto& it : r.items) rec.instances.push_back(to_instance(it, opt, gold_listing));
  return runs::render_run_record(std::move(rec));
}

void register_run_summarizer() { runs::register_summarizer("spider2", summarize_record); }

}  // namespace sqlgrade::spider2
