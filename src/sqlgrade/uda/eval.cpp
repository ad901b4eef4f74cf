// UDA driver, evaluation of one result: reading result.csv, mapping its columns to the gold's keys
// and select items, choosing cell kinds and the primary key, then the comparison rule
// (uda/compare.hpp).
#include <algorithm>

#include "sqlgrade/core/csv.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda/driver.hpp"
#include "sqlgrade/uda/driver_internal.hpp"
#include "sqlgrade/core/text.hpp"

namespace sqlgrade::uda {

using detail::attribute_of;
using detail::is_stop_name;
using detail::table_of;

namespace {

std::string standard_header(std::string h) {
  h = trim(h);
  if (h.size() >= 2 && (h.front() == '"' || h.front() == '`') && (h.back() == '"' || h.back() == '`'))
    h = trim(h.substr(1, h.size() - 2));
  return h;
}

}  // namespace

TextTable read_result_csv(const fs::path& path, std::vector<std::string>* notes, size_t max_bytes) {
  // Bounded before anything is read: a result.csv far larger than any gold table is refused.
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (max_bytes && !ec && size > max_bytes)
    throw InputError(path.string(), "is " + std::to_string(size) + " bytes, more than the result limit of " +
                                        std::to_string(max_bytes) + " bytes (--max-result-mb)");
  const std::string text = read_csv_text(path.string(), max_bytes ? std::min(max_bytes, max_input_bytes()) : 0);
  CsvOptions opt;
  opt.allow_trailing_empty = true;  // a trailing comma loses nothing; pandas would refuse the file
  // Cells are stored as they are read, compactly (no table of strings, no Value per cell): the file's
  // text, plus its cells' bytes and 4 bytes a cell while it is read.
  TextTable t;
  std::vector<size_t> keep;
  std::vector<long> trailing;
  for_each_csv_record(text, path.string(), opt, [&](const CsvRecord& r) {
    if (r.header) {
      for (size_t c = 0; c < r.fields.size(); ++c) {
        std::string h = standard_header(r.fields[c]);
        if (h.empty() || h.rfind("Unnamed", 0) == 0) continue;
        keep.push_back(c);
        t.columns.push_back(h);
      }
      // Sized from the line ends and separators, so that nothing grows by doubling.
      const size_t rows = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
      const size_t seps = static_cast<size_t>(std::count(text.begin(), text.end(), ','));
      t.reserve(rows * keep.size(), text.size() > rows + seps ? text.size() - rows - seps : 0);
      return;
    }
    if (r.trailing_empty) trailing.push_back(r.line);
    for (size_t c : keep)
      if (is_na_token(r.fields[c])) t.push_null();
      else t.push_text(r.fields[c]);
    t.end_row();
  });
  if (notes && !trailing.empty()) {
    std::string lines;
    for (size_t k = 0; k < trailing.size() && k < 5; ++k) lines += (k ? ", " : "") + std::to_string(trailing[k]);
    if (trailing.size() > 5) lines += ", …";
    notes->push_back("result.csv: empty fields after the last column ignored on " + std::to_string(trailing.size()) +
                     " row(s) (line " + lines + ")");
  }
  return t;
}

void mark_unscored(QueryEval& ev, const char* kind, std::string reason) {
  if (!ev.gold->error.empty()) {  // without a gold result the statement is a gold error, whatever the result
    kind = kGoldError;
    reason = ev.gold->error;
  }
  ev.status = "error";
  ev.error_kind = kind;
  ev.reason = std::move(reason);
  MatchResult m;
  m.len_gold = ev.gold->error.empty() ? ev.gold->table.size() : 0;
  m.len_pred = ev.pred.size();
  for (auto& c : ev.columns) {
    ColumnResult r;
    r.name = c.name;
    r.kind = c.kind;
    m.columns.push_back(r);
  }
  ev.match = std::move(m);
}

namespace {
constexpr size_t kGoldMemoBytes = 64u << 20;
size_t gold_run_bytes(const GoldRun& g) {
  return sizeof(GoldRun) + heap_bytes(g.table) + heap_bytes(g.plan.sql) + heap_bytes(g.plan.gold_sql) + 256;
}
}  // namespace

Evaluator::Evaluator(Dataset& ds, EvalOptions opt, judge::Judge& jd)
    : ds_(ds), opt_(opt), judge_(jd),
      golds_(MemoBounds{SIZE_MAX, kGoldMemoBytes}, [](const std::string& key, const GoldRun& g) { return key.size() + gold_run_bytes(g); },
             [](const GoldRun& g) { return g.error.empty(); }) {}

std::shared_ptr<const GoldRun> Evaluator::gold(DuckConn& conn, const std::string& sql) {
  return golds_.get(ds_.name(), sql, [&] { return run_gold(conn, sql); });
}

QueryEval Evaluator::evaluate(DuckConn& conn, const std::string& sql, const fs::path& result_csv) {
  TextTable pred;
  std::vector<std::string> notes;
  try {
    pred = read_result_csv(result_csv, &notes, opt_.max_result_bytes);
  } catch (const InputError& e) {
    QueryEval ev;
    ev.judge_name = judge_.name();
    ev.judge_model = judge_.model();
    ev.gold = gold(conn, sql);
    mark_unscored(ev, kResultError, std::string("bad result file: ") + e.what());
    return ev;
  }
  QueryEval ev = evaluate_table(conn, sql, std::move(pred));
  ev.warnings.insert(ev.warnings.begin(), notes.begin(), notes.end());
  return ev;
}

QueryEval Evaluator::missing_result(DuckConn& conn, const std::string& sql, std::string reason) {
  QueryEval ev;
  ev.judge_name = judge_.name();
  ev.judge_model = judge_.model();
  ev.gold = gold(conn, sql);
  mark_unscored(ev, kMissingResult, std::move(reason));
  return ev;
}

namespace {

// The result's columns, each taken at most once, by case-insensitive header.
class ColumnPicker {
 public:
  explicit ColumnPicker(const TextTable& pr) {
    for (auto& h : pr.columns) headers_.push_back(to_lower(h));
    used_.assign(headers_.size(), 0);
  }
  int take(const std::string& want) {
    std::string w = to_lower(want);
    for (size_t c = 0; c < headers_.size(); ++c)
      if (!used_[c] && headers_[c] == w) {
        used_[c] = 1;
        return static_cast<int>(c);
      }
    return -1;
  }
  // The first candidate the result has.
  int take_first(const std::vector<std::string>& cands) {
    for (auto& c : cands)
      if (int k; !c.empty() && (k = take(c)) >= 0) return k;
    return -1;
  }

