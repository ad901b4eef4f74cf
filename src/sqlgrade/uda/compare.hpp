#pragma once
// UDA-Bench accuracy rule (eval_acc_plan.md, see docs/uda.md): match the rows of a system's result
// with the gold result, then score every non-key column cell by cell.
//
// Row matching
//   - by key tuples: `id` (select/filter), `<t>.id` per table (joins), the GROUP BY columns
//     (aggregation; an aggregate without GROUP BY is one group). Keys are canonicalised: Unicode
//     folded (NFKC, case folding, accents removed, Unicode whitespace collapsed — uda/unicode.hpp),
//     quotes around a value removed, numbers canonical (1 = 1.0 = 0001), id values that are file
//     names lose their directory and extension; an empty key matches only an empty key. Every key
//     must have a result column (the caller makes a result without one unscored, never NULL keys);
//   - matched pairs are listed in key (ID) order: numbers numerically and before text;
//   - an id with several rows on either side (multi-entity document, or duplicates) is matched inside
//     the group by the primary key column: exact, then normalised, then the judge's same-entity answer;
//     without a primary key rows pair in order;
//   - aggregation groups left over are matched by normalised key equality, then by the judge;
//   - duplicate-key warnings leave out rows without any key value (reported by the dataset's load
//     notes for the gold).
// Cells (precision, recall) per matched pair
//   - values wrapped in quotation marks are read without them everywhere (numbers, dates, text,
//     emptiness), and a sign is never punctuation;
//   - int: equal after numeric parsing; float: |p-g| <= tol * max(1, |g|); when a side is not a
//     number the str rule applies; str: both empty (NULL or '') → 1, normalised-equal → 1, else the
//     judge; multi_str: items split on `||`, one-to-one exact (normalised) matches plus the judge's
//     count for the rest, P = m/|pred|, R = m/|gold|; aggregate: 1/(1+|x-g|/|g|), for g = 0:
//     1/(1+|x|); NULL vs NULL = 1, NULL vs value = 0; a non-numeric aggregate (MIN/MAX of text) uses
//     the str rule.
// Metrics per column: P = Σp/len(result), R = Σr/len(gold), F1 = 2PR/(P+R); both tables empty → 1.
// Macro = mean over scored columns (mean of column F1s); with no scored column, the row-level
// P/R/F1 (matched rows / rows) stand in.
#include <optional>
#include <string>
#include <vector>

#include "sqlgrade/uda/judge/judge.hpp"
#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/core/table.hpp"

namespace sqlgrade::uda {

enum class CellKind { Int, Float, Str, Multi, Aggregate };
const char* to_string(CellKind k);

struct KeySpec {
  std::string name;
  int gold_col = -1;
  int pred_col = -1;  // -1: no such result column (keys read as ""; the driver never scores such a result)
  bool is_id = false; // id keys: file names become ids
};

struct ColumnSpec {
  std::string name;  // reported name
  CellKind kind = CellKind::Str;
  int gold_col = -1;
  int pred_col = -1;  // -1: missing in the result (scores 0)
  std::string description;
  std::string value_type;
  std::string agg;
};

struct MatchOptions {
  std::string query_type = "select_filter";
  bool group_keys_semantic = false;  // allow normalised/judge matching of leftover keys (aggregation)
  int primary_gold_col = -1, primary_pred_col = -1;
  std::string primary_name, primary_description;
  double float_tolerance = 1e-4;
  std::string multi_sep = "||";
  size_t max_judge_pairs = 5000;  // bound on key/entity questions per query
};

struct ColumnResult {
  std::string name;
  CellKind kind = CellKind::Str;
  double precision = 0, recall = 0, f1 = 0;
  double sum_p = 0, sum_r = 0;
  size_t judged = 0;  // cells put to the judge
};

struct CellScore {
  double p = 0, r = 0;
};

struct MatchResult {
  std::vector<std::pair<size_t, size_t>> pairs;  // (gold row, result row), in key (ID) order
  size_t len_gold = 0, len_pred = 0;
  bool multi_entity = false;
  std::vector<ColumnResult> columns;
  std::vector<std::vector<CellScore>> cells;  // [column][pair]
  double macro_precision = 0, macro_recall = 0, macro_f1 = 0;
  double row_precision = 0, row_recall = 0, row_f1 = 0;
  std::vector<std::string> warnings;
  size_t judge_questions = 0;
};

// Canonical key text of one cell (see above).
std::string key_text(const Value& v, bool is_id);

// Score of one single-valued cell under the rules; nullopt when the rules cannot decide (→ judge).
std::optional<double> rule_cell_score(CellKind kind, const Value& pred, const Value& gold, double float_tolerance);

double f1_of(double p, double r);

// A cell as the rules and the judge read it: NULL → "", else judge::clean_cell of its text; and
// whether it is empty (NULL, '', only whitespace, or a quoted empty string "" / ''). (cells.cpp)
std::string text_of(const Value& v);
bool empty_cell(const Value& v);

// Time and memory are linear in the two tables (plus the judge's questions, at most max_judge_pairs per
// kind); `deadline` is checked while it works (DeadlineExceeded).
MatchResult evaluate_match(const Table& gold, const Table& pred, const std::vector<KeySpec>& keys,
                           const std::vector<ColumnSpec>& columns, const MatchOptions& opt, judge::Judge& judge,
                           const Deadline& deadline = {});
// The same with the result read from result.csv (text or NULL cells, compact).
MatchResult evaluate_match(const Table& gold, const TextTable& pred, const std::vector<KeySpec>& keys,
                           const std::vector<ColumnSpec>& columns, const MatchOptions& opt, judge::Judge& judge,
                           const Deadline& deadline = {});

}  // namespace sqlgrade::uda
