// BIRD as the Benchmark contract (bench.hpp): EX (bird::ex_match) of one rollout; the CLI's per-item
// check with every metric and the timing is check.hpp's.
#include "sqlgrade/bird/bench.hpp"

#include "sqlgrade/bird.hpp"
#include "sqlgrade/bird/compare.hpp"
#include "sqlgrade/py/equality.hpp"

namespace sqlgrade::bird {


namespace {

class Bird final : public Benchmark {
 public:
  const char* name() const override { return "bird"; }
  DbLayout layout() const override { return DbLayout::Nested; }
  const char* folder_flags() const override { return "--bird-db-dir or --db-dir"; }
  bool grades_servers() const override { return true; }
  GoldFormPtr gold_form(std::vector<Table> tables, const Deadline&) const override {
    auto g = std::make_shared<TablesGold>();
    g->tables = std::move(tables);
    return g;
  }
  sqlgrade::Outcome check(const CheckItem&, const GoldForm& gold, const Table& pred, const Deadline& deadline) const override {
    sqlgrade::Outcome o;
    try {
      for (auto& g : static_cast<const TablesGold&>(gold).tables)
        if (ex_match(pred, g, deadline)) o.stage = VerdictStage::Equal, o.score = 1;
      if (!o.match()) o.detail = "result differs from the gold";
    } catch (const py::Unhashable& e) {  // a list cell (PostgreSQL array): the official set() raises
      o = sqlgrade::Outcome{};
      o.detail = std::string("TypeError: ") + e.what() + " (the official script's set() of the rows raises)";
    }
    return o;
  }
  void register_run_summarizer() const override { bird::register_run_summarizer(); }
  std::string search_item(const SearchQuery& q, SearchItem& item) const override {
    item.gold_sql = q.gold_sql, item.pred_sql = q.pred_sql;
    item.rule = {SearchRule::BirdSet, false, nullptr, false};
    return "";
  }
};

}  // namespace

const Benchmark& benchmark() {
  static const Bird b;
  return b;
}

}  // namespace sqlgrade::bird
