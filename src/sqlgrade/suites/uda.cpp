#include "sqlgrade/suites/uda.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <cstdio>
#include <map>
#include <mutex>
#include <fstream>
#include <set>
#include <thread>
#include <unistd.h>

#include "sqlgrade/judge/llm_trace.hpp"
#include "sqlgrade/csv.hpp"
#include "sqlgrade/error.hpp"
#include "sqlgrade/util/fs.hpp"
#include "sqlgrade/util/parallel.hpp"
#include "sqlgrade/util/text.hpp"

namespace sqlgrade::uda {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

std::vector<QueryItem> discover_queries(const fs::path& dir) {
  std::vector<QueryItem> out;
  std::vector<fs::path> tasks;
  for (auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) tasks.push_back(e.path());
  std::sort(tasks.begin(), tasks.end());
  for (auto& t : tasks) {
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(t))
      if (e.is_regular_file() && e.path().extension() == ".sql") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (auto& f : files)
      for (auto& st : split_sql_statements(read_file(f), f.string()))
        out.push_back({t.filename().string(), f.stem().string(), st});
  }
  return out;
}

namespace {

// SQL table name for a column reference of the shape (qualifier resolved, unqualified columns
// attributed to the first table of the query that has the column).
std::string table_of(const Dataset& ds, const QueryShape& shape, const ColumnRef& c) {
  if (!c.table.empty()) {
    std::string t = shape.table_for(c.table);
    return t.empty() ? c.table : t;
  }
  for (auto& t : shape.tables)
    if (auto* g = ds.resolve(t.name))
      if (ds.has_column(*g, c.column)) return t.name;
  for (auto& t : shape.tables)
    if (ds.attribute(t.name, c.column)) return t.name;
  return shape.tables.empty() ? "" : shape.tables[0].name;
}

const Attribute* attribute_of(const Dataset& ds, const QueryShape& shape, const ColumnRef& c) {
  std::string t = table_of(ds, shape, c);
  if (auto* a = ds.attribute(t, c.column)) return a;
  return ds.attribute_any(c.column);
}

bool is_stop_name(const std::string& name) {
  std::string l = to_lower(trim(name));
  return l == "id" || (l.size() > 3 && l.compare(l.size() - 3, 3, ".id") == 0);
}

std::string standard_header(std::string h) {
  h = trim(h);
  if (h.size() >= 2 && (h.front() == '"' || h.front() == '`') && (h.back() == '"' || h.back() == '`'))
    h = trim(h.substr(1, h.size() - 2));
  return h;
}

}  // namespace

Table read_result_csv(const fs::path& path) {
  CsvData csv = read_csv_file(path.string());
  Table t;
  std::vector<size_t> keep;
  for (size_t c = 0; c < csv.header.size(); ++c) {
    std::string h = standard_header(csv.header[c]);
    if (h.empty() || h.rfind("Unnamed", 0) == 0) continue;
    keep.push_back(c);
    t.columns.push_back(h);
  }
  for (auto& r : csv.rows) {
    Row row;
    for (size_t c : keep) row.push_back(is_na_token(r[c]) ? Value::null() : Value::text(r[c]));
    t.rows.push_back(std::move(row));
  }
  return t;
}

json Evaluator::sql_json(DuckConn& conn, const QueryItem& item, const QueryShape* parsed) {
  // Top level as the reference evaluator writes it: "sql" plus one block per table (spelled as in the
  // SQL) with value_type/description of every attribute the statement touches. sqlgrade's own
  // metadata goes under "meta".
  json j;
  j["sql"] = item.stmt.sql;
  json meta;
  meta["dataset"] = ds_.name();
  meta["task"] = item.task;
  meta["file"] = item.file_stem + ".sql";
  meta["index"] = item.stmt.index;
  meta["line"] = item.stmt.line;
  meta["comments"] = item.stmt.comments;
  if (!item.stmt.label.empty()) meta["label"] = item.stmt.label;
  if (item.stmt.label_number) meta["label_number"] = *item.stmt.label_number;
  if (!item.stmt.category.empty()) meta["category"] = item.stmt.category;
  if (!item.stmt.group.empty()) meta["group"] = item.stmt.group;
  try {
    QueryShape shape = parsed ? *parsed : parse_query_shape(conn, item.stmt.sql);
    meta["query_type"] = to_string(shape.type);
    json tables = json::object(), unknown = json::array();
    for (auto& t : shape.tables) {
      const GoldTable* g = ds_.resolve(t.name);
      tables[t.name] = {{"csv", g ? g->csv.filename().string() : ""}, {"attributes_key", g ? g->attr_key : ""}};
    }
    meta["tables"] = tables;
    std::set<std::pair<std::string, std::string>> seen;
    for (auto& c : shape.columns) {
      std::string t = table_of(ds_, shape, c);
      if (!seen.insert({to_lower(t), to_lower(c.column)}).second) continue;
      const Attribute* a = ds_.attribute(t, c.column);
      if (!a) {
        unknown.push_back(t.empty() ? c.column : t + "." + c.column);
        continue;
      }
      j[t][a->name] = {{"value_type", a->value_type}, {"description", a->description}};
    }
    if (!unknown.empty()) meta["unknown_columns"] = unknown;
  } catch (const std::exception& e) {
    meta["parse_error"] = e.what();
  }
  j["meta"] = meta;
  return j;
}

