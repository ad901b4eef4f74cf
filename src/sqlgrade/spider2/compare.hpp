#pragma once
// Spider 2.0-Lite official comparison rule (xlang-ai/Spider2 evaluate.py, Nov 2025 version;
// spec: shared/spec/official-evaluators.md §4.3–4.5).
//
// The official script compares pandas DataFrames read with read_csv, so the values it sees are the
// result of pandas' CSV type inference (NA strings -> NaN, per-column int/float/bool/object dtype,
// blank lines skipped). `Frame` is that DataFrame: column names plus typed cells per column.
// `frame_from_csv_text` emulates read_csv (pandas 1.5.3 defaults); `frame_from_table` emulates the
// sql-mode path read_sql_query(chunksize=500) -> to_csv -> read_csv.
//
// Quirks reproduced on purpose (they decide official scores):
//  * NaN (empty cell, "NA", "NULL", ...) is normalised to the integer 0 before comparing;
//  * with ignore_order each column vector is sorted on its own by str(value), which can misalign
//    values that are within tolerance (gold [2.0, 19.999] vs pred [2.0, 20.0] scores 0) and lets rows
//    scrambled across columns score 1;
//  * numbers compare with math.isclose(rel 1e-9, abs 0.01); a string never equals a number;
//  * condition_cols resolution for multi-gold, incl. the flat-list single-alternative rule (§4.3).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/table.hpp"

namespace sqlgrade::spider2 {

// One cell as a Python object after DataFrame.values.tolist(): NaN, int, float, bool or str.
struct Cell {
  enum class Type : uint8_t { NaN = 0, Int, Float, Bool, Str };
  Type type = Type::NaN;
  int64_t i = 0;    // Int value, Bool as 0/1
  double f = 0.0;   // Float value
  std::string s;    // Str value

  static Cell nan() { return {}; }
  static Cell integer(int64_t v) { Cell c; c.type = Type::Int; c.i = v; return c; }
  static Cell real(double v) { Cell c; c.type = Type::Float; c.f = v; return c; }
  static Cell boolean(bool v) { Cell c; c.type = Type::Bool; c.i = v ? 1 : 0; return c; }
  static Cell str(std::string v) { Cell c; c.type = Type::Str; c.s = std::move(v); return c; }

  bool is_nan() const { return type == Type::NaN; }
  // Python isinstance(x, (int, float)) — bool counts as a number.
  bool is_number() const { return type == Type::Int || type == Type::Float || type == Type::Bool; }
  double as_double() const { return type == Type::Float ? f : static_cast<double>(i); }
  // Python str(x): NaN -> "nan", floats in repr form, True/False.
  std::string py_str() const;
  bool operator==(const Cell& o) const;
};

// pandas column dtype after read_csv inference.
enum class Dtype : uint8_t { Int64, Float64, Bool, Object };

struct Column {
  std::string name;  // after pandas header handling (duplicates mangled "a.1", blanks "Unnamed: i")
  Dtype dtype = Dtype::Object;
  std::vector<Cell> cells;
};

// pandas-like table: column names + per-column typed values.
struct Frame {
  std::vector<Column> columns;
  size_t rows = 0;

  size_t width() const { return columns.size(); }
  std::vector<std::string> names() const;
};

// Column positions for condition_cols entries (one integer or a list): pandas iloc semantics,
// negative positions count from the end. Throws std::out_of_range as pandas raises IndexError.
std::vector<size_t> iloc_columns(size_t width, const nlohmann::json& positions);

// pandas.read_csv(text) emulation (pandas 1.5.3 defaults). Throws InputError(name, msg, line) on
// what pandas rejects (empty input "No columns to parse from file", too many fields in a row).
Frame frame_from_csv_text(std::string_view csv, const std::string& name);
// Same, reading the file (InputError naming the file if missing).
Frame frame_from_csv_file(const std::string& path);

// Official sql mode: a query result goes through DataFrame(chunks of 500 rows) -> to_csv -> read_csv.
// `to_csv_text` is the intermediate CSV text (what the official script writes to <result_dir>_csv/).
std::string to_csv_text(const Table& t);
Frame frame_from_table(const Table& t);

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
int compare_frames(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                   bool ignore_order);

// condition_cols per alternative, resolved as the official compare_multi_pandas_table does (§4.3).
// Element i is what compare_frames receives for alternative i; std::nullopt means the official
// script raises IndexError for that alternative (the whole instance then scores 0).
std::vector<std::optional<nlohmann::json>> resolve_condition_cols(const nlohmann::json& condition_cols,
                                                                  size_t n_alternatives);

// Official multi-gold verdict (spec §4.3–4.5): 1 if the prediction matches any gold alternative.
// A single gold (the `<id>.csv` path) is passed as a one-element vector with `single_file = true`
// (then condition_cols is passed through unchanged). Errors (bad index) give 0.
int score_against_golds(const Frame& pred, const std::vector<Frame>& golds, const EvalEntry& entry,
                        bool single_file = false, std::string* error = nullptr);

// compare_frames with each vector sorted by value instead of by str() when ignore_order is set (the
// tolerance then holds); used by --strict to tell whether only the string sort made a prediction fail.
int compare_frames_value_sort(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                              bool ignore_order);

// --strict diagnostics: what the official rule misses, for a prediction it scored 1 against
// `gold` (with the resolved condition_cols). Empty when nothing is suspicious.
std::vector<std::string> strict_findings(const Frame& pred, const Frame& gold,
                                         const nlohmann::json& condition_cols, bool ignore_order);

}  // namespace sqlgrade::spider2
