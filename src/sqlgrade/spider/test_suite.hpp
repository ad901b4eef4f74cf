#pragma once
// Test-suite execution accuracy for Spider, the comparison rule (taoyds/test-suite-sql-eval
// `exec_eval.py` @ e97acc5): multiset result comparison with the column-permutation search, order
// only when the gold has ORDER BY, and the query rewrites applied before executing. The evaluator
// that runs the queries is exec_evaluator.hpp.
#include <string>

#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/core/table.hpp"
#include "sqlgrade/spider.hpp"

namespace sqlgrade::spider {

// exec_eval.result_eq: same multiset of rows up to some permutation of the prediction's columns;
// with order_matters the rows must also be in the same order (after the column permutation).
// Checks `deadline` while it works (DeadlineExceeded; the caller scores a timeout).
bool result_eq(const Table& gold, const Table& pred, bool order_matters, const Deadline& deadline = {});

// exec_eval.remove_distinct: drop every DISTINCT keyword token (case-insensitive) from the query.
std::string remove_distinct(const std::string& sql);

// exec_eval.postprocess / replace_cur_year: `! =`→`!=`, `> =`→`>=`, `< =`→`<=`, and
// YEAR(CURDATE()) (any spacing/case) → 2020.
std::string postprocess_sql(const std::string& sql);
std::string replace_cur_year(const std::string& sql);

// The two texts test-suite executes for one example and whether row order counts (exec_eval
// eval_exec_match): postprocess, DISTINCT removal unless keep_distinct, order_matters = the lower-cased
// gold contains "order by". `error` is "gold SQL is empty" / "prediction is empty" when the texts are
// blank (the evaluator scores 0). YEAR(CURDATE()) is replaced later, when each query runs.
struct ExecQueries {
  std::string gold, pred;
  bool order_matters = false;
  std::string error;
  bool gold_error = false;
};
ExecQueries prepare_exec_queries(const std::string& gold, const std::string& pred, bool test_suite, bool keep_distinct);

}  // namespace sqlgrade::spider
