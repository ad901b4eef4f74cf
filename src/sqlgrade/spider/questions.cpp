// Spider question text for run records (see questions.hpp). The gold file (dev_gold.sql) holds only
// SQL and db_id; dev.json lists the same questions in the same order (evaluation.py never reads it,
// so this is for the reader of a record only: nothing graded depends on it).
#include "sqlgrade/spider/questions.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/json.hpp"
#include "sqlgrade/errors.hpp"

namespace sqlgrade::spider {

namespace fs = std::filesystem;

std::optional<Questions> load_questions(const Options& opt) {
  Questions q;
  q.given = !opt.questions.empty();
  // Found beside the gold: only read when a record is written (keep_rows), so that plain grading does
  // not parse Spider dev's 4 MB dev.json for nothing.
  if (!q.given && !opt.keep_rows) return std::nullopt;
  q.path = q.given ? opt.questions : (fs::path(opt.gold).parent_path() / "dev.json").string();
  std::error_code ec;
  if (!q.given && !fs::is_regular_file(q.path, ec)) return std::nullopt;
  try {
    const std::string text = read_file(q.path);
    check_json_depth(text, q.path);
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_array()) throw InputError(q.path, "questions file: expected a JSON array (Spider's dev.json)");
    for (size_t i = 0; i < j.size(); ++i) {
      const auto& e = j[i];
      if (!e.is_object() || !e.contains("question") || !e["question"].is_string() || !e.contains("db_id") ||
          !e["db_id"].is_string())
        throw InputError(q.path, "questions file: item " + std::to_string(i) + " has no \"question\" and \"db_id\" strings");
      q.items.emplace_back(e["question"].get<std::string>(), e["db_id"].get<std::string>());
    }
  } catch (const InputError&) {
    if (q.given) throw;
    return std::nullopt;
  } catch (const std::exception& e) {
    if (q.given) throw InputError(q.path, std::string("questions file: ") + e.what());
    return std::nullopt;
  }
  return q;
}

void attach_questions(const std::optional<Questions>& q, std::vector<Run>& runs) {
  if (!q || runs.empty()) return;
  for (const Example& e : runs.front().examples) {
    std::string why;
    if (e.index >= q->items.size())
      why = "has " + std::to_string(q->items.size()) + " questions, the gold file more";
    else if (q->items[e.index].second != e.db_id)
      why = "question " + std::to_string(e.index) + " is on " + q->items[e.index].second + ", the gold line on " + e.db_id;
    if (why.empty()) continue;
    if (q->given) throw InputError(q->path, "does not match the gold file: " + why);
    for (auto& run : runs)
      run.warnings.push_back(q->path + " (found beside the gold) does not match it: " + why +
                             "; the records hold no question text (give --questions)");
    return;
  }
  for (auto& run : runs)
    for (Example& e : run.examples) e.question = q->items[e.index].first;
}

}  // namespace sqlgrade::spider
