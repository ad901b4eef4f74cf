#pragma once
// The test-suite evaluator's --plug_value (taoyds/test-suite-sql-eval parse.py @ e97acc5): the value
// extraction (reformat_query / replace_values / strip_query) and the candidate generation (every way
// of writing the gold's values into the prediction's slots), on the sqlparse emulation of sqlparse.hpp.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/spider/sqlparse.hpp"

namespace sqlgrade::spider::sqlparse {

// parse.extract_query_values: the lower-cased token list with `valuerare` slots, and the values
// (original text) in extraction order, duplicates kept. ok=false when the text has no statement.
struct QueryValues {
  bool ok = false;
  std::vector<std::string> tokens;
  std::vector<std::string> values;
};
QueryValues extract_query_values(std::string_view sql);

// parse.get_all_preds_for_execution: the gold's distinct values and the prediction's slot tokens.
// count() = |values| ^ slots (saturating); candidate(i) = the i-th way of filling the slots, in
// itertools.product order over the values (first-seen order instead of Python set order; the order
// never changes a 0/1 result).
class PlugCandidates {
 public:
  PlugCandidates(std::string_view gold, std::string_view pred);
  bool ok() const { return ok_; }  // false when either side has no statement
  size_t slots() const { return slots_; }
  const std::vector<std::string>& values() const { return values_; }
  uint64_t count() const { return count_; }  // UINT64_MAX when it overflows
  std::string candidate(uint64_t index) const;

 private:
  bool ok_ = false;
  std::vector<std::string> tokens_;
  std::vector<std::string> values_;
  size_t slots_ = 0;
  uint64_t count_ = 0;
};

}  // namespace sqlgrade::spider::sqlparse
