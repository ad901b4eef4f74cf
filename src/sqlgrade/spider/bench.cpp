// Spider 1.0 as the Benchmark contract (bench.hpp). The check of a gold SQL on a whole test suite is
// the ExecEvaluator's (exec_evaluator.hpp); check() here compares one result with gold result tables.
#include "sqlgrade/spider/bench.hpp"

#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider/test_suite.hpp"

namespace sqlgrade::spider {

namespace fs = std::filesystem;

namespace {

class Spider final : public Benchmark {
 public:
  const char* name() const override { return "spider"; }
  const std::vector<std::string>& aliases() const override {
    static const std::vector<std::string> a{"testsuite", "test-suite"};
    return a;
  }
  DbLayout layout() const override { return DbLayout::Nested; }
  // The test suite is every *.sqlite of <dir>/<db_id>/: its <db_id>.sqlite, else the folder itself (a
  // folder is a Spider database: grades_folders). A flat <dir>/<db_id>.sqlite has no such folder (its own
  // folder holds the other databases), so it cannot be graded as Spider.
  Located locate(const fs::path& dir, const std::string& id) const override {
    std::error_code ec;
    std::string nested = database(dir.string(), id);
    if (fs::is_regular_file(nested, ec)) return {nested, ""};
    if (fs::is_directory(dir / id, ec)) return {(dir / id).string(), ""};
    if (fs::is_regular_file(flat_database(dir.string(), id), ec))
      return {"", "db_id '" + id + "': benchmark spider needs the test-suite layout <dir>/" + id + "/" + id +
                      ".sqlite, found the flat " + id + ".sqlite (use benchmark bird or spider2 for it)"};
    return {};
  }
  const char* folder_flags() const override { return "--spider-db-dir or --db-dir"; }
  bool grades_folders() const override { return true; }
  bool has_test_suite_options() const override { return true; }
  std::string sql_as_run(const std::string& sql) const override { return replace_cur_year(postprocess_sql(sql)); }
  GoldFormPtr gold_form(std::vector<Table> tables, const Deadline&) const override {
    auto g = std::make_shared<TablesGold>();
    g->tables = std::move(tables);
    return g;
  }
  Outcome check(const CheckItem& item, const GoldForm& gold, const Table& pred, const Deadline& deadline) const override {
    Outcome o;
    for (auto& g : static_cast<const TablesGold&>(gold).tables)
      if (result_eq(g, pred, !item.ignore_order, deadline)) o.stage = VerdictStage::Equal, o.score = 1;
    if (!o.match()) o.detail = "result differs from the gold";
    return o;
  }
  void register_run_summarizer() const override { spider::register_run_summarizer(); }
  // As the test-suite evaluator executes them (docs/verify.md).
  std::string search_item(const SearchQuery& q, SearchItem& item) const override {
    auto e = prepare_exec_queries(q.gold_sql, q.pred_sql, true, q.keep_distinct);
    item.gold_sql = replace_cur_year(e.gold);
    item.pred_sql = replace_cur_year(e.pred);
    item.rule = {SearchRule::SpiderTestSuite, e.order_matters, nullptr, false};
    return "";
  }
};

}  // namespace

Outcome outcome_of(ExecVerdict r) {
  Outcome o;
  o.score = r.score;
  o.detail = std::move(r.reason);
  o.stage = r.score == 1    ? VerdictStage::Equal
            : r.no_pred     ? VerdictStage::NoSql
            : r.gold_error  ? VerdictStage::GoldFailed
            : r.timeout     ? VerdictStage::Timeout
            : r.pred_failed ? VerdictStage::PredFailed
                            : VerdictStage::Different;
  o.deadline_hit = r.timeout;
  o.gold_rows = std::move(r.gold_rows);
  o.pred_rows = std::move(r.pred_rows);
  return o;
}

const Benchmark& benchmark() {
  static const Spider b;
  return b;
}

}  // namespace sqlgrade::spider