GoldRun Evaluator::run_gold(DuckConn& conn, const std::string& sql, const QueryShape* parsed) {
  GoldRun run;
  GoldPlan& plan = run.plan;
  plan.sql = sql;
  try {
    plan.shape = parsed ? *parsed : parse_query_shape(conn, sql);
  } catch (const std::exception& e) {
    run.error = std::string("gold SQL does not parse: ") + e.what();
    return run;
  }
  const QueryShape& shape = plan.shape;
  if (!shape.oversized_values.empty()) {
    // DuckDB would build this value in one step, outside memory_limit and its interrupt.
    run.error = "gold SQL asks for a value over " + std::to_string(kMaxValueBytes >> 20) + " MiB (" + shape.oversized_values[0] +
                "); not run: DuckDB builds it outside its memory limit";
    return run;
  }
  std::vector<std::string> names;
  for (auto& t : shape.tables) names.push_back(t.name);
  auto missing = ds_.ensure_names(names);
  if (!missing.empty()) {
    run.error = "unknown table '" + missing[0] + "' (no gold CSV matches it)";
    return run;
  }
  // Id columns are inserted before the select list first; literal offsets after the insertion point
  // move by its length (one parse per query).
  std::string gold_sql = sql;
  QueryShape lit_shape = shape;
  if (shape.type != QueryType::Aggregation && !shape.has_set_operation && !shape.select.empty()) {
    std::string inject;
    auto selects_name = [&](const std::string& n) {
      return std::any_of(shape.select.begin(), shape.select.end(), [&](auto& it) { return iequals(it.output_name, n); });
    };
    if (shape.tables.size() == 1) {
      if (!selects_name("id")) {
        inject += duck_ident(shape.tables[0].ref()) + ".id AS \"id\", ";
        plan.injected.push_back("id");
      }
    } else {
      for (auto& t : shape.tables) {
        std::string n = t.name + ".id";
        if (selects_name(n)) continue;
        inject += duck_ident(t.ref()) + ".id AS " + duck_ident(n) + ", ";
        plan.injected.push_back(n);
      }
    }
    if (!inject.empty()) {
      size_t pos = shape.select[0].begin;
      gold_sql = insert_before_select_list(sql, shape, inject);
      for (auto& l : lit_shape.literals)
        if (l.begin >= pos) {
          l.begin += inject.size();
          l.end += inject.size();
        }
    }
  }
  // Literals are cleaned like the cells; a literal that is a number written with thousands
  // separators ('383,997') is written plainly, as the numeric cells were loaded.
  gold_sql = rewrite_literals(gold_sql, lit_shape, [](const std::string& v) {
    std::string c = judge::clean_cell(v);
    if (c.find(',') != std::string::npos && !parse_double(c))
      if (auto d = judge::lenient_number(c)) return judge::canonical_number(*d);
    return c;
  });
  plan.gold_sql = gold_sql;
  Limits lim;
  lim.timeout_s = opt_.gold_timeout_s;
  lim.max_rows = 5'000'000;
  auto r = conn.execute(gold_sql, lim);
  run.seconds = r.seconds;
  if (!r.ok()) {
    run.error = std::string("gold SQL failed (") + sqlgrade::to_string(r.status) + "): " + collapse_ws(r.error);
    return run;
  }
  run.table = std::move(r.table);
  // map select items to gold columns
  size_t base = plan.injected.size();
  bool star = std::any_of(shape.select.begin(), shape.select.end(), [](auto& it) { return it.is_star; });
  if (star) {
    // a star expands to many columns: every non-injected gold column becomes an item
    QueryShape& s = plan.shape;
    std::vector<SelectItem> items;
    for (size_t c = base; c < run.table.width(); ++c) {
      SelectItem it;
      it.output_name = it.expr_text = run.table.columns[c];
      it.column = ColumnRef{"", run.table.columns[c]};
      it.is_plain_column = true;
      items.push_back(it);
    }
    s.select = items;
  }
  for (size_t i = 0; i < plan.shape.select.size(); ++i) plan.item_gold_col.push_back(static_cast<int>(base + i));
  if (base + plan.shape.select.size() != run.table.width()) {
    run.error = "gold result has " + std::to_string(run.table.width()) + " columns, expected " +
                std::to_string(base + plan.shape.select.size());
    return run;
  }
  // reported names; duplicates qualified with their table
  std::map<std::string, int> counts;
  for (auto& it : plan.shape.select) counts[to_lower(it.output_name)]++;
  for (auto& it : plan.shape.select) {
    std::string n = it.output_name;
    if (counts[to_lower(n)] > 1 && it.column && it.alias.empty())
      n = table_of(ds_, plan.shape, *it.column) + "." + it.column->column;
    plan.item_names.push_back(n);
  }
  return run;
}

