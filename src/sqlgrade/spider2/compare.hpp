#pragma once
// Spider 2.0-Lite official comparison rule (xlang-ai/Spider2 evaluate.py @ e12c5f1, Nov 2025 version;
// spec: shared/spec/official-evaluators.md §4.3–4.5), on the pandas-typed frames of frame.hpp.
//
// Quirks reproduced on purpose (they decide official scores):
//  * NaN (empty cell, "NA", "NULL", ...) is normalised to the integer 0 before comparing;
//  * with ignore_order each column vector is sorted on its own by str(value), which can misalign
//    values that are within tolerance (gold [2.0, 19.999] vs pred [2.0, 20.0] scores 0) and lets rows
//    scrambled across columns score 1;
//  * numbers compare with math.isclose(rel 1e-9, abs 0.01); a string never equals a number;
//  * condition_cols resolution for multi-gold, incl. the flat-list single-alternative rule (§4.3).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/spider2/frame.hpp"

namespace sqlgrade::spider2 {

// Column positions for condition_cols entries (one integer or a list): pandas iloc semantics,
// negative positions count from the end. Throws std::out_of_range as pandas raises IndexError.
std::vector<size_t> iloc_columns(size_t width, const nlohmann::json& positions);

struct EvalEntry {
  std::string instance_id;
  nlohmann::json condition_cols;  // null, a flat list of ints, or a list of lists (one per alternative)
  bool ignore_order = false;
};

// Vector comparison of the official script (NaN->0, optional str sort, isclose abs 0.01).
bool vectors_match(const std::vector<Cell>& gold, const std::vector<Cell>& pred, bool ignore_order,
                   double abs_tol = 1e-2);

// compare_pandas_table: 1 iff every selected gold column vector matches some pred column vector.
// `condition_cols` is the per-alternative value (null, int, or list of ints). Throws std::out_of_range
// for an out-of-range column index (the official caller turns that into score 0).
// Checks `deadline` while it sorts and compares (DeadlineExceeded).
int compare_frames(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                   bool ignore_order, const Deadline& deadline = {});

// condition_cols per alternative, resolved as the official compare_multi_pandas_table does (§4.3).
// Element i is what compare_frames receives for alternative i; std::nullopt means the official
// script raises IndexError for that alternative (the whole instance then scores 0).
std::vector<std::optional<nlohmann::json>> resolve_condition_cols(const nlohmann::json& condition_cols,
                                                                  size_t n_alternatives);

// Official multi-gold verdict (spec §4.3–4.5): 1 if the prediction matches any gold alternative.
// A single gold (the `<id>.csv` path) is passed as a one-element vector with `single_file = true`
// (then condition_cols is passed through unchanged). Errors (bad index) give 0. DeadlineExceeded
// passes through when `deadline` expires (the caller's verdict: 0, "timeout").
int score_against_golds(const Frame& pred, const std::vector<Frame>& golds, const EvalEntry& entry,
                        bool single_file = false, std::string* error = nullptr, const Deadline& deadline = {});

// compare_frames with each vector sorted by value instead of by str() when ignore_order is set (the
// tolerance then holds); used by --strict to tell whether only the string sort made a prediction fail.
int compare_frames_value_sort(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                              bool ignore_order, const Deadline& deadline = {});

// --strict diagnostics: what the official rule misses, for a prediction it scored 1 against
// `gold` (with the resolved condition_cols). Empty when nothing is suspicious.
std::vector<std::string> strict_findings(const Frame& pred, const Frame& gold,
                                         const nlohmann::json& condition_cols, bool ignore_order,
                                         const Deadline& deadline = {});

}  // namespace sqlgrade::spider2
