// UDA driver, gold side: the statements of a dataset, sql.json, and each statement's gold result
// (query shape, id-column injection, literal cleaning, DuckDB execution).
#include <algorithm>
#include <map>
#include <set>

#include "sqlgrade/uda/driver.hpp"
#include "sqlgrade/uda/driver_internal.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/number.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::uda {

using json = nlohmann::json;

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

namespace detail {

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

}  // namespace detail

using detail::attribute_of;
using detail::table_of;

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

namespace {

// The gold runs with its id columns (that a select, filter or join query does not select itself)
// inserted before the select list, so that rows are matched by id: "id" for one table, "<t>.id" per
// table for a join. `lit_shape` gets the literal offsets after the insertion point moved by its length
// (one parse per query). Returns the SQL to run.
std::string inject_id_columns(const std::string& sql, const QueryShape& shape, GoldPlan& plan, QueryShape& lit_shape) {
  if (shape.type == QueryType::Aggregation || shape.has_set_operation || shape.select.empty()) return sql;
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
  if (inject.empty()) return sql;
  size_t pos = shape.select[0].begin;
  for (auto& l : lit_shape.literals)
    if (l.begin >= pos) {
      l.begin += inject.size();
      l.end += inject.size();
    }
  return insert_before_select_list(sql, shape, inject);
}

// Literals are cleaned like the cells; a literal that is a number written with thousands
// separators ('383,997') is written plainly, as the numeric cells were loaded.
std::string clean_literals(const std::string& sql, const QueryShape& lit_shape) {
  return rewrite_literals(sql, lit_shape, [](const std::string& v) {
    std::string c = judge::clean_cell(v);
    if (c.find(',') != std::string::npos && !py::parse_float(c))
      if (auto d = judge::lenient_number(c)) return judge::canonical_number(*d);
    return c;
  });
}

// The select items mapped to the gold result's columns (after the injected ids; a star expands to
// every remaining column) and the names they are reported by (a name selected twice qualified with
// its table). Returns the error when the column count does not add up.
std::string map_gold_items(const Dataset& ds, GoldRun& run) {
  GoldPlan& plan = run.plan;
  size_t base = plan.injected.size();
  bool star = std::any_of(plan.shape.select.begin(), plan.shape.select.end(), [](auto& it) { return it.is_star; });
  if (star) {
    std::vector<SelectItem> items;
    for (size_t c = base; c < run.table.width(); ++c) {
      SelectItem it;
      it.output_name = it.expr_text = run.table.columns[c];
      it.column = ColumnRef{"", run.table.columns[c]};
      it.is_plain_column = true;
      items.push_back(it);
    }
    plan.shape.select = items;
  }
  for (size_t i = 0; i < plan.shape.select.size(); ++i) plan.item_gold_col.push_back(static_cast<int>(base + i));
  if (base + plan.shape.select.size() != run.table.width())
    return "gold result has " + std::to_string(run.table.width()) + " columns, expected " +
           std::to_string(base + plan.shape.select.size());
  std::map<std::string, int> counts;
  for (auto& it : plan.shape.select) counts[to_lower(it.output_name)]++;
  for (auto& it : plan.shape.select) {
    std::string n = it.output_name;
    if (counts[to_lower(n)] > 1 && it.column && it.alias.empty())
      n = table_of(ds, plan.shape, *it.column) + "." + it.column->column;
    plan.item_names.push_back(n);
  }
  return "";
}

}  // namespace

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
  QueryShape lit_shape = shape;
  plan.gold_sql = clean_literals(inject_id_columns(sql, shape, plan, lit_shape), lit_shape);
  Limits lim;
  lim.timeout_s = opt_.gold_timeout_s;
  lim.max_rows = opt_.max_rows;
  auto r = conn.execute(plan.gold_sql, lim);
  run.seconds = r.seconds;
  if (!r.ok()) {
    run.error = std::string("gold SQL failed (") + sqlgrade::to_string(r.status) + "): " + collapse_ws(r.error);
    return run;
  }
  run.table = std::move(r.table);
  run.error = map_gold_items(ds_, run);
  return run;
}

Table gold_as_result(const GoldRun& g) {
  Table t = g.table;
  for (size_t c = 0; c < g.plan.injected.size() && c < t.columns.size(); ++c) {
    std::string& n = t.columns[c];
    n = n.substr(0, n.size() - 2) + "file_name";
    for (auto& r : t.rows)
      if (!r[c].is_null()) r[c] = Value::text(py::text(r[c]) + ".txt");
  }
  return t;
}

}  // namespace sqlgrade::uda