QueryEval Evaluator::evaluate(DuckConn& conn, const std::string& sql, const fs::path& result_csv) {
  Table pred;
  try {
    pred = read_result_csv(result_csv);
  } catch (const InputError& e) {
    QueryEval ev;
    ev.status = "error";
    ev.reason = std::string("bad result file: ") + e.what();
    ev.gold = run_gold(conn, sql);
    return ev;
  }
  return evaluate_table(conn, sql, std::move(pred));
}

QueryEval Evaluator::evaluate_table(DuckConn& conn, const std::string& sql, Table pred) {
  QueryEval ev;
  ev.judge_name = judge_.name();
  ev.judge_model = judge_.model();
  ev.gold = run_gold(conn, sql);
  ev.pred = std::move(pred);
  if (!ev.gold.error.empty()) {
    ev.status = "error";
    ev.reason = ev.gold.error;
    return ev;
  }
  const GoldPlan& plan = ev.gold.plan;
  const QueryShape& shape = plan.shape;
  const Table& gold = ev.gold.table;
  Table& pr = ev.pred;

  // ---- map result columns ----
  std::vector<std::string> headers;
  for (auto& h : pr.columns) headers.push_back(to_lower(h));
  std::vector<char> used(headers.size(), 0);
  auto take = [&](const std::string& want) -> int {
    std::string w = to_lower(want);
    for (size_t c = 0; c < headers.size(); ++c)
      if (!used[c] && headers[c] == w) {
        used[c] = 1;
        return static_cast<int>(c);
      }
    return -1;
  };
  // id keys first so that attribute columns do not take them
  if (shape.type != QueryType::Aggregation) {
    for (auto& n : plan.injected) {
      KeySpec k;
      k.name = n;
      k.is_id = true;
      k.gold_col = gold.find_column(n);
      if (n == "id") {
        for (const char* cand : {"id", "file_name", "filename", "file_id", "doc_id"})
          if ((k.pred_col = take(cand)) >= 0) break;
        if (k.pred_col < 0 && shape.tables.size() == 1) {
          std::string t = to_lower(shape.tables[0].name);
          for (const std::string& cand : {t + ".id", t + ".file_name", t + ".filename"})
            if ((k.pred_col = take(cand)) >= 0) break;
        }
      } else {
        std::string t = n.substr(0, n.size() - 3);
        std::string alias;
        for (auto& tr : shape.tables)
          if (iequals(tr.name, t)) alias = tr.alias;
        for (const std::string& cand : {t + ".id", t + ".file_name", t + ".filename", t + "_id", alias + ".id"})
          if (!cand.empty() && cand[0] != '.' && (k.pred_col = take(cand)) >= 0) break;
      }
      if (k.pred_col < 0) ev.warnings.push_back("result.csv has no key column for '" + n + "'");
      ev.keys.push_back(k);
    }
  }
  std::vector<int> item_pred(shape.select.size(), -1);
  for (size_t i = 0; i < shape.select.size(); ++i) {
    const SelectItem& it = shape.select[i];
    std::vector<std::string> cands;
    if (!it.alias.empty()) cands.push_back(it.alias);
    cands.push_back(plan.item_names[i]);
    if (it.column && it.is_plain_column) {
      if (!it.column->table.empty()) cands.push_back(it.column->table + "." + it.column->column);
      std::string t = table_of(ds_, shape, *it.column);
      cands.push_back(t + "." + it.column->column);
      cands.push_back(it.column->column);
    }
    cands.push_back(it.expr_text);
    cands.push_back(gold.columns[plan.item_gold_col[i]]);
    cands.push_back(it.output_name);
    for (auto& c : cands)
      if (!c.empty() && (item_pred[i] = take(c)) >= 0) break;
    if (item_pred[i] < 0 && it.column) {  // pandas de-duplicated names: age_1, age_2
      for (int k = 1; k <= 3 && item_pred[i] < 0; ++k) item_pred[i] = take(it.column->column + "_" + std::to_string(k));
    }
  }
  // ---- keys for aggregation: the non-aggregate select items (the GROUP BY columns) ----
  std::vector<char> is_key(shape.select.size(), 0);
  if (shape.type == QueryType::Aggregation) {
    for (size_t i = 0; i < shape.select.size(); ++i) {
      if (shape.select[i].is_agg) continue;
      is_key[i] = 1;
      KeySpec k;
      k.name = plan.item_names[i];
      k.gold_col = plan.item_gold_col[i];
      k.pred_col = item_pred[i];
      if (k.pred_col < 0) ev.warnings.push_back("result.csv has no column for group key '" + k.name + "'");
      ev.keys.push_back(k);
    }
    for (auto& g : shape.group_by) {
      bool selected = std::any_of(shape.select.begin(), shape.select.end(), [&](auto& it) {
        return !it.is_agg && it.column && iequals(it.column->column, g.column);
      });
      if (!selected) ev.warnings.push_back("GROUP BY column '" + g.qualified() + "' is not selected; groups keyed by the selected columns");
    }
  }
  // ---- scored columns ----
  for (size_t i = 0; i < shape.select.size(); ++i) {
    const SelectItem& it = shape.select[i];
    const std::string& name = plan.item_names[i];
    if (is_key[i]) {
      ev.skipped.push_back(name);
      continue;
    }
    if (is_stop_name(name) || (it.column && it.is_plain_column && iequals(it.column->column, "id"))) {
      ev.skipped.push_back(name);
      continue;
    }
    ColumnSpec cs;
    cs.name = name;
    cs.gold_col = plan.item_gold_col[i];
    cs.pred_col = item_pred[i];
    const Attribute* a = it.column ? attribute_of(ds_, shape, *it.column) : nullptr;
    if (a) {
      cs.description = a->description;
      cs.value_type = a->value_type;
    }
    if (it.is_agg) {
      cs.kind = CellKind::Aggregate;
      cs.agg = it.agg;
      bool text = std::any_of(gold.rows.begin(), gold.rows.end(),
                              [&](const Row& r) { return r[cs.gold_col].kind == Kind::Text; });
      if (text) cs.kind = CellKind::Str;  // MIN/MAX over text
    } else if (cs.value_type == "int") {
      cs.kind = CellKind::Int;
    } else if (cs.value_type == "float") {
      cs.kind = CellKind::Float;
    } else if (cs.value_type == "multi_str") {
      cs.kind = CellKind::Multi;
    } else {
      cs.kind = CellKind::Str;
    }
    if (cs.pred_col < 0) ev.warnings.push_back("result.csv has no column for '" + name + "' (scored 0)");
    ev.columns.push_back(cs);
  }
  // ---- primary key for multi-entity documents ----
  MatchOptions mo;
  mo.query_type = to_string(shape.type);
  mo.group_keys_semantic = shape.type == QueryType::Aggregation;
  mo.float_tolerance = opt_.float_tolerance;
  mo.multi_sep = opt_.multi_sep;
  if (shape.type != QueryType::Aggregation) {
    int pick = -1;
    if (!opt_.primary_key.empty()) {
      for (size_t i = 0; i < shape.select.size() && pick < 0; ++i) {
        const SelectItem& it = shape.select[i];
        if (iequals(plan.item_names[i], opt_.primary_key) || iequals(it.output_name, opt_.primary_key) ||
            (it.column && (iequals(it.column->column, opt_.primary_key) || iequals(it.column->qualified(), opt_.primary_key))))
          pick = static_cast<int>(i);
      }
      if (pick < 0) ev.warnings.push_back("--primary-key '" + opt_.primary_key + "' is not a select column; default used");
    }
    if (pick < 0)
      for (size_t i = 0; i < shape.select.size() && pick < 0; ++i)
        if (!is_stop_name(plan.item_names[i]) && !shape.select[i].is_agg) pick = static_cast<int>(i);
    if (pick >= 0) {
      ev.primary_key = plan.item_names[pick];
      mo.primary_name = ev.primary_key;
      mo.primary_gold_col = plan.item_gold_col[pick];
      mo.primary_pred_col = item_pred[pick];
      if (shape.select[pick].column)
        if (auto* a = attribute_of(ds_, shape, *shape.select[pick].column)) mo.primary_description = a->description;
    }
  }
  ev.match = evaluate_match(gold, pr, ev.keys, ev.columns, mo, judge_);
  if (ev.match.multi_entity && !ev.primary_key.empty())
    ev.warnings.push_back("multi-entity rows matched inside each id by primary key '" + ev.primary_key + "'");
  for (auto& w : ev.match.warnings) ev.warnings.push_back(w);
  return ev;
}

