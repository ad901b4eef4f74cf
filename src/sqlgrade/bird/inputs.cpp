// BIRD: metric and pairing names, and the input files (gold SQL, prediction JSON, question file) of
// both layouts — see inputs.hpp.
#include "sqlgrade/bird/inputs.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/json.hpp"

namespace sqlgrade::bird {

using json = nlohmann::ordered_json;

const char* metric_name(Metric m) {
  switch (m) {
    case Metric::Ex: return "EX";
    case Metric::SoftF1: return "Soft-F1";
    case Metric::EmF1: return "EM+F1";
    case Metric::Ves: return "VES";
    case Metric::RVes: return "R-VES";
  }
  return "?";
}

std::optional<Metric> parse_metric(const std::string& s) {
  std::string l = to_lower(s);
  if (l == "ex") return Metric::Ex;
  if (l == "soft-f1" || l == "f1" || l == "soft_f1") return Metric::SoftF1;
  if (l == "em-f1" || l == "em+f1" || l == "em_f1") return Metric::EmF1;
  if (l == "ves") return Metric::Ves;
  if (l == "r-ves" || l == "rves" || l == "r_ves") return Metric::RVes;
  return std::nullopt;
}

std::optional<PairBy> parse_pair_by(const std::string& s) {
  std::string l = to_lower(s);
  if (l == "auto") return PairBy::Auto;
  if (l == "index" || l == "key") return PairBy::Index;
  if (l == "question_id" || l == "question-id" || l == "qid") return PairBy::QuestionId;
  if (l == "position" || l == "official") return PairBy::Position;
  return std::nullopt;
}

Metric metric_from_name(const std::string& s) {
  if (auto m = parse_metric(s)) return *m;
  throw InputError("--metric", "unknown metric '" + s + "' (ex, soft-f1, em-f1, ves, r-ves)");
}

PairBy pair_by_from_name(const std::string& s) {
  if (auto p = parse_pair_by(s)) return *p;
  throw InputError("--pair-by", "unknown value '" + s + "' (auto, index, question_id, position)");
}

void check_required(const Options& o) {
  if (o.pred.empty() || o.gold.empty())
    throw InputError("bird", "--pred, --gold and --db are required (official names: --predicted_sql_path, "
                             "--ground_truth_path, --db_root_path)");
  // MySQL and PostgreSQL run on the server --dsn names; the official scripts ignore --db_root_path there.
  if (o.db_dir.empty() && o.sql_dialect == "SQLite")
    throw InputError("bird", "--pred, --gold and --db are required (official names: --predicted_sql_path, "
                             "--ground_truth_path, --db_root_path)");
}

// ---------------------------------------------------------------- input files

std::vector<GoldItem> load_gold(const std::string& path) {
  std::string text = read_file(path);
  strip_bom(text);
  std::vector<std::string> lines = split(text, "\n");
  // Trailing empty lines (including the one after the final newline) are not questions.
  while (!lines.empty() && trim_view(lines.back()).empty()) lines.pop_back();
  std::vector<GoldItem> out;
  out.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    // Python: line.strip().split('\t') must give exactly two fields. We split at the LAST tab so that a
    // TAB inside the SQL does not crash (db ids never contain one).
    std::string line = trim(lines[i]);
    if (line.empty()) throw InputError(path, "empty line inside the gold file (expected SQL<TAB>db_id)", static_cast<long>(i + 1));
    size_t tab = line.rfind('\t');
    if (tab == std::string::npos)
      throw InputError(path, "expected SQL<TAB>db_id (no TAB on this line)", static_cast<long>(i + 1));
    GoldItem g;
    g.sql = line.substr(0, tab);
    g.db_id = trim(line.substr(tab + 1));
    g.line = static_cast<long>(i + 1);
    if (g.db_id.empty()) throw InputError(path, "empty db_id after the TAB", g.line);
    out.push_back(std::move(g));
  }
  if (out.empty()) throw InputError(path, "no gold queries in the file");
  return out;
}

namespace {

long line_of_offset(const std::string& text, size_t off) {
  off = std::min(off, text.size());
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(off), '\n'));
}

}  // namespace

