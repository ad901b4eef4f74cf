#pragma once
// "Spider2 evaluation v2" (evaluate_v2.py, unmerged PR #131 to xlang-ai/Spider2; spec §5): a tolerant
// evaluator with column precision/recall/F1 on normalised column names and row precision/recall/F1
// from a greedy one-to-one matching of normalised rows on the common columns.
//
// Differences from the Python script (deliberate fixes, documented in docs/spider2.md):
//  * an error scores 0 with its reason (the script carries the previous instance's score over);
//  * gold files are resolved as the current official evaluate.py does (the script reads <id>.csv when
//    only <id>_a.csv exists and fails);
//  * a flat condition_cols with a single `_a` alternative selects all listed columns (the script
//    would pass the bare first integer to iloc and fail).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/spider2.hpp"
#include "sqlgrade/spider2/compare.hpp"

namespace sqlgrade::spider2::v2 {

// lower, trim, '_' -> ' ', split on whitespace, drop of/the/a/an, map synonyms, join with ' '.
// (Lower-casing is ASCII only; Python's str.lower also folds non-ASCII letters.)
std::string normalize_column_name(std::string_view name);

// Cell normalisation: NaN -> "NaN"; float -> str(round(x, 2)); int/bool -> str; other -> str lowered.
std::string normalize_value(const Cell& c);
void append_normalized_value(const CellView& c, std::string& out);

// Overall, ColumnMetrics, RowMetrics and Result are public: include/sqlgrade/spider2.hpp.

// One gold table. `condition_cols`: [] / null = all gold columns, an int or a list of ints = those
// positional columns. Throws std::out_of_range on a bad index.
// Checks `deadline` while it works (DeadlineExceeded).
Result compare(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols, const Deadline& deadline = {});

// Several alternatives: the first with score 1 wins; otherwise score 0 with the best column metrics and
// the best row metrics (chosen independently). condition_cols resolved as for the official rule, except
// the single-alternative flat list (see above). Throws std::out_of_range like the official script.
Result compare_multi(const Frame& pred, const std::vector<Frame>& golds, const nlohmann::json& condition_cols,
                     bool single_file, const Deadline& deadline = {});

nlohmann::json to_json(const Result& r);  // the per-instance shape of <result_dir>-detailed-metrics.json

}  // namespace sqlgrade::spider2::v2
