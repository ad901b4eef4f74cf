#include "sqlgrade/uda/query_shape.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "sqlgrade/engine/duckdb.hpp"
#include "sqlgrade/core/text.hpp"

namespace sqlgrade::uda {

using json = nlohmann::json;

const char* to_string(QueryType t) {
  switch (t) {
    case QueryType::SelectFilter: return "select_filter";
    case QueryType::Join: return "join";
    case QueryType::Aggregation: return "aggregation";
  }
  return "?";
}

std::string QueryShape::table_for(const std::string& q) const {
  if (q.empty()) return "";
  for (auto& t : tables)
    if (!t.alias.empty() && iequals(t.alias, q)) return t.name;
  for (auto& t : tables)
    if (iequals(t.name, q)) return t.name;
  return "";
}

namespace {

constexpr size_t kNoLoc = std::numeric_limits<size_t>::max();

// Member access that never asserts: a missing key gives null.
const json& at(const json& n, const char* key) {
  static const json null_json;
  if (!n.is_object()) return null_json;
  auto it = n.find(key);
  return it == n.end() ? null_json : *it;
}

bool is_aggregate_name(const std::string& fn) {
  static const char* names[] = {"count", "count_star", "sum", "avg", "mean", "min", "max", "median", "mode",
                                "string_agg", "group_concat", "listagg", "stddev", "stddev_samp", "stddev_pop",
                                "variance", "var_samp", "var_pop", "first", "last", "any_value", "list",
                                "array_agg", "bool_and", "bool_or", "product", "approx_count_distinct"};
  std::string l = to_lower(fn);
  for (const char* n : names)
    if (l == n) return true;
  return false;
}

// String member or "" (never throws on other types).
std::string str(const json& n, const char* key) {
  const json& v = at(n, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

size_t location_of(const json& n) {
  auto it = n.find("query_location");
  if (it == n.end() || !it->is_number_unsigned()) return kNoLoc;
  return it->get<size_t>();
}

size_t min_location(const json& n) {
  size_t best = kNoLoc;
  if (n.is_object()) {
    if (n.contains("class")) best = std::min(best, location_of(n));
    for (auto& [k, v] : n.items())
      if (v.is_structured()) best = std::min(best, min_location(v));
  } else if (n.is_array()) {
    for (auto& v : n) best = std::min(best, min_location(v));
  }
  return best;
}

std::optional<ColumnRef> column_of(const json& n) {
  const json& names = at(n, "column_names");
  if (!names.is_array()) return std::nullopt;
  if (names.empty()) return std::nullopt;
  ColumnRef c;
  c.column = names.back().get<std::string>();
  if (names.size() >= 2) c.table = names[names.size() - 2].get<std::string>();
  return c;
}

// Depth-first search for the first node of a class.
const json* find_first(const json& n, const std::string& cls) {
  if (n.is_object()) {
    if (str(n, "class") == cls) return &n;
    for (auto& [k, v] : n.items())
      if (v.is_structured())
        if (auto* r = find_first(v, cls)) return r;
  } else if (n.is_array()) {
    for (auto& v : n)
      if (auto* r = find_first(v, cls)) return r;
  }
  return nullptr;
}

// Outermost aggregate function inside an expression ("" if none).
std::string outer_aggregate(const json& n) {
  if (n.is_object()) {
    if (str(n, "class") == "FUNCTION") {
      std::string fn = str(n, "function_name");
      if (is_aggregate_name(fn)) return fn == "count_star" ? "COUNT" : to_upper(fn);
    }
    if (str(n, "type") == "SELECT_NODE" || str(n, "type") == "SUBQUERY") return "";
    for (auto& [k, v] : n.items())
      if (v.is_structured()) {
        std::string r = outer_aggregate(v);
        if (!r.empty()) return r;
      }
  } else if (n.is_array()) {
    for (auto& v : n) {
      std::string r = outer_aggregate(v);
      if (!r.empty()) return r;
    }
  }
  return "";
}

// The text of an expression starting at `begin`: up to a top-level ',' or the keywords AS/FROM,
// skipping quoted strings/identifiers and parentheses.
std::string expression_text(const std::string& sql, size_t begin) {
  int depth = 0;
  size_t i = begin;
  auto word_at = [&](size_t p, const char* w) {
    size_t n = std::strlen(w);
    if (p + n > sql.size() || !iequals(std::string_view(sql).substr(p, n), w)) return false;
    bool left = p == 0 || !(std::isalnum(static_cast<unsigned char>(sql[p - 1])) || sql[p - 1] == '_');
    bool right = p + n >= sql.size() || !(std::isalnum(static_cast<unsigned char>(sql[p + n])) || sql[p + n] == '_');
    return left && right;
  };
  while (i < sql.size()) {
    char c = sql[i];
    if (c == '\'' || c == '"' || c == '`') {
      char q = c;
      ++i;
      while (i < sql.size()) {
        if (sql[i] == q) {
          if (i + 1 < sql.size() && sql[i + 1] == q) {
            i += 2;
            continue;
          }
          break;
        }
        ++i;
      }
      ++i;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')') {
      if (depth == 0) break;
      --depth;
    }
    if (depth == 0 && (c == ',' || c == ';')) break;
    if (depth == 0 && (word_at(i, "AS") || word_at(i, "FROM"))) break;
    ++i;
  }
  return collapse_ws(std::string_view(sql).substr(begin, i - begin));
}

// |value| of a constant numeric argument, 0 when it is not one.
double constant_number(const json& arg) {
  if (str(arg, "class") != "CONSTANT") return 0;
  const json& v = at(at(arg, "value"), "value");
  return v.is_number() ? std::fabs(v.get<double>()) : 0;
}

double digits_value(const std::string& f, size_t& i) {
  size_t b = i;
  while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) ++i;
  return i - b > 15 ? 1e16 : i > b ? std::stod(f.substr(b, i - b)) : 0;
}

// Largest width or precision written in a format string: printf style ("%900000000d", "%.*f": `star`
// is set) or fmt style ("{:>900000000}", "{:.{}f}" sets `star` too).
double format_widths(const std::string& f, bool fmt_style, bool& star) {
  double big = 0;
  for (size_t i = 0; i < f.size();) {
    if (!fmt_style && f[i] == '%') {
      ++i;
      if (i < f.size() && f[i] == '%') {
        ++i;
        continue;
      }
      while (i < f.size() && std::strchr("-+ #0'", f[i])) ++i;
      for (int part = 0; part < 2 && i < f.size(); ++part) {
        if (f[i] == '*') star = true, ++i;
        else big = std::max(big, digits_value(f, i));
        if (part == 0 && i < f.size() && f[i] == '.') ++i;
        else break;
      }
    } else if (fmt_style && f[i] == '{') {
      size_t e = f.find('}', i);
      size_t colon = f.find(':', i);
      if (i + 1 < f.size() && f[i + 1] == '{') {
        i += 2;
        continue;
      }
      if (colon != std::string::npos && (e == std::string::npos || colon < e)) {
        if (f.find('{', colon) < e) star = true;  // nested replacement field: width from an argument
        for (size_t k = colon + 1; k < std::min(e, f.size());)
          if (std::isdigit(static_cast<unsigned char>(f[k]))) big = std::max(big, digits_value(f, k));
          else ++k;
      }
      i = e == std::string::npos ? f.size() : e + 1;
    } else {
      ++i;
    }
  }
  return big;
}

// The value of a numeric constant argument (a CONSTANT, possibly CAST), or nullopt.
std::optional<double> signed_constant(const json& arg) {
  std::string cls = str(arg, "class");
  if (cls == "CAST") return signed_constant(at(arg, "child"));
  if (cls != "CONSTANT") return std::nullopt;
  const json& v = at(at(arg, "value"), "value");
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

// Elements of the list range()/generate_series() would build from these arguments (generate_series
// includes its end); nullopt when an argument is not a numeric constant (a column, an expression, a
// date or an interval), whose size cannot be known before running.
std::optional<double> series_length(const json& kids, bool inclusive) {
  std::vector<double> a;
  for (auto& k : kids) {
    auto v = signed_constant(k);
    if (!v) return std::nullopt;
    a.push_back(*v);
  }
  double start = 0, stop = 0, step = 1;
  if (a.size() == 1) stop = a[0];
  else if (a.size() >= 2) start = a[0], stop = a[1];
  if (a.size() >= 3) step = a[2];
  if (step == 0 || a.empty()) return 0.0;
  double n = (stop - start) / step;
  if (n < 0) return 0.0;
  return inclusive ? std::floor(n) + 1 : std::ceil(n);
}

// Records a call that would build one value larger than kMaxValueBytes (see QueryShape). A table
// function (FROM range(...), FROM repeat(...)) streams its rows: only scalar calls build a value.
void check_value_size(const json& call, QueryShape& s, bool table_function) {
  const std::string fn = to_lower(str(call, "function_name"));
  const json& kids = at(call, "children");
  if (table_function || !kids.is_array() || kids.empty()) return;
  auto arg = [&](size_t i) { return i < kids.size() ? constant_number(kids[i]) : 0.0; };
  double big = 0, shown = -1;  // bytes; the figure the message names (default: big)
  if (fn == "range" || fn == "generate_series") {
    // A list of BIGINTs (8 bytes each) in one step: range(1e9) took 6 GB with a 1 GB memory_limit.
    auto n = series_length(kids, fn == "generate_series");
    if (!n) {
      s.oversized_values.push_back(fn + "(...) of a size that is not a constant");
      return;
    }
    big = *n * 8;
    shown = *n;
  } else if (fn == "repeat") {
    // count x the length of a constant string (or 8 bytes per element of a constant list)
    double unit = 1;
    const json& first = kids[0];
    if (str(first, "class") == "CONSTANT" && at(at(first, "value"), "value").is_string())
      unit = std::max<double>(1, double(at(at(first, "value"), "value").get_ref<const std::string&>().size()));
    else if (str(first, "class") == "FUNCTION" && to_lower(str(first, "function_name")) == "list_value")
      unit = 8 * std::max<double>(1, double(at(first, "children").size()));
    big = arg(1) * unit;
    shown = arg(1);
  } else if (fn == "lpad" || fn == "rpad" || fn == "list_resize" || fn == "array_resize") {
    big = arg(1);
  } else if (fn == "bar") {
    big = arg(3);
  } else if (fn == "printf" || fn == "format") {
    const json& f = at(at(kids[0], "value"), "value");
    if (str(kids[0], "class") != "CONSTANT" || !f.is_string()) return;
    bool star = false;
    big = format_widths(f.get_ref<const std::string&>(), fn == "format", star);
    if (star)
      for (size_t i = 1; i < kids.size(); ++i) big = std::max(big, arg(i));
  } else {
    return;
  }
  if (big > static_cast<double>(kMaxValueBytes)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", shown >= 0 ? shown : big);
    s.oversized_values.push_back(fn + "(..., " + buf + ")");
  }
}

void collect(const json& n, QueryShape& s, const std::string& sql, bool table_function = false) {
  if (n.is_object()) {
    std::string cls = str(n, "class");
    std::string type = str(n, "type");
    if (cls == "FUNCTION") check_value_size(n, s, table_function);
    if (type == "BASE_TABLE" && n.contains("table_name")) {
      TableRef t{str(n, "table_name"), str(n, "alias")};
      bool seen = false;
      for (auto& e : s.tables)
        if (iequals(e.name, t.name)) seen = true;
      if (!seen) s.tables.push_back(t);
    } else if (cls == "COLUMN_REF") {
      if (auto c = column_of(n)) s.columns.push_back(*c);
    } else if (cls == "CONSTANT") {
      auto& v = at(n, "value");
      size_t loc = location_of(n);
      if (v.is_object() && v.value("is_null", false) == false && v.contains("type") &&
          str(at(v, "type"), "id") == "VARCHAR" && loc != kNoLoc && loc < sql.size() && sql[loc] == '\'') {
        StringLiteral lit;
        lit.begin = loc;
        size_t i = loc + 1;
        std::string val;
        while (i < sql.size()) {
          if (sql[i] == '\'') {
            if (i + 1 < sql.size() && sql[i + 1] == '\'') {
              val += '\'';
              i += 2;
              continue;
            }
            break;
          }
          val += sql[i++];
        }
        if (i < sql.size()) {
          lit.end = i + 1;
          lit.value = val;
          s.literals.push_back(lit);
        }
      }
    } else if (type == "JOIN" && n.contains("condition")) {
      std::vector<const json*> stack{&at(n, "condition")};
      while (!stack.empty()) {
        const json* c = stack.back();
        stack.pop_back();
        if (!c->is_object()) continue;
        if (c->value("class", "") == "COMPARISON" && c->value("type", "") == "COMPARE_EQUAL") {
          auto l = column_of(at(*c, "left")), r = column_of(at(*c, "right"));
          if (str(at(*c, "left"), "class") == "COLUMN_REF" && str(at(*c, "right"), "class") == "COLUMN_REF" && l && r)
            s.join_keys.emplace_back(*l, *r);
        }
        for (auto& [k, v] : c->items())
          if (v.is_object()) stack.push_back(&v);
          else if (v.is_array())
            for (auto& e : v) stack.push_back(&e);
      }
    }
    for (auto& [k, v] : n.items())
      if (v.is_structured()) collect(v, s, sql, type == "TABLE_FUNCTION" && k == "function");
  } else if (n.is_array()) {
    for (auto& v : n) collect(v, s, sql);
  }
}

}  // namespace

QueryShape parse_query_shape(DuckConn& conn, const std::string& sql) {
  auto r = conn.execute("SELECT json_serialize_sql(" + duck_literal(sql) + ")", Limits{10, 10, 64u << 20});
  if (!r.ok() || r.table.rows.empty()) throw std::runtime_error("cannot parse SQL: " + r.error);
  json doc = json::parse(r.table.rows[0][0].s);
  if (doc.value("error", false))
    throw std::runtime_error((str(doc, "error_message").empty() ? std::string("parser error") : str(doc, "error_message")));
  const json& stmts = at(doc, "statements");
  if (!stmts.is_array() || stmts.size() != 1) throw std::runtime_error("expected exactly one SQL statement, found " + std::to_string(stmts.size()));
  const json* node = &at(stmts[0], "node");
  QueryShape s;
  while (node->value("type", "") == "SET_OPERATION_NODE") {
    s.has_set_operation = true;
    node = &at(*node, "left");
  }
  if (node->value("type", "") != "SELECT_NODE") throw std::runtime_error("not a SELECT statement");
  collect(at(stmts[0], "node"), s, sql);
  for (auto& mod : at(*node, "modifiers"))
    if (str(mod, "type") == "DISTINCT_MODIFIER") s.distinct = true;

  for (auto& item : at(*node, "select_list")) {
    SelectItem it;
    std::string cls = str(item, "class");
    it.alias = str(item, "alias");
    it.begin = min_location(item);
    it.is_star = cls == "STAR";
    it.is_plain_column = cls == "COLUMN_REF";
    if (it.is_plain_column) {
      it.column = column_of(item);
    } else if (auto* c = find_first(item, "COLUMN_REF")) {
      it.column = column_of(*c);
    }
    it.agg = outer_aggregate(item);
    it.is_agg = !it.agg.empty();
    it.expr_text = it.begin != kNoLoc && it.begin < sql.size() ? expression_text(sql, it.begin) : "";
    if (it.is_star) it.expr_text = "*";
    if (!it.alias.empty()) it.output_name = it.alias;
    else if (it.is_plain_column && it.column) it.output_name = it.column->column;
    else it.output_name = it.expr_text;
    s.select.push_back(std::move(it));
  }
  const json& groups = at(*node, "group_expressions");
  if (groups.is_array())
    for (auto& g : groups) {
      size_t b = min_location(g);
      s.group_by_text.push_back(b != kNoLoc && b < sql.size() ? expression_text(sql, b) : "");
      if (str(g, "class") == "COLUMN_REF")
        if (auto c = column_of(g)) s.group_by.push_back(*c);
    }
  bool any_agg = false;
  for (auto& it : s.select) any_agg = any_agg || it.is_agg;
  if (!s.group_by_text.empty() || any_agg) s.type = QueryType::Aggregation;
  else if (s.tables.size() > 1) s.type = QueryType::Join;
  else s.type = QueryType::SelectFilter;
  return s;
}

std::string insert_before_select_list(const std::string& sql, const QueryShape& shape, const std::string& text) {
  if (shape.select.empty() || shape.select[0].begin == kNoLoc) throw std::runtime_error("empty select list");
  std::string out = sql;
  out.insert(shape.select[0].begin, text);
  return out;
}

}  // namespace sqlgrade::uda
