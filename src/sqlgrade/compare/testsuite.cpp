// Test-suite execution accuracy — see testsuite.hpp. (Initial skeleton; implementation follows.)
#include "sqlgrade/compare/testsuite.hpp"

namespace sqlgrade::spider {

struct ExecEvaluator::Impl {};

ExecEvaluator::ExecEvaluator(std::string db_dir, ExecOptions opt)
    : db_dir_(std::move(db_dir)), opt_(opt), impl_(std::make_unique<Impl>()) {}
ExecEvaluator::~ExecEvaluator() = default;

ExecVerdict ExecEvaluator::evaluate(const ExecItem&) { return ExecVerdict{0, "not implemented yet"}; }

std::vector<ExecVerdict> ExecEvaluator::evaluate_all(const std::vector<ExecItem>& items, unsigned jobs,
                                                     Progress* progress) {
  std::vector<ExecVerdict> out(items.size());
  parallel_for(items.size(), jobs, [&](size_t i) { out[i] = evaluate(items[i]); }, progress);
  return out;
}

std::vector<std::string> ExecEvaluator::db_paths(const std::string&) { return {}; }

bool result_eq(const Table&, const Table&, bool) { return false; }
std::string remove_distinct(const std::string& sql) { return sql; }
std::string postprocess_sql(const std::string& sql) { return sql; }
std::string replace_cur_year(const std::string& sql) { return sql; }

}  // namespace sqlgrade::spider
