#pragma once
// The official Spider parser (process_sql.get_sql): global alias map, FROM parsed first, clauses in
// canonical order only, values kept (the evaluator drops them later, see spider_rebuild.hpp).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/spider/sql.hpp"
#include "sqlgrade/spider/tokenize.hpp"

namespace sqlgrade::spider {

struct ParseOptions {
  // test-suite's process_sql: the token after LIMIT is skipped and the limit is always 1.
  bool testsuite_limit = false;
};

// Parse `sql` against `schema`. Throws ParseError on everything the official parser rejects.
std::unique_ptr<Sql> parse_sql(const SpiderSchema& schema, std::string_view sql, ParseOptions opt = {});
// Same, from already tokenized input.
std::unique_ptr<Sql> parse_tokens(const SpiderSchema& schema, const TokenList& toks, ParseOptions opt = {});

// The empty record the evaluator uses for a prediction that does not parse.
std::unique_ptr<Sql> empty_sql();

}  // namespace sqlgrade::spider
