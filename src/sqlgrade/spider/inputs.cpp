// The paths a Spider run reads (inputs.hpp).
#include "sqlgrade/spider/inputs.hpp"

namespace sqlgrade::spider {

std::vector<IoPath> run_inputs(const Options& opt, const std::vector<std::string>& preds) {
  std::vector<IoPath> in{{opt.gold, "--gold"}, {opt.table, "--table"}, {opt.db_dir, "--db", {".sqlite"}}};
  if (!opt.questions.empty()) in.push_back({opt.questions, "--questions"});
  else if (!opt.gold.empty()) in.push_back({fs::path(opt.gold).parent_path() / "dev.json", "--gold (dev.json beside it)"});
  for (const auto& p : preds) in.push_back({p, "--pred"});
  return in;
}

}  // namespace sqlgrade::spider
