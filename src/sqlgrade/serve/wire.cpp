#include "sqlgrade/serve/wire.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "sqlgrade/core/bounds.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/serve/surrogates.hpp"

namespace sqlgrade::serve {

using json = nlohmann::json;
using BadRequest = RewardServer::BadRequest;

const char* bench_name(Bench b) {
  switch (b) {
    case Bench::Spider2: return "spider2";
    case Bench::Spider: return "spider";
    case Bench::Bird: return "bird";
  }
  return "spider2";
}

Bench parse_bench(const json& req) {
  auto it = req.find("benchmark");
  if (it == req.end() || it->is_null()) return Bench::Spider2;
  if (!it->is_string()) throw BadRequest("`benchmark` must be a string: spider2, spider or bird");
  return bench_from_name(it->get_ref<const std::string&>());
}

Bench bench_from_name(const std::string& name) {
  std::string b = to_lower(name);
  if (b == "spider2" || b == "spider2_lite" || b == "spider2-lite" || b == "spider2lite") return Bench::Spider2;
  if (b == "spider" || b == "testsuite" || b == "test-suite") return Bench::Spider;
  if (b == "bird") return Bench::Bird;
  throw BadRequest("unknown benchmark '" + b + "' (expected spider2, spider or bird)");
}

bool safe_db_id(const std::string& s) {
  if (s.empty() || s.size() > 255 || s[0] == '.') return false;
  for (char c : s)
    if (c == '/' || c == '\\' || c == '\0') return false;
  return true;
}

json parse_body(std::string_view body) {
  if (json_depth(body) > kMaxJsonDepth) throw BadRequest("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  try {
    return json::parse(body);
  } catch (const json::parse_error&) {
    // "\ud83d" without its pair (issue 19): graded when it is in model output, else a 400 naming the field.
    if (auto j = parse_with_lone_surrogates(body)) return std::move(*j);
    throw;
  }
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

Reply error_reply(int status, const std::string& message) { return Reply{status, dump(json{{"error", message}})}; }

std::optional<double> bounded_field(const json& req, const char* key, std::string_view bound) {
  auto it = req.find(key);
  if (it == req.end() || it->is_null()) return std::nullopt;
  const bounds::Bound& b = bounds::bound(bound);
  if (!it->is_number()) {
    std::string shown = dump(*it);
    if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
    throw BadRequest(std::string(key) + ": must be " + bounds::describe(b) + "; got " + shown);
  }
  const double v = it->get<double>();
  if (auto msg = bounds::violation(b, v)) throw BadRequest(std::string(key) + ": " + *msg);
  return v;
}

void set_bool_opt(const json& o, const char* key, bool& dst) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return;
  if (!it->is_boolean()) throw BadRequest(std::string("`extract.") + key + "` must be a boolean");
  dst = it->get<bool>();
}

std::string model_text(const json& req) {
  auto it = req.find("response");
  if (it == req.end() || it->is_null()) {
    auto mo = req.find("model_output");
    if (mo != req.end() && mo->is_string()) return mo->get<std::string>();
    throw BadRequest("request has no `response` (OpenAI Responses object) and no `model_output` string");
  }
  const json& r = *it;
  if (r.is_string()) return r.get<std::string>();
  if (!r.is_object()) throw BadRequest("`response` must be an object");
  std::string text;
  auto out = r.find("output");
  if (out != r.end() && out->is_array()) {
    for (auto& item : *out) {
      if (!item.is_object() || item.value("type", "") != "message") continue;
      auto content = item.find("content");
      if (content == item.end() || !content->is_array()) continue;
      for (auto& c : *content) {
        if (!c.is_object() || c.value("type", "") != "output_text") continue;
        auto t = c.find("text");
        if (t != c.end() && t->is_string()) text += t->get_ref<const std::string&>();
      }
    }
  } else {
    auto ot = r.find("output_text");
    if (ot != r.end() && ot->is_string()) text = ot->get<std::string>();
  }
  return text;
}

json echo_fields(const json& req, std::vector<std::string>* dropped) {
  static const char* const kNotEchoed[] = {"db_id", "question", "gold_sql", "gold_result", "ignore_order", "condition_cols",
                                           "db"};
  static const char* const kKnown[] = {"responses_create_params", "response", "instance_id", "uuid", "metadata",
                                       "model_output", "benchmark", "extract", "gold_single_file", "sql", "timeout",
                                       "plug_value", "keep_distinct"};
  json out = json::object();
  size_t unknown_bytes = 0;
  for (auto it = req.begin(); it != req.end(); ++it) {
    const std::string& k = it.key();
    if (std::find(std::begin(kNotEchoed), std::end(kNotEchoed), k) != std::end(kNotEchoed)) continue;
    bool known = k.rfind("_ng_", 0) == 0 || std::find(std::begin(kKnown), std::end(kKnown), k) != std::end(kKnown);
    if (!known) {
      size_t cost = k.size() + dump(*it).size();
      if (unknown_bytes + cost > kMaxUnknownEchoBytes) {
        if (dropped && dropped->size() < 32) dropped->push_back(k.substr(0, 64));
        continue;
      }
      unknown_bytes += cost;
    }
    out[k] = *it;
  }
  return out;
}

Value json_to_value(const json& v, Bench b) {
  switch (v.type()) {
    case json::value_t::null: return Value::null();
    case json::value_t::boolean:
      // Python bool: prints "True"/"False" into the official CSV (spider2), equals 1/0 elsewhere.
      if (b == Bench::Spider2) return Value::text(v.get<bool>() ? "True" : "False");
      return Value::integer(v.get<bool>() ? 1 : 0);
    case json::value_t::number_integer: return Value::integer(v.get<int64_t>());
    case json::value_t::number_unsigned: {
      uint64_t u = v.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return Value::integer(static_cast<int64_t>(u));
      return Value::real(static_cast<double>(u));
    }
    case json::value_t::number_float: return Value::real(v.get<double>());
    case json::value_t::string: return Value::text(v.get<std::string>());
    default: return Value::text(dump(v));
  }
}

std::vector<Table> gold_tables(const json& gr, Bench b) {
  if (!gr.is_array() || gr.empty()) throw BadRequest("`gold_result` must be a non-empty list of result sets");
  std::vector<Table> out;
  for (size_t a = 0; a < gr.size(); ++a) {
    const json& alt = gr[a];
    if (!alt.is_array()) throw BadRequest("`gold_result[" + std::to_string(a) + "]` must be a list of rows");
    size_t width = 0;
    for (auto& row : alt) {
      if (!row.is_array()) throw BadRequest("`gold_result[" + std::to_string(a) + "]` holds a row that is not a list");
      width = std::max(width, row.size());
    }
    Table t;
    for (size_t c = 0; c < std::max<size_t>(width, 1); ++c) t.columns.push_back("c" + std::to_string(c));
    for (auto& row : alt) {
      Row r;
      for (auto& cell : row) r.push_back(json_to_value(cell, b));
      while (r.size() < width) r.push_back(Value::null());
      if (width) t.rows.push_back(std::move(r));
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace sqlgrade::serve
