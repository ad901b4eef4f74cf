// Spider 2.0-Lite as the Benchmark contract (bench.hpp): the official rule (score_against_golds, the
// same as grade_frame's) on one rollout's frames.
#include "sqlgrade/spider2/bench.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "sqlgrade/errors.hpp"

#include "sqlgrade/spider2.hpp"
#include "sqlgrade/py/pandas_frame.hpp"
#include "sqlgrade/spider2/frame.hpp"
#include "sqlgrade/spider2/inputs.hpp"

namespace sqlgrade::spider2 {

using json = nlohmann::json;

size_t FramesGold::heap_bytes() const {
  size_t b = vector_heap_bytes(frames);
  for (auto& f : frames) b += py::heap_bytes(f);
  return b;
}

bool is_local(const std::string& instance_id) { return instance_id.rfind("local", 0) == 0; }

bool per_alternative(const json& cc) {
  return cc.is_array() && std::any_of(cc.begin(), cc.end(), [](const json& e) { return e.is_array(); });
}

namespace {

namespace fs = std::filesystem;

// --spider2-gold-dir: spider2lite_eval.jsonl read with the CLI's loader (the same ignore_order and
// condition_cols rules), each instance's gold CSVs found as `sqlgrade spider2` finds them.
class OfficialFolder final : public OfficialGold {
 public:
  explicit OfficialFolder(const std::string& dir) {
    const std::string path = (fs::path(dir) / "spider2lite_eval.jsonl").string();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) throw InputError(path, "not found (--spider2-gold-dir needs spider2lite_eval.jsonl)");
    entries_ = load_eval_jsonl(path);
    exec_result_dir_ = (fs::path(dir) / "exec_result").string();
    // The CLI's listing; a folder without exec_result/ serves no gold ("No matching gold file found").
    if (fs::is_directory(exec_result_dir_, ec)) listing_ = sorted_listing(exec_result_dir_, "gold exec_result");
  }
  size_t size() const override { return entries_.size(); }
  bool has(const std::string& id) const override { return entries_.count(id) > 0; }
  void check_options(const std::string& id, CheckItem& item) const override {
    const EvalEntry& e = entries_.at(id);
    item.ignore_order = e.ignore_order;  // load_eval_jsonl: booleans and numbers (1/0), as the CLI
    item.condition_cols = &e.condition_cols;
  }
  Read read(const std::string& id) const override {
    Read r;
    auto form = std::make_shared<FramesGold>();
    const GoldFiles gf = resolve_gold_files(exec_result_dir_, id, listing_);
    form->single_file = gf.single;
    if (gf.paths.empty()) r.error = "No matching gold file found for " + id;
    for (auto& f : gf.paths) {
      try {
        form->frames.push_back(frame_from_csv_file(f));
      } catch (const std::exception& e) {
        r.error = std::string("gold CSV unreadable: ") + e.what();
        r.transient = true;  // may be a full file table or an I/O error: read it again next time
        form->frames.clear();
        break;
      }
    }
    r.form = std::move(form);
    return r;
  }

 private:
  std::map<std::string, EvalEntry> entries_;
  std::string exec_result_dir_;
  std::vector<std::string> listing_;  // sorted names in exec_result/
};

class Spider2 final : public Benchmark {
 public:
  const char* name() const override { return "spider2"; }
  const std::vector<std::string>& aliases() const override {
    static const std::vector<std::string> a{"spider2_lite", "spider2-lite", "spider2lite"};
    return a;
  }
  DbLayout layout() const override { return DbLayout::Flat; }
  const char* folder_flags() const override { return "--db-dir"; }
  bool has_official_gold() const override { return true; }
  std::unique_ptr<const OfficialGold> official_gold(const std::string& dir) const override {
    return std::make_unique<OfficialFolder>(dir);
  }
  bool has_order_rule() const override { return true; }
  // Python bool: prints "True"/"False" into the official CSV.
  Value bool_cell(bool b) const override { return Value::text(b ? "True" : "False"); }
  GoldFormPtr gold_form(std::vector<Table> tables, const Deadline& deadline) const override {
    auto g = std::make_shared<FramesGold>();
    for (auto& t : tables) g->frames.push_back(frame_from_table(t, deadline));
    return g;
  }
  Outcome check(const CheckItem& item, const GoldForm& gold, const Table& pred, const Deadline& deadline) const override;
  void register_run_summarizer() const override { spider2::register_run_summarizer(); }
  // One gold: a list of lists of condition_cols applies by its element 0 (as check() reads it).
  std::string search_item(const SearchQuery& q, SearchItem& item) const override {
    json cc = q.condition_cols ? *q.condition_cols : json();
    if (per_alternative(cc)) {
      auto resolved = resolve_condition_cols(cc, 1);
      if (resolved.empty() || !resolved[0]) return "condition_cols cannot be resolved";
      cc = *resolved[0];
    }
    item.gold_sql = q.gold_sql, item.pred_sql = q.pred_sql;
    item.rule = {SearchRule::Spider2Columns, false, cc, q.ignore_order};
    return "";
  }
};

// gold_sql: one gold, graded like an official <id>.csv (a flat condition_cols is used whole), except
// that a list of lists (one per alternative, as 10 of the 24 public-SQL tasks carry) takes the
// multi-gold path, whose element 0 applies (NeMo Gym does the same).
Outcome Spider2::check(const CheckItem& item, const GoldForm& gold, const Table& pred, const Deadline& deadline) const {
  const auto& g = static_cast<const FramesGold&>(gold);
  Outcome o;
  Frame pf;
  try {
    pf = frame_from_table(pred, deadline);
  } catch (const DeadlineExceeded&) {
    throw;
  } catch (const std::exception& e) {
    o.detail = std::string("prediction result cannot be read as the official CSV: ") + e.what();
    return o;
  }
  EvalEntry entry;
  entry.instance_id = std::string(item.instance_id);
  if (item.condition_cols) entry.condition_cols = *item.condition_cols;
  entry.ignore_order = item.ignore_order;
  bool single = (item.from_gold_sql && !per_alternative(entry.condition_cols)) || g.single_file;
  if (item.single_file) single = *item.single_file;
  std::string err;
  if (score_against_golds(pf, g.frames, entry, single, &err, deadline) == 1) {
    o.stage = VerdictStage::Equal, o.score = 1;
  } else {
    o.detail = err.empty() ? "result differs from the gold" : err;
  }
  return o;
}

}  // namespace

const Benchmark& benchmark() {
  static const Spider2 b;
  return b;
}

}  // namespace sqlgrade::spider2