PredFile load_predictions(const std::string& path) {
  std::string text = read_file(path);
  strip_bom(text);
  PredFile pf;
  std::vector<std::string> keys_in_order;
  std::map<std::string, int> seen;
  json doc;
  check_json_depth(text, path);
  try {
    doc = json::parse(text, [&](int depth, json::parse_event_t ev, json& parsed) {
      if (ev == json::parse_event_t::key && depth == 1) {
        std::string k = parsed.get<std::string>();
        if (seen[k]++ == 0) keys_in_order.push_back(k);
      }
      return true;
    });
  } catch (const json::parse_error& e) {
    throw InputError(path, std::string("invalid JSON: ") + e.what(), line_of_offset(text, e.byte));
  } catch (const json::exception& e) {  // out_of_range: a number such as 1e999 (fuzz finding)
    throw InputError(path, std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object())
    throw InputError(path, "expected a JSON object {\"0\": \"SQL\\t----- bird -----\\tdb_id\", ...}");
  for (const std::string& k : keys_in_order) {
    const json& v = doc.at(k);
    PredEntry e;
    e.key = k;
    if (v.is_string()) {
      e.is_string = true;
      e.raw = v.get<std::string>();
    } else {
      e.type_name = v.type_name();
    }
    pf.entries.push_back(std::move(e));
  }
  for (auto& [k, n] : seen)
    if (n > 1) pf.duplicate_keys.emplace_back(k, n);
  return pf;
}

std::vector<QuestionInfo> load_questions(const std::string& path) {
  std::string text = read_file(path);
  strip_bom(text);
  std::vector<QuestionInfo> out;
  auto take = [&](const nlohmann::json& o, long line) {
    if (!o.is_object()) throw InputError(path, "expected a JSON object per question", line);
    QuestionInfo q;
    if (auto it = o.find("difficulty"); it != o.end() && it->is_string()) q.difficulty = it->get<std::string>();
    if (auto it = o.find("question_id"); it != o.end() && it->is_number_integer()) q.question_id = it->get<long long>();
    if (auto it = o.find("db_id"); it != o.end() && it->is_string()) q.db_id = it->get<std::string>();
    if (auto it = o.find("question"); it != o.end() && it->is_string()) q.question = it->get<std::string>();
    // The evidence is part of what the system was asked (BIRD's prompts give it): shown after the question.
    if (auto it = o.find("evidence"); it != o.end() && it->is_string() && !it->get_ref<const std::string&>().empty())
      q.question += (q.question.empty() ? "" : "\nEvidence: ") + it->get<std::string>();
    out.push_back(std::move(q));
  };
  std::string_view t = trim_view(text);
  if (!t.empty() && t.front() == '[') {
    nlohmann::json doc;
    check_json_depth(text, path);
    try {
      doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(path, std::string("invalid JSON: ") + e.what(), line_of_offset(text, e.byte));
    } catch (const nlohmann::json::exception& e) {  // out_of_range: a number such as 1e999
      throw InputError(path, std::string("invalid JSON: ") + e.what());
    }
    for (auto& o : doc) take(o, 0);
  } else {
    std::vector<std::string> lines = split(text, "\n");
    for (size_t i = 0; i < lines.size(); ++i) {
      if (trim_view(lines[i]).empty()) continue;
      nlohmann::json o;
      check_json_depth(lines[i], path, static_cast<long>(i + 1));
      try {
        o = nlohmann::json::parse(lines[i]);
      } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
        throw InputError(path, std::string("invalid JSON line: ") + e.what(), static_cast<long>(i + 1));
      }
      take(o, static_cast<long>(i + 1));
    }
  }
  return out;
}

std::pair<std::string, std::string> split_prediction(const std::string& raw, bool* had_separator) {
  static const std::string sep = "\t----- bird -----\t";
  size_t p = raw.find(sep);
  bool one = p != std::string::npos && raw.find(sep, p + sep.size()) == std::string::npos;
  if (had_separator) *had_separator = one;
  if (one) return {raw.substr(0, p), raw.substr(p + sep.size())};
  return {trim(raw), ""};
}

std::vector<IoPath> run_inputs(const Options& opt, const std::vector<std::string>& preds) {
  std::vector<IoPath> in{{opt.diff_json, "--diff_json_path"}, {opt.db_dir, "--db_root_path", {".sqlite"}},
                         {opt.gold, "--ground_truth_path"}};
  for (const auto& p : preds) {
    Options o = opt;
    o.pred = p;
    const InputFiles f = input_files(o);
    in.push_back({f.pred, "--predicted_sql_path"});
    in.push_back({f.gold, "--ground_truth_path"});
  }
  return in;
}

}  // namespace sqlgrade::bird