// ---- outputs ----

std::string table_to_csv(const Table& t) {
  std::string out = csv_line(t.columns);
  std::vector<std::optional<std::string>> f;
  for (auto& r : t.rows) {
    f.clear();
    for (auto& v : r) f.push_back(v.is_null() ? std::nullopt : std::optional<std::string>(v.to_string()));
    out += csv_line(f);
  }
  return out;
}

ordered_json acc_json(const QueryEval& ev, const EvalOptions& opt) {
  ordered_json j;
  ordered_json cols = ordered_json::object();
  std::vector<std::string> evaluated;
  for (auto& c : ev.match.columns) {
    std::string key = c.name;
    for (int k = 2; cols.contains(key); ++k) key = c.name + "#" + std::to_string(k);
    cols[key] = {{"precision", c.precision}, {"recall", c.recall}, {"f1", c.f1}, {"kind", to_string(c.kind)},
                 {"judged_cells", c.judged}};
    evaluated.push_back(key);
  }
  j["columns"] = cols;
  j["macro_precision"] = ev.match.macro_precision;
  j["macro_recall"] = ev.match.macro_recall;
  j["macro_f1"] = ev.match.macro_f1;
  j["rows"] = {{"len_gold", ev.match.len_gold}, {"len_pred", ev.match.len_pred}, {"matched_rows", ev.match.pairs.size()}};
  j["row_precision"] = ev.match.row_precision;
  j["row_recall"] = ev.match.row_recall;
  j["row_f1"] = ev.match.row_f1;
  j["warnings"] = ev.warnings;
  ordered_json keys = ordered_json::array();
  for (auto& k : ev.keys) keys.push_back(k.name);
  j["used_keys"] = keys;
  j["evaluated_columns"] = evaluated;
  j["skipped_columns"] = ev.skipped;
  j["status"] = ev.status;
  if (!ev.reason.empty()) j["reason"] = ev.reason;
  j["mode"] = {{"query_type", to_string(ev.gold.plan.shape.type)},
               {"multi_entity", ev.match.multi_entity},
               {"primary_key", ev.primary_key}};
  // Per-query judge use: counted by the judge into the QueryTrace the driver opens around each
  // query (judge/llm_trace.hpp); outside a trace (library use) only the question count is known.
  judge::QueryJudgeCounts jc;
  if (auto* t = judge::QueryTrace::current()) jc = t->counts;
  j["judge"] = {{"name", ev.judge_name},          {"model", ev.judge_model},
                {"questions", ev.match.judge_questions}, {"calls", jc.calls},
                {"cache_hits", jc.cache_hits},      {"deduplicated", jc.deduplicated},
                {"failures", jc.failures}};
  j["tolerances"] = {{"float_tolerance", opt.float_tolerance},
                     {"float_rule", "|pred - gold| <= float_tolerance * max(1, |gold|)"},
                     {"aggregate_rule", "1 / (1 + |pred - gold| / |gold|); gold = 0: 1 / (1 + |pred|)"},
                     {"multi_value_sep", opt.multi_sep}};
  j["sql"] = ev.gold.plan.sql;
  j["gold_sql"] = ev.gold.plan.gold_sql;
  j["sqlgrade_version"] = SQLGRADE_VERSION;
  return j;
}

