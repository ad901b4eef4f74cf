// The reward server's endpoints besides /verify: POST /execute (sqlgrade::execute over HTTP) and
// OpenRLHF's remote reward shape (POST /get_reward, /openrlhf).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/execute.hpp"
#include "sqlgrade/py/repr.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/serve/server_impl.hpp"
#include "sqlgrade/serve/wire.hpp"
#include "sqlgrade/verdict.hpp"

namespace sqlgrade::serve {

using json = nlohmann::json;
using BadRequest = RewardServer::BadRequest;

namespace {

using CellKind = ExecuteCell::Kind;

json cell_json(const ExecuteCell& v) {
  switch (v.kind) {
    case CellKind::Null: return nullptr;
    case CellKind::Int: return v.i;
    case CellKind::Real: return std::isfinite(v.r) ? json(v.r) : json(py::float_repr(v.r));
    case CellKind::Text: return v.s;
    case CellKind::Blob: {  // JSON has no bytes: {"blob_hex": "..."}
      static const char* hex = "0123456789abcdef";
      std::string h;
      h.reserve(v.s.size() * 2);
      for (unsigned char c : v.s) {
        h += hex[c >> 4];
        h += hex[c & 15];
      }
      return json{{"blob_hex", h}};
    }
  }
  return nullptr;
}

// Bytes a text takes as a JSON string in a reply, as dump() writes it: the quotes; \" \\ \b \f \n \r \t
// take 2 bytes, any other control character 6 (a NUL is \u0000); valid UTF-8 its own bytes, an
// invalid byte at most 3 (U+FFFD). SQLite text is read as valid UTF-8, so this is exact in practice.
size_t json_text_bytes(std::string_view s) {
  size_t n = 2;
  size_t high = 0;
  for (unsigned char c : s) {
    if (c >= 0x80) ++high;
    else if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') n += 2;
    else if (c < 0x20) n += 6;
    else n += 1;
  }
  return n + (high > 0 && !is_valid_utf8(s) ? 3 * high : high);
}

// Bytes of a cell_json() value in a reply.
size_t cell_bytes(const ExecuteCell& v) {
  switch (v.kind) {
    case CellKind::Null: return 4;
    case CellKind::Int: return std::to_string(v.i).size();
    case CellKind::Real: return std::isfinite(v.r) ? json(v.r).dump().size() : json_text_bytes(py::float_repr(v.r));
    case CellKind::Text: return json_text_bytes(v.s);
    case CellKind::Blob: return 2 * v.s.size() + 16;  // {"blob_hex":"..."}
  }
  return 4;
}

// The rows of an /execute reply, cut so that they take at most `budget` bytes as serialised.
// Returns false when not even the first row fits.
bool add_rows(const std::vector<std::vector<ExecuteCell>>& t, size_t budget, json& rows, bool& truncated) {
  size_t used = 2;  // []
  for (const auto& row : t) {
    size_t b = 2 + (rows.empty() ? 0 : 1) + (row.empty() ? 0 : row.size() - 1);  // [ ] , and the commas
    for (const ExecuteCell& c : row) b += cell_bytes(c);
    if (used + b > budget) {
      truncated = true;
      return !rows.empty();
    }
    used += b;
    json jr = json::array();
    for (const ExecuteCell& c : row) jr.push_back(cell_json(c));
    rows.push_back(std::move(jr));
  }
  return true;
}

// A number field checked against the table of bounds (wire.hpp), then capped (absent/null: the default).
double number_field(const json& req, const char* key, const char* bound, double def, double cap) {
  return std::min(bounded_field(req, key, bound).value_or(def), cap);
}

}  // namespace

json RewardServer::execute_json(const json& req) {
  if (!req.is_object()) throw BadRequest("the request body must be a JSON object");
  const Benchmark& b = parse_bench(with_gym_defaults(req).value_or(req));
  const std::string server = server_db(req);  // BIRD in PostgreSQL / MySQL: the one database
  auto db = req.find("db_id");
  if (server.empty() && (db == req.end() || !db->is_string())) throw BadRequest("`db_id` (string) is required");
  auto sql = req.find("sql");
  if (sql == req.end() || !sql->is_string()) throw BadRequest("`sql` (string) is required");
  // sqlgrade::execute's defaults, capped by the server's options; execute() refuses a cap below 1.
  ExecuteLimits lim;
  lim.timeout_s = number_field(req, "timeout", "timeout", lim.timeout_s, opt_.grader.timeout_s);
  lim.max_rows = static_cast<size_t>(number_field(req, "max_rows", "max_rows", static_cast<double>(lim.max_rows),
                                                  static_cast<double>(opt_.max_execute_rows)));
  lim.max_bytes = static_cast<size_t>(number_field(req, "max_bytes", "max_bytes", static_cast<double>(lim.max_bytes),
                                                   static_cast<double>(opt_.grader.max_result_bytes)));
  // SQL's clock: the request's `now`, else the server's --now (execute() checks the text).
  if (auto n = req.find("now"); n != req.end() && !n->is_null()) {
    if (!n->is_string()) throw BadRequest("`now` must be a string (a TIMESTAMP)");
    lim.now = n->get<std::string>();
  } else {
    lim.now = opt_.grader.now;
  }
  std::string path = server.empty() ? db_path(b, db->get<std::string>()) : server;
  ExecuteResult r = sqlgrade::execute(path, sql->get<std::string>(), lim);
  ++executes_;
  json reply = {{"status", r.status},
                {"columns", r.columns},
                {"rows", json::array()},
                {"truncated", r.truncated},
                {"error", r.error},
                {"timings", {{"total_s", r.total_s}}}};
  if (current_queued_s() >= 0) reply["timings"]["queued_s"] = current_queued_s();
  // max_bytes bounds the rows as the reply carries them, escapes counted (a NUL byte is 6 bytes of
  // JSON, a BLOB byte 2): 64 MiB of NULs would otherwise be a 384 MiB reply. The whole reply stays
  // within --max-reply-mb too. Rows past the bound are cut (truncated: true), as at max_rows.
  const size_t base = dump(reply).size();
  const size_t budget = std::min(lim.max_bytes, opt_.max_reply_bytes > base ? opt_.max_reply_bytes - base : 0);
  bool truncated = r.truncated;
  if (!add_rows(r.rows, budget, reply["rows"], truncated)) {
    reply["status"] = "too_large";
    reply["error"] = "the first row takes more than " + std::to_string(budget) +
                     " bytes as JSON (max_bytes, --max-result-mb, --max-reply-mb; escapes counted)";
  }
  reply["truncated"] = truncated;
  return reply;
}

// OpenRLHF (--remote_rm_url http://host:port/get_reward): {"query": [prompt + response], "prompts":
// [prompt], "labels": [label]} -> {"rewards", "scores", "extra_logs"}. A label is the data contract
// of the Python adapters: an object (or a JSON object string) read through the library's one table of
// label keys (verdicts::label_body: gold_sql or gold_result, alternative_answers, db_id or db_path,
// whose file name without .sqlite is used as the db_id — the server only reads its own folders — and
// every other grading field of /verify: benchmark, ignore_order, ..., keep_distinct, verify, order,
// shaping). The response is the query after its prompt. rewards = the shaped scores (without
// `shaping`: the reward, 1.0 / 0.0), scores = the reward (as sqlgrade/openrlhf.py's file mode);
// extra_logs has sql_acc (the official verdict, execution_match), sql_found, sql_executed,
// sql_refuted and sql_unverified per rollout. This part checks the request and returns one verdict request per rollout; batch.cpp
// grades them.
std::vector<VerdictRequest> RewardServer::openrlhf_requests(const json& req) const {
  if (!req.is_object()) throw BadRequest("the request body must be a JSON object");
  auto q = req.find("query"), p = req.find("prompts"), l = req.find("labels");
  if (q == req.end() || !q->is_array()) throw BadRequest("`query` (a list of strings) is required");
  if (l == req.end() || !l->is_array()) throw BadRequest("`labels` (a list) is required");
  const size_t n = q->size();
  if (n > opt_.max_batch)
    throw BadRequest(std::to_string(n) + " rollouts in one request; at most " + std::to_string(opt_.max_batch));
  if (l->size() != n) throw BadRequest(std::to_string(n) + " queries but " + std::to_string(l->size()) + " labels");
  const bool has_prompts = p != req.end() && p->is_array();
  if (has_prompts && p->size() != n)
    throw BadRequest(std::to_string(n) + " queries but " + std::to_string(p->size()) + " prompts");
  // Every rollout is checked (fields, gold, database) before any is graded, so a bad label costs no work.
  std::vector<VerdictRequest> requests;
  requests.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string at = "labels[" + std::to_string(i) + "]: ";
    if (!(*q)[i].is_string()) throw BadRequest("query[" + std::to_string(i) + "] must be a string");
    const json* label = &(*l)[i];
    json parsed;
    if (label->is_string()) {
      const std::string& s = label->get_ref<const std::string&>();
      if (json_depth(s) > kMaxJsonDepth) throw BadRequest(at + "nested too deeply");
      parsed = json::parse(s, nullptr, false);
      label = &parsed;
    }
    if (!label->is_object()) throw BadRequest(at + "must be an object or a JSON object string");
    json body;
    try {
      body = verdicts::label_body(*label);  // the one table of label keys (verdict/request.hpp)
    } catch (const InputError& e) {
      throw BadRequest(at + e.what());
    }
    const std::string& query = (*q)[i].get_ref<const std::string&>();
    std::string response = query;
    if (has_prompts && (*p)[i].is_string()) {
      const std::string& prompt = (*p)[i].get_ref<const std::string&>();
      if (!prompt.empty() && query.compare(0, prompt.size(), prompt) == 0) response = query.substr(prompt.size());
    }
    body["model_output"] = std::move(response);
    try {
      requests.push_back(verdict_request(body));
    } catch (const InputError& e) {
      throw BadRequest(at + e.what());
    }
  }
  return requests;
}

}  // namespace sqlgrade::serve
