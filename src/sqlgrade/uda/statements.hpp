#pragma once
// Splits a .sql file into statements the way a person reads it: statements end at ';' outside
// quotes and comments; '' escapes and multi-line literals are kept; the comments in front of a
// statement are kept as metadata ("-- Query 3: filter1 (player)", "-- Category 2 : multi_table_join").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::uda {

struct SqlStatement {
  int index = 0;                      // 1-based position in the file
  long line = 0;                      // line where the statement text starts
  std::string sql;                    // statement text without the trailing ';' and without comments before it
  std::vector<std::string> comments;  // comment texts before the statement (without -- or /* */)
  std::optional<int> label_number;    // N of the last "Query N" comment
  std::string label;                  // e.g. "Query 3: filter1 (player)"
  std::string category;               // e.g. "filter1" (text after "Query N:" up to "(")
  std::string group;                  // e.g. "binary_join" from a "Category K : name" comment
};

// `name` is used in error messages (InputError on an unterminated literal or comment).
std::vector<SqlStatement> split_sql_statements(std::string_view text, const std::string& name);

}  // namespace sqlgrade::uda