void write_query_outputs(const fs::path& out_dir, const QueryEval& ev, const EvalOptions& opt) {
  Table mg, mp;
  mg.columns = ev.gold.table.columns;
  mp.columns = ev.pred.columns;
  for (auto& [g, p] : ev.match.pairs) {
    mg.rows.push_back(ev.gold.table.rows[g]);
    mp.rows.push_back(ev.pred.rows[p]);
  }
  // The four files are written into a fresh sibling folder that then replaces out_dir with one
  // rename: readers see the old complete set or the new complete set, never a mix. (One directory
  // rename instead of four file renames also avoids ext4's flush-on-replace, which dominated run time.)
  fs::path tmp = out_dir;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) & 0xffffff);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) throw InputError(tmp.string(), "cannot create folder: " + ec.message());
  auto put = [&](const char* name, const std::string& content) {
    std::ofstream out(tmp / name, std::ios::binary);
    out << content;
    if (!out) {
      fs::remove_all(tmp, ec);
      throw InputError((out_dir / name).string(), "cannot write");
    }
  };
  put("gold_result.csv", table_to_csv(ev.gold.table));
  put("matched_gold_result.csv", table_to_csv(mg));
  put("matched_result.csv", table_to_csv(mp));
  put("acc.json", acc_json(ev, opt).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  fs::remove_all(out_dir, ec);
  fs::rename(tmp, out_dir, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    throw InputError(out_dir.string(), "cannot move results into place");
  }
}

