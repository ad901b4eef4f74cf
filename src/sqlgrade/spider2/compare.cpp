// Spider 2.0-Lite official comparison rule. Mirrors xlang-ai/Spider2
// spider2-lite/evaluation_suite/evaluate.py at e12c5f1 (HEAD 2025-11-07; evaluate.py last rewritten in
// 5fa8a517, 2025-11-02): compare_pandas_table / compare_multi_pandas_table, spec
// shared/spec/official-evaluators.md §4.3-4.5. The values it compares come from frame.cpp (pandas).
#include "sqlgrade/spider2/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

#include "sqlgrade/core/text.hpp"

namespace sqlgrade::spider2 {

// ---------------------------------------------------------------------------------------------
// Comparison

namespace {

// The vectors the official script builds: DataFrame.transpose().values.tolist(). When every selected
// column is int64/float64 and at least one is float64, numpy's common dtype makes the ints floats.
std::vector<std::vector<Cell>> column_vectors(const Frame& f, const std::vector<size_t>& cols) {
  bool all_numeric = !cols.empty(), any_float = false;
  for (size_t c : cols) {
    Dtype d = f.columns[c].dtype;
    if (d != Dtype::Int64 && d != Dtype::Float64) all_numeric = false;
    if (d == Dtype::Float64) any_float = true;
  }
  bool ints_to_float = all_numeric && any_float;
  std::vector<std::vector<Cell>> out;
  out.reserve(cols.size());
  for (size_t c : cols) {
    out.push_back(f.columns[c].cells);
    if (ints_to_float && f.columns[c].dtype == Dtype::Int64)
      for (auto& cell : out.back()) cell = Cell::real(static_cast<double>(cell.i));
  }
  return out;
}

std::vector<size_t> all_cols(const Frame& f) {
  std::vector<size_t> v(f.width());
  std::iota(v.begin(), v.end(), size_t{0});
  return v;
}

bool json_truthy(const nlohmann::json& j) {
  if (j.is_null()) return false;
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return j.get<long long>() != 0;
  if (j.is_number_float()) return j.get<double>() != 0.0;
  if (j.is_array() || j.is_object() || j.is_string()) return !j.empty();
  return true;
}

// Gold columns selected by condition_cols (pandas iloc semantics, negative indices allowed).
std::vector<size_t> select_gold_cols(const Frame& gold, const nlohmann::json& cc) {
  if (!json_truthy(cc)) return all_cols(gold);
  return iloc_columns(gold.width(), cc);
}

}  // namespace

std::vector<size_t> iloc_columns(size_t width, const nlohmann::json& positions) {
  nlohmann::json list = positions.is_array() ? positions : nlohmann::json::array({positions});
  std::vector<size_t> out;
  const long long w = static_cast<long long>(width);
  for (auto& e : list) {
    if (!e.is_number_integer()) throw std::out_of_range("condition_cols element is not an integer: " + e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    // Python ints do not wrap: 18446744073709551615 is out of bounds (IndexError), not -1.
    if (e.is_number_unsigned() && e.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      throw std::out_of_range("positional indexers are out-of-bounds");
    long long k = e.get<long long>();
    if (k < 0) k += w;
    if (k < 0 || k >= w) throw std::out_of_range("positional indexers are out-of-bounds");
    out.push_back(static_cast<size_t>(k));
  }
  return out;
}

namespace {

bool py_isclose(double a, double b, double rel_tol, double abs_tol) {
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  double diff = std::fabs(b - a);
  return diff <= std::fabs(rel_tol * b) || diff <= std::fabs(rel_tol * a) || diff <= abs_tol;
}

struct KeyedCell {
  std::string key;
  bool num;
  Cell cell;
};

std::vector<Cell> normalized_sorted(const std::vector<Cell>& v, bool sort) {
  std::vector<Cell> out;
  out.reserve(v.size());
  for (auto& c : v) out.push_back(c.is_nan() ? Cell::integer(0) : c);
  if (!sort) return out;
  std::vector<KeyedCell> k;
  k.reserve(out.size());
  for (auto& c : out) k.push_back({c.py_str(), c.is_number(), std::move(c)});
  std::stable_sort(k.begin(), k.end(), [](const KeyedCell& a, const KeyedCell& b) {
    int cmp = a.key.compare(b.key);
    if (cmp != 0) return cmp < 0;
    return a.num < b.num;
  });
  out.clear();
  for (auto& e : k) out.push_back(std::move(e.cell));
  return out;
}

bool cells_match(const Cell& a, const Cell& b, double abs_tol) {
  if (a.is_number() && b.is_number()) return py_isclose(a.as_double(), b.as_double(), 1e-9, abs_tol);
  if (a.is_number() || b.is_number()) return false;
  if (a.is_nan() && b.is_nan()) return true;
  return a == b;
}

// Sorted by value (numbers first, by magnitude; then strings): what the string sort was meant to do.
std::vector<Cell> numeric_sorted(const std::vector<Cell>& v) {
  std::vector<Cell> out;
  for (auto& c : v) out.push_back(c.is_nan() ? Cell::integer(0) : c);
  std::stable_sort(out.begin(), out.end(), [](const Cell& a, const Cell& b) {
    if (a.is_number() != b.is_number()) return a.is_number();
    if (a.is_number()) return a.as_double() < b.as_double();
    return a.py_str() < b.py_str();
  });
  return out;
}

bool prepared_match(const std::vector<Cell>& a, const std::vector<Cell>& b, double abs_tol) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!cells_match(a[i], b[i], abs_tol)) return false;
  return true;
}

}  // namespace

bool vectors_match(const std::vector<Cell>& gold, const std::vector<Cell>& pred, bool ignore_order, double abs_tol) {
  if (gold.size() != pred.size()) return false;
  return prepared_match(normalized_sorted(gold, ignore_order), normalized_sorted(pred, ignore_order), abs_tol);
}

namespace {

int compare_frames_impl(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols, bool ignore_order,
                        bool value_sort) {
  auto gold_vecs = column_vectors(gold, select_gold_cols(gold, condition_cols));
  auto pred_vecs = column_vectors(pred, all_cols(pred));
  auto prep = [&](const std::vector<Cell>& v) {
    return value_sort && ignore_order ? numeric_sorted(v) : normalized_sorted(v, ignore_order);
  };
  std::vector<std::vector<Cell>> pred_prep;
  pred_prep.reserve(pred_vecs.size());
  for (auto& p : pred_vecs) pred_prep.push_back(prep(p));
  for (auto& g : gold_vecs) {
    auto gp = prep(g);
    bool found = false;
    for (auto& p : pred_prep)
      if (prepared_match(gp, p, 1e-2)) {
        found = true;
        break;
      }
    if (!found) return 0;
  }
  return 1;
}

}  // namespace

int compare_frames(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols, bool ignore_order) {
  return compare_frames_impl(pred, gold, condition_cols, ignore_order, false);
}

int compare_frames_value_sort(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                              bool ignore_order) {
  return compare_frames_impl(pred, gold, condition_cols, ignore_order, true);
}

std::vector<std::optional<nlohmann::json>> resolve_condition_cols(const nlohmann::json& cc, size_t n) {
  std::vector<std::optional<nlohmann::json>> out(n);
  auto empty_like = [&]() {
    if (cc.is_null()) return true;
    if (!cc.is_array()) return false;
    if (cc.empty()) return true;
    if (cc.size() == 1 && ((cc[0].is_array() && cc[0].empty()) || cc[0].is_null())) return true;
    return false;
  };
  if (empty_like()) {
    for (auto& o : out) o = nlohmann::json::array();
    return out;
  }
  bool all_lists = cc.is_array();
  if (cc.is_array())
    for (auto& e : cc)
      if (!e.is_array()) all_lists = false;
  if (n > 1 && !all_lists) {
    for (auto& o : out) o = cc;
    return out;
  }
  // Element i for alternative i (the single-alternative flat-list quirk: element 0 is an int).
  for (size_t i = 0; i < n; ++i)
    if (cc.is_array() && i < cc.size()) out[i] = cc[i];
  return out;
}

int score_against_golds(const Frame& pred, const std::vector<Frame>& golds, const EvalEntry& entry, bool single_file,
                        std::string* error) {
  try {
    if (single_file && golds.size() == 1) {
      const auto& cc = entry.condition_cols;
      if (cc.is_array())
        for (auto& e : cc)
          if (!e.is_number_integer()) throw std::out_of_range("condition_cols is not a flat list of integers");
      return compare_frames(pred, golds[0], cc, entry.ignore_order);
    }
    auto per = resolve_condition_cols(entry.condition_cols, golds.size());
    for (size_t i = 0; i < golds.size(); ++i) {
      if (!per[i]) throw std::out_of_range("list index out of range");
      if (compare_frames(pred, golds[i], *per[i], entry.ignore_order)) return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    if (error) *error = std::string("Python Script Error: ") + e.what();
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// --strict diagnostics

std::vector<std::string> strict_findings(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                                         bool ignore_order) {
  std::vector<std::string> out;
  std::vector<size_t> gcols;
  try {
    gcols = select_gold_cols(gold, condition_cols);
  } catch (const std::exception&) {
    return out;
  }
  auto gold_vecs = column_vectors(gold, gcols);
  auto pred_vecs = column_vectors(pred, all_cols(pred));
  // 1. Tolerance broken by the string sort: official mismatch, but a numeric sort would match.
  std::vector<int> chosen(gold_vecs.size(), -1);
  for (size_t g = 0; g < gold_vecs.size(); ++g) {
    for (size_t p = 0; p < pred_vecs.size(); ++p)
      if (vectors_match(gold_vecs[g], pred_vecs[p], ignore_order)) {
        chosen[g] = static_cast<int>(p);
        break;
      }
    if (chosen[g] >= 0 || !ignore_order) continue;
    for (size_t p = 0; p < pred_vecs.size(); ++p)
      if (gold_vecs[g].size() == pred_vecs[p].size() &&
          prepared_match(numeric_sorted(gold_vecs[g]), numeric_sorted(pred_vecs[p]), 1e-2)) {
        out.push_back("gold column " + std::to_string(gcols[g]) + " ('" + gold.columns[gcols[g]].name +
                      "') matches pred column " + std::to_string(p) + " ('" + pred.columns[p].name +
                      "') within tolerance, but the official string-representation sort misaligns the values");
        break;
      }
  }
  // 2. Rows scrambled across columns: every gold column matched on its own, but the rows do not.
  bool all_matched = std::all_of(chosen.begin(), chosen.end(), [](int c) { return c >= 0; });
  if (all_matched && !gold_vecs.empty()) {
    const size_t n = gold.rows;
    std::vector<char> used(n, 0);
    size_t unmatched = 0;
    auto row_eq = [&](size_t gr, size_t pr) {
      for (size_t g = 0; g < gold_vecs.size(); ++g) {
        const Cell& a = gold_vecs[g][gr];
        const Cell& b = pred_vecs[chosen[g]][pr];
        if (!cells_match(a.is_nan() ? Cell::integer(0) : a, b.is_nan() ? Cell::integer(0) : b, 1e-2)) return false;
      }
      return true;
    };
    if (n <= 20000) {
      for (size_t gr = 0; gr < n; ++gr) {
        bool ok = false;
        if (!ignore_order) {
          ok = row_eq(gr, gr);
        } else {
          for (size_t pr = 0; pr < n && !ok; ++pr)
            if (!used[pr] && row_eq(gr, pr)) used[pr] = 1, ok = true;
        }
        if (!ok) ++unmatched;
      }
      if (unmatched)
        out.push_back(std::to_string(unmatched) + " of " + std::to_string(n) +
                      " gold rows have no matching pred row: the columns match one by one but the rows are " +
                      "scrambled across columns");
    }
  }
  return out;
}

}  // namespace sqlgrade::spider2