 private:
  std::vector<std::string> headers_;
  std::vector<char> used_;
};

// The result headers an injected id key (id, or <table>_id in a join) may have.
std::vector<std::string> id_candidates(const std::string& n, const QueryShape& shape) {
  std::vector<std::string> cands;
  if (n == "id") {
    cands = {"id", "file_name", "filename", "file_id", "doc_id"};
    if (shape.tables.size() == 1) {
      std::string t = to_lower(shape.tables[0].name);
      for (const std::string& c : {t + ".id", t + ".file_name", t + ".filename"}) cands.push_back(c);
    }
  } else {
    std::string t = n.substr(0, n.size() - 3);
    cands = {t + ".id", t + ".file_name", t + ".filename", t + "_id"};
    for (auto& tr : shape.tables)
      if (iequals(tr.name, t) && !tr.alias.empty()) cands.push_back(tr.alias + ".id");
  }
  return cands;
}

// Id keys first, so that attribute columns do not take them. A key column the result lacks goes to
// `missing`: its rows cannot be matched (never read as NULL keys, which would match the gold's id-less
// rows or NULL groups).
void map_id_keys(QueryEval& ev, const GoldPlan& plan, const Table& gold, ColumnPicker& pick,
                 std::vector<std::string>& missing) {
  for (auto& n : plan.injected) {
    KeySpec k;
    k.name = n;
    k.is_id = true;
    k.gold_col = gold.find_column(n);
    const std::vector<std::string> cands = id_candidates(n, plan.shape);
    k.pred_col = pick.take_first(cands);
    if (k.pred_col < 0) missing.push_back("'" + n + "' (looked for " + join(cands, ", ") + ")");
    ev.keys.push_back(k);
  }
}

// The result column of each select item (-1: none), by alias, name, qualified name, expression text.
std::vector<int> map_select_items(const Dataset& ds, const GoldPlan& plan, const Table& gold, ColumnPicker& pick) {
  const QueryShape& shape = plan.shape;
  std::vector<int> item_pred(shape.select.size(), -1);
  for (size_t i = 0; i < shape.select.size(); ++i) {
    const SelectItem& it = shape.select[i];
    std::vector<std::string> cands;
    if (!it.alias.empty()) cands.push_back(it.alias);
    cands.push_back(plan.item_names[i]);
    if (it.column && it.is_plain_column) {
      if (!it.column->table.empty()) cands.push_back(it.column->table + "." + it.column->column);
      cands.push_back(table_of(ds, shape, *it.column) + "." + it.column->column);
      cands.push_back(it.column->column);
    }
    cands.push_back(it.expr_text);
    cands.push_back(gold.columns[plan.item_gold_col[i]]);
    cands.push_back(it.output_name);
    item_pred[i] = pick.take_first(cands);
    if (item_pred[i] < 0 && it.column) {  // pandas de-duplicated names: age_1, age_2
      for (int k = 1; k <= 3 && item_pred[i] < 0; ++k) item_pred[i] = pick.take(it.column->column + "_" + std::to_string(k));
    }
  }
  return item_pred;
}

// Keys for aggregation: the non-aggregate select items (the GROUP BY columns). Returns which items.
std::vector<char> map_group_keys(QueryEval& ev, const GoldPlan& plan, const std::vector<int>& item_pred,
                                 std::vector<std::string>& missing) {
  const QueryShape& shape = plan.shape;
  std::vector<char> is_key(shape.select.size(), 0);
  for (size_t i = 0; i < shape.select.size(); ++i) {
    if (shape.select[i].is_agg) continue;
    is_key[i] = 1;
    KeySpec k;
    k.name = plan.item_names[i];
    k.gold_col = plan.item_gold_col[i];
    k.pred_col = item_pred[i];
    if (k.pred_col < 0) missing.push_back("'" + k.name + "' (a GROUP BY column)");
    ev.keys.push_back(k);
  }
  for (auto& g : shape.group_by) {
    bool selected = std::any_of(shape.select.begin(), shape.select.end(), [&](auto& it) {
      return !it.is_agg && it.column && iequals(it.column->column, g.column);
    });
    if (!selected) ev.warnings.push_back("GROUP BY column '" + g.qualified() + "' is not selected; groups keyed by the selected columns");
  }
  return is_key;
}

// How the cells of a scored column are compared: its aggregate, else its attribute's value type.
CellKind cell_kind(const SelectItem& it, const ColumnSpec& cs, const Table& gold) {
  if (it.is_agg) {
    bool text = std::any_of(gold.rows.begin(), gold.rows.end(), [&](const Row& r) { return r[cs.gold_col].kind == Kind::Text; });
    return text ? CellKind::Str : CellKind::Aggregate;  // MIN/MAX over text
  }
  if (cs.value_type == "int") return CellKind::Int;
  if (cs.value_type == "float") return CellKind::Float;
  if (cs.value_type == "multi_str") return CellKind::Multi;
  return CellKind::Str;
}

// The scored columns: every select item but the keys, stop names and plain id columns.
void map_scored_columns(QueryEval& ev, const Dataset& ds, const GoldPlan& plan, const Table& gold,
                        const std::vector<int>& item_pred, const std::vector<char>& is_key) {
  const QueryShape& shape = plan.shape;
  for (size_t i = 0; i < shape.select.size(); ++i) {
    const SelectItem& it = shape.select[i];
    const std::string& name = plan.item_names[i];
    if (is_key[i] || is_stop_name(name) || (it.column && it.is_plain_column && iequals(it.column->column, "id"))) {
      ev.skipped.push_back(name);
      continue;
    }
    ColumnSpec cs;
    cs.name = name;
    cs.gold_col = plan.item_gold_col[i];
    cs.pred_col = item_pred[i];
    if (const Attribute* a = it.column ? attribute_of(ds, shape, *it.column) : nullptr) {
      cs.description = a->description;
      cs.value_type = a->value_type;
    }
    if (it.is_agg) cs.agg = it.agg;
    cs.kind = cell_kind(it, cs, gold);
    if (cs.pred_col < 0) ev.warnings.push_back("result.csv has no column for '" + name + "' (scored 0)");
    ev.columns.push_back(cs);
  }
}

// The primary key for multi-entity documents: --primary-key when it names a select column, else the
// first non-aggregate select column that is not a stop name.
int pick_primary(QueryEval& ev, const EvalOptions& opt, const GoldPlan& plan) {
  const QueryShape& shape = plan.shape;
  int pick = -1;
  if (!opt.primary_key.empty()) {
    const std::string& pk = opt.primary_key;
    for (size_t i = 0; i < shape.select.size() && pick < 0; ++i) {
      const SelectItem& it = shape.select[i];
      if (iequals(plan.item_names[i], pk) || iequals(it.output_name, pk) ||
          (it.column && (iequals(it.column->column, pk) || iequals(it.column->qualified(), pk))))
        pick = static_cast<int>(i);
    }
    if (pick < 0) ev.warnings.push_back("--primary-key '" + pk + "' is not a select column; default used");
  }
  if (pick < 0)
    for (size_t i = 0; i < shape.select.size() && pick < 0; ++i)
      if (!is_stop_name(plan.item_names[i]) && !shape.select[i].is_agg) pick = static_cast<int>(i);
  return pick;
}

MatchOptions match_options(QueryEval& ev, const Dataset& ds, const EvalOptions& opt, const GoldPlan& plan,
                           const std::vector<int>& item_pred) {
  const QueryShape& shape = plan.shape;
  MatchOptions mo;
  mo.query_type = to_string(shape.type);
  mo.group_keys_semantic = shape.type == QueryType::Aggregation;
  mo.float_tolerance = opt.float_tolerance;
  mo.multi_sep = opt.multi_sep;
  if (shape.type == QueryType::Aggregation) return mo;
  const int pick = pick_primary(ev, opt, plan);
  if (pick < 0) return mo;
  ev.primary_key = plan.item_names[pick];
  mo.primary_name = ev.primary_key;
  mo.primary_gold_col = plan.item_gold_col[pick];
  mo.primary_pred_col = item_pred[pick];
  if (shape.select[pick].column)
    if (auto* a = attribute_of(ds, shape, *shape.select[pick].column)) mo.primary_description = a->description;
  return mo;
}

}  // namespace

// gold (memoised) → result columns mapped to keys and scored columns → rows matched and cells scored
// (evaluate_match) → the query's outcome.
QueryEval Evaluator::evaluate_table(DuckConn& conn, const std::string& sql, TextTable pred) {
  QueryEval ev;
  ev.judge_name = judge_.name();
  ev.judge_model = judge_.model();
  ev.gold = gold(conn, sql);
  ev.pred = std::move(pred);
  if (!ev.gold->error.empty()) {
    mark_unscored(ev, kGoldError, ev.gold->error);
    return ev;
  }
  const GoldPlan& plan = ev.gold->plan;
  const Table& gold = ev.gold->table;
  const bool aggregation = plan.shape.type == QueryType::Aggregation;
  ColumnPicker pick(ev.pred);
  std::vector<std::string> missing_keys;
  if (!aggregation) map_id_keys(ev, plan, gold, pick, missing_keys);
  const std::vector<int> item_pred = map_select_items(ds_, plan, gold, pick);
  const std::vector<char> is_key =
      aggregation ? map_group_keys(ev, plan, item_pred, missing_keys) : std::vector<char>(plan.shape.select.size(), 0);
  map_scored_columns(ev, ds_, plan, gold, item_pred, is_key);
  if (!missing_keys.empty()) {
    std::string what = "result.csv has no column for key " + join(missing_keys, ", ");
    if (ev.pred.size() > 0) {
      mark_unscored(ev, kResultError, what + "; its rows cannot be matched to the gold rows");
      return ev;
    }
    ev.warnings.push_back(what + " (the result has no rows)");
  }
  const MatchOptions mo = match_options(ev, ds_, opt_, plan, item_pred);
  ev.match = evaluate_match(gold, ev.pred, ev.keys, ev.columns, mo, judge_);
  if (ev.match.multi_entity && !ev.primary_key.empty())
    ev.warnings.push_back("multi-entity rows matched inside each id by primary key '" + ev.primary_key + "'");
  for (auto& w : ev.match.warnings) ev.warnings.push_back(w);
  return ev;
}

}  // namespace sqlgrade::uda