// ---- datasets ----

json DatasetSummary::to_json() const {
  json j;
  j["dataset"] = dataset;
  json qs = json::array();
  std::map<std::string, std::array<double, 4>> by_task;  // n_ok, p, r, f1
  std::map<std::string, size_t> errors_by_task;
  std::array<double, 4> all{0, 0, 0, 0};
  size_t errors = 0;
  for (auto& q : queries) {
    qs.push_back({{"path", q.path}, {"task", q.task}, {"file", q.file_stem}, {"index", q.index},
                  {"label", q.label}, {"category", q.category}, {"query_type", q.query_type},
                  {"status", q.status}, {"reason", q.reason}, {"macro_precision", q.macro_precision},
                  {"macro_recall", q.macro_recall}, {"macro_f1", q.macro_f1}, {"len_gold", q.len_gold},
                  {"len_pred", q.len_pred}, {"matched_rows", q.matched_rows}, {"judge_questions", q.judge_questions}});
    if (q.status != "ok") {
      ++errors;
      errors_by_task[q.task]++;
      continue;
    }
    auto& t = by_task[q.task];
    t[0] += 1;
    t[1] += q.macro_precision;
    t[2] += q.macro_recall;
    t[3] += q.macro_f1;
    all[0] += 1;
    all[1] += q.macro_precision;
    all[2] += q.macro_recall;
    all[3] += q.macro_f1;
  }
  j["queries"] = qs;
  json cats = json::object();
  for (auto& [task, t] : by_task)
    cats[task] = {{"queries", t[0]}, {"errors", errors_by_task[task]}, {"macro_precision", t[1] / t[0]},
                  {"macro_recall", t[2] / t[0]}, {"macro_f1", t[3] / t[0]}};
  for (auto& [task, n] : errors_by_task)
    if (!cats.contains(task)) cats[task] = {{"queries", 0}, {"errors", n}};
  j["by_task"] = cats;
  j["overall"] = {{"queries", all[0]}, {"errors", errors},
                  {"macro_precision", all[0] ? all[1] / all[0] : 0.0},
                  {"macro_recall", all[0] ? all[2] / all[0] : 0.0},
                  {"macro_f1", all[0] ? all[3] / all[0] : 0.0}};
  return j;
}

std::string DatasetSummary::to_csv() const {
  std::string out = csv_line(std::vector<std::string>{"path", "task", "file", "index", "label", "category", "query_type",
                                                      "status", "reason", "macro_precision", "macro_recall", "macro_f1",
                                                      "len_gold", "len_pred", "matched_rows"});
  for (auto& q : queries)
    out += csv_line(std::vector<std::string>{q.path, q.task, q.file_stem, std::to_string(q.index), q.label, q.category,
                                             q.query_type, q.status, q.reason, python_float_repr(q.macro_precision),
                                             python_float_repr(q.macro_recall), python_float_repr(q.macro_f1),
                                             std::to_string(q.len_gold), std::to_string(q.len_pred),
                                             std::to_string(q.matched_rows)});
  return out;
}

std::vector<fs::path> dataset_dirs(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string(), "dataset folder not found");
  auto has_attrs = [](const fs::path& d) {
    for (auto& e : fs::directory_iterator(d))
      if (e.is_regular_file() && e.path().filename().string().ends_with("_attributes.json")) return true;
    return false;
  };
  if (has_attrs(dir)) return {dir};
  std::vector<fs::path> out;
  for (auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && has_attrs(e.path())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  if (out.empty()) throw InputError(dir.string(), "no dataset here (no *_attributes.json in it or its subfolders)");
  return out;
}

namespace {

// A small pool of DuckDB connections shared by worker threads.
class ConnPool {
 public:
  explicit ConnPool(Dataset& ds) : ds_(ds) {}
  std::unique_ptr<DuckConn> get() {
    std::lock_guard<std::mutex> lk(mu_);
    if (free_.empty()) return ds_.connect();
    auto c = std::move(free_.back());
    free_.pop_back();
    return c;
  }
  void put(std::unique_ptr<DuckConn> c) {
    std::lock_guard<std::mutex> lk(mu_);
    free_.push_back(std::move(c));
  }

