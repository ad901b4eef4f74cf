// The Benchmark contract's shared pieces (exec/benchmark.hpp): the two database layouts, the tables
// form of a gold, and the one table of stage -> words (to_string, failure_reason).
#include "sqlgrade/exec/benchmark.hpp"

#include <stdexcept>

namespace sqlgrade {

namespace fs = std::filesystem;

std::string nested_database(const std::string& root, const std::string& id) {
  return (fs::path(root) / id / (id + ".sqlite")).string();
}

std::string flat_database(const std::string& root, const std::string& id) {
  return (fs::path(root) / (id + ".sqlite")).string();
}

std::string Benchmark::database(const std::string& root, const std::string& id) const {
  return layout() == DbLayout::Nested ? nested_database(root, id) : flat_database(root, id);
}

const std::vector<std::string>& Benchmark::aliases() const {
  static const std::vector<std::string> none;
  return none;
}

Located Benchmark::locate(const fs::path& dir, const std::string& id) const {
  std::error_code ec;
  const std::string own = database(dir.string(), id);
  if (fs::is_regular_file(own, ec)) return {own, ""};
  for (const std::string& other : {nested_database(dir.string(), id), flat_database(dir.string(), id)})
    if (other != own && fs::is_regular_file(other, ec)) return {other, ""};
  return {};
}

std::unique_ptr<const OfficialGold> Benchmark::official_gold(const std::string&) const {
  throw std::logic_error(std::string("benchmark ") + name() + " has no official gold folder");
}

size_t TablesGold::heap_bytes() const {
  size_t b = vector_heap_bytes(tables);
  for (auto& t : tables) b += sqlgrade::heap_bytes(t);
  return b;
}

const char* to_string(VerdictStage s) {
  switch (s) {
    case VerdictStage::NoSql: return "no_sql";
    case VerdictStage::PredFailed: return "pred_failed";
    case VerdictStage::Timeout: return "timeout";
    case VerdictStage::TooLarge: return "too_large";
    case VerdictStage::GoldFailed: return "gold_failed";
    case VerdictStage::Different: return "different";
    case VerdictStage::Equal: return "equal";
    case VerdictStage::Refuted: return "refuted";
    case VerdictStage::Unverified: return "unverified";
  }
  return "pred_failed";
}

// The one table of stage -> failure_reason (docs/serve.md, "failure_reason"). NeMo Gym's spider2_lite
// and bird_sql servers define none, no_sql_extracted, execution_error and gold_execution_error; they
// label a result that differs execution_error too, which a dashboard cannot tell from a query that did
// not run. result_mismatch follows the "<what>_mismatch" words of NeMo Gym's other servers
// (target_mismatch, tool_name_mismatch).
const char* failure_reason(VerdictStage s) {
  switch (s) {
    case VerdictStage::Equal: return "none";
    case VerdictStage::NoSql: return "no_sql_extracted";
    case VerdictStage::PredFailed:
    case VerdictStage::TooLarge: return "execution_error";
    case VerdictStage::Timeout: return "timeout";
    case VerdictStage::GoldFailed: return "gold_execution_error";
    case VerdictStage::Different: return "result_mismatch";
    case VerdictStage::Refuted: return "refuted";
    case VerdictStage::Unverified: return "unverified";
  }
  return "execution_error";
}

}  // namespace sqlgrade
