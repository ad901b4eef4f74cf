// Google Benchmark: the per-example work of `sqlgrade spider --etype match` on Spider dev (1034
// gold/prediction pairs), excluding start-up (reading files, SQLite catalogues, tables.json).
//   spider_match_bench [--benchmark_repetitions=5]   (env SQLGRADE_DATA, default ../shared/data)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <unordered_map>

#include "sqlgrade/spider/exact_match.hpp"
#include "sqlgrade/spider/hardness.hpp"
#include "sqlgrade/spider/parser.hpp"
#include "sqlgrade/spider/rebuild.hpp"
#include "sqlgrade/spider/schema.hpp"
#include "sqlgrade/py/io.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/spider.hpp"

using namespace sqlgrade::spider;

namespace {

struct Input {
  std::vector<std::string> gold, pred, db;
  std::unordered_map<std::string, std::shared_ptr<DbInfo>> dbs;
};

const Input& input(const std::string& pred_rel) {
  static std::unordered_map<std::string, Input> cache;
  auto it = cache.find(pred_rel);
  if (it != cache.end()) return it->second;
  const char* env = std::getenv("SQLGRADE_DATA");
  std::string data = env && *env ? env : "../shared/data";
  Input in;
  for (const auto& l : sqlgrade::py::read_lines_universal(data + "/spider/dev_gold.sql")) {
    auto t = l.find('\t');
    in.gold.push_back(l.substr(0, t));
    in.db.push_back(sqlgrade::py::strip(l.substr(t + 1)));
  }
  for (const auto& l : sqlgrade::py::read_lines_universal(data + "/preds/spider_dev/" + pred_rel))
    in.pred.push_back(sqlgrade::py::strip(l.substr(0, l.find('\t'))));
  auto tables = load_tables_json(data + "/spider/tables.json");
  for (const auto& d : in.db)
    if (!in.dbs.count(d)) {
      std::string path = data + "/spider/database/" + d + "/" + d + ".sqlite";
      in.dbs.emplace(d, make_db_info(d, read_sqlite_catalogue(path), &tables.at(d)));
    }
  return cache.emplace(pred_rel, std::move(in)).first->second;
}

void grade_all(benchmark::State& state, const std::string& pred_rel, bool testsuite) {
  const Input& in = input(pred_rel);
  ParseOptions po{testsuite};
  for (auto _ : state) {
    long exact = 0;
    for (size_t i = 0; i < in.gold.size(); ++i) {
      const DbInfo& db = *in.dbs.at(in.db[i]);
      auto g = parse_sql(db.schema, in.gold[i], po);
      Hardness h = hardness(*g);
      benchmark::DoNotOptimize(h);
      std::unique_ptr<Sql> p;
      try {
        p = parse_sql(db.schema, in.pred[i], po);
        check_condition_shape(*p);
      } catch (const ParseError&) {
        p = empty_sql();
      }
      rebuild_sql(*g, db);
      rebuild_sql(*p, db);
      exact += exact_match(*p, *g, db);
    }
    benchmark::DoNotOptimize(exact);
  }
  state.counters["pairs"] = static_cast<double>(in.gold.size());
}

}  // namespace

BENCHMARK_CAPTURE(grade_all, dail_sql_spider, std::string("dail-sql_gpt4/pred.txt"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(grade_all, c3_testsuite, std::string("c3sql_gpt35/pred.txt"), true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(grade_all, example_spider, std::string("taoyds_pred_example/pred_example.txt"), false)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