 private:
  Dataset& ds_;
  std::mutex mu_;
  std::vector<std::unique_ptr<DuckConn>> free_;
};

RunEntry entry_for(const std::string& dataset, const QueryItem& item) {
  RunEntry e;
  e.dataset = dataset;
  e.task = item.task;
  e.file_stem = item.file_stem;
  e.index = item.stmt.index;
  e.label = item.stmt.label;
  e.category = item.stmt.category;
  e.path = (fs::path(dataset) / item.rel_dir()).generic_string();
  return e;
}

void fill_entry(RunEntry& e, const QueryEval& ev) {
  e.status = ev.status;
  e.reason = ev.reason;
  e.query_type = ev.gold.error.empty() || !ev.gold.plan.shape.select.empty() ? to_string(ev.gold.plan.shape.type) : "";
  if (ev.status == "ok") {
    e.macro_precision = ev.match.macro_precision;
    e.macro_recall = ev.match.macro_recall;
    e.macro_f1 = ev.match.macro_f1;
    e.len_gold = ev.match.len_gold;
    e.len_pred = ev.match.len_pred;
    e.matched_rows = ev.match.pairs.size();
    e.judge_questions = ev.match.judge_questions;
  }
}

}  // namespace

std::vector<DatasetSummary> run_datasets(const fs::path& dataset_dir, const fs::path& results_root,
                                         const RunOptions& opt, judge::Judge& jd) {
  std::vector<DatasetSummary> sums;
  std::error_code ec;
  if (!fs::is_directory(results_root, ec)) throw InputError(results_root.string(), "results folder not found");
  for (auto& dir : dataset_dirs(dataset_dir)) {
    Dataset ds(dir, opt.dataset);
    DatasetSummary sum;
    sum.dataset = ds.name();
    fs::path root = results_root / ds.name();
    if (!fs::is_directory(root, ec)) continue;
    // statements by relative folder, to find the SQL when a folder has no sql.json
    std::map<std::string, QueryItem> by_dir;
    std::vector<QueryItem> items = discover_queries(dir);
    for (auto& it : items) by_dir[it.rel_dir().generic_string()] = it;
    struct Job {
      fs::path folder;
      QueryItem item;
      std::string sql, error;
    };
    std::vector<Job> jobs;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied);
         it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file() || it->path().filename() != "result.csv") continue;
      if (it->path().parent_path().filename() == "acc_result") continue;
      Job job;
      job.folder = it->path().parent_path();
      std::string rel = fs::relative(job.folder, root).generic_string();
      auto found = by_dir.find(rel);
      if (found != by_dir.end()) {
        job.item = found->second;
      } else {
        auto parts = split(rel, "/");
        job.item.task = parts.size() > 0 ? parts[0] : "";
        job.item.file_stem = parts.size() > 1 ? parts[1] : "";
        job.item.stmt.index = parts.size() > 2 ? static_cast<int>(parse_int(parts[2]).value_or(0)) : 0;
      }
      fs::path sj = job.folder / "sql.json";
      if (fs::exists(sj)) {
        try {
          auto j = json::parse(read_file(sj));
          if (!j.is_object() || !j.contains("sql") || !j["sql"].is_string()) job.error = sj.string() + ": no \"sql\" string";
          else job.sql = j["sql"];
        } catch (const std::exception& e) {
          job.error = sj.string() + ": invalid JSON: " + e.what();
        }
      } else if (found != by_dir.end()) {
        job.sql = found->second.stmt.sql;
      } else {
        job.error = "no sql.json and no statement " + rel + " in the query files";
      }
      jobs.push_back(std::move(job));
    }
    std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
      return std::tie(a.item.task, a.item.file_stem, a.item.stmt.index) < std::tie(b.item.task, b.item.file_stem, b.item.stmt.index);
    });
    sum.queries.resize(jobs.size());
    Evaluator evaluator(ds, opt.eval, jd);
    ConnPool pool(ds);
    Progress progress("uda " + ds.name(), jobs.size(), opt.progress);
    parallel_for(jobs.size(), resolve_jobs(opt.jobs), [&](size_t i) {
      Job& job = jobs[i];
      RunEntry e = entry_for(ds.name(), job.item);
      e.path = (fs::path(ds.name()) / fs::relative(job.folder, root)).generic_string();
      if (!job.error.empty()) {
        e.status = "error";
        e.reason = job.error;
      } else {
        judge::QueryTrace trace(e.path);  // per-query judge counts (acc.json) and judge-log labels
        auto conn = pool.get();
        QueryEval ev = evaluator.evaluate(*conn, job.sql, job.folder / "result.csv");
        pool.put(std::move(conn));
        fill_entry(e, ev);
        try {
          write_query_outputs(job.folder / "acc_result", ev, opt.eval);
        } catch (const InputError& err) {
          e.status = "error";
          e.reason = std::string("cannot write outputs: ") + err.what();
        }
      }
      sum.queries[i] = e;
    }, &progress);
    progress.finish();
    write_file_atomic(root / "summary.json", sum.to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    write_file_atomic(root / "summary.csv", sum.to_csv());
    sums.push_back(std::move(sum));
  }
  return sums;
}

Table gold_as_result(const GoldRun& g) {
  Table t = g.table;
  for (size_t c = 0; c < g.plan.injected.size() && c < t.columns.size(); ++c) {
    std::string& n = t.columns[c];
    n = n.substr(0, n.size() - 2) + "file_name";
    for (auto& r : t.rows)
      if (!r[c].is_null()) r[c] = Value::text(r[c].to_string() + ".txt");
  }
  return t;
}

std::vector<DatasetSummary> prepare_datasets(const fs::path& dataset_dir, const fs::path& out_root, bool with_gold,
                                             const RunOptions& opt) {
  std::vector<DatasetSummary> sums;
  for (auto& dir : dataset_dirs(dataset_dir)) {
    Dataset ds(dir, opt.dataset);
    std::vector<QueryItem> items = discover_queries(dir);
    DatasetSummary sum;
    sum.dataset = ds.name();
    sum.queries.resize(items.size());
    judge::RulesJudge rules;
    Evaluator evaluator(ds, opt.eval, rules);
    ConnPool pool(ds);
    fs::path root = out_root / ds.name();
    Progress progress(std::string(with_gold ? "gold " : "prepare ") + ds.name(), items.size(), opt.progress);
    parallel_for(items.size(), resolve_jobs(opt.jobs), [&](size_t i) {
      const QueryItem& item = items[i];
      RunEntry e = entry_for(ds.name(), item);
      auto conn = pool.get();
      fs::path folder = root / item.rel_dir();
      std::optional<QueryShape> shape;
      try {
        shape = parse_query_shape(*conn, item.stmt.sql);
      } catch (const std::exception&) {
        // sql_json and run_gold parse again and report the parser's message
      }
      json sj = evaluator.sql_json(*conn, item, shape ? &*shape : nullptr);
      write_file_atomic(folder / "sql.json", sj.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
      if (sj["meta"].contains("query_type")) e.query_type = sj["meta"]["query_type"];
      if (with_gold) {
        GoldRun g = evaluator.run_gold(*conn, item.stmt.sql, shape ? &*shape : nullptr);
        if (!g.error.empty()) {
          e.status = "error";
          e.reason = g.error;
        } else {
          e.len_gold = g.table.size();
          write_file_atomic(folder / "gold_result.csv", table_to_csv(g.table));
          if (opt.gold_as_result) write_file_atomic(folder / "result.csv", table_to_csv(gold_as_result(g)));
        }
      }
      pool.put(std::move(conn));
      sum.queries[i] = e;
    }, &progress);
    progress.finish();
    if (with_gold) {
      json j = sum.to_json();
      json notes = ds.load_notes();
      j["load_notes"] = notes;
      write_file_atomic(root / "gold_summary.json", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }
    sums.push_back(std::move(sum));
  }
  return sums;
}

std::string summary_table(const std::vector<DatasetSummary>& sums) {
  char buf[256];
  std::string out;
  std::snprintf(buf, sizeof buf, "%-10s %-8s %7s %6s %9s %9s %9s\n", "dataset", "task", "queries", "errors", "precision",
                "recall", "f1");
  out += buf;
  std::array<double, 5> total{0, 0, 0, 0, 0};
  for (auto& s : sums) {
    std::map<std::string, std::array<double, 5>> t;  // ok, err, p, r, f
    for (auto& q : s.queries) {
      auto& a = t[q.task];
      if (q.status != "ok") {
        a[1] += 1;
        continue;
      }
      a[0] += 1;
      a[2] += q.macro_precision;
      a[3] += q.macro_recall;
      a[4] += q.macro_f1;
    }
    for (auto& [task, a] : t) {
      std::snprintf(buf, sizeof buf, "%-10s %-8s %7.0f %6.0f %9.3f %9.3f %9.3f\n", s.dataset.c_str(), task.c_str(),
                    a[0] + a[1], a[1], a[0] ? a[2] / a[0] : 0.0, a[0] ? a[3] / a[0] : 0.0, a[0] ? a[4] / a[0] : 0.0);
      out += buf;
      for (int k = 0; k < 5; ++k) total[k] += a[k];
    }
  }
  std::snprintf(buf, sizeof buf, "%-10s %-8s %7.0f %6.0f %9.3f %9.3f %9.3f\n", "all", "", total[0] + total[1], total[1],
                total[0] ? total[2] / total[0] : 0.0, total[0] ? total[3] / total[0] : 0.0,
                total[0] ? total[4] / total[0] : 0.0);
  out += buf;
  return out;
}

}  // namespace sqlgrade::uda
