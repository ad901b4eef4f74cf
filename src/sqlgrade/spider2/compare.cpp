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
//
// The vectors are read in place from the frames' compact columns (no copy of a column), and the
// sorted order of a vector is a permutation of its rows: a million-row column costs 4 MB once sorted
// (16 bytes per cell plus its keys' text while it is sorted) where a copy of its Cells cost 56 bytes
// per cell, three times over (issue 19, finding 5).

namespace {

// One vector of the official script, DataFrame.transpose().values.tolist()[k], after its
// normalisation (NaN -> the integer 0).
struct Vec {
  const Column* col = nullptr;
  bool to_float = false;  // an int64 column among float64 ones: numpy's common dtype makes its ints floats
  size_t size() const { return col->size(); }
  CellView at(size_t r) const {
    CellView v = col->at(r);
    if (v.type == Cell::Type::NaN) {
      v.type = Cell::Type::Int;
      v.i = 0;
    } else if (to_float && v.type == Cell::Type::Int) {
      v.type = Cell::Type::Float;
      v.f = static_cast<double>(v.i);
    }
    return v;
  }
};

// The vectors the official script builds. When every selected column is int64/float64 and at least one
// is float64, numpy's common dtype makes the ints floats.
std::vector<Vec> column_vectors(const Frame& f, const std::vector<size_t>& cols) {
  bool all_numeric = !cols.empty(), any_float = false;
  for (size_t c : cols) {
    Dtype d = f.columns[c].dtype;
    if (d != Dtype::Int64 && d != Dtype::Float64) all_numeric = false;
    if (d == Dtype::Float64) any_float = true;
  }
  std::vector<Vec> out;
  out.reserve(cols.size());
  for (size_t c : cols) out.push_back({&f.columns[c], all_numeric && any_float && f.columns[c].dtype == Dtype::Int64});
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

bool cells_match(const CellView& a, const CellView& b, double abs_tol) {
  if (a.is_number() && b.is_number()) return py_isclose(a.as_double(), b.as_double(), 1e-9, abs_tol);
  if (a.is_number() || b.is_number()) return false;
  if (a.is_nan() && b.is_nan()) return true;
  return a == b;
}

// How a vector is ordered before the element-wise comparison.
enum class Sort {
  None,    // row order (ignore_order false)
  Str,     // the official key (str(x), is-number): stable
  Value,   // --strict: numbers first by value, then strings — what the string sort was meant to do
};

// Rows in comparison order; empty means row order.
using Order = std::vector<uint32_t>;

// The official sort: by str(value), then numbers after non-numbers, stable. The keys of str cells are
// their text in the column; the others are rendered once into one buffer.
Order str_sorted(const Vec& v, DeadlineTicker& tick) {
  const size_t n = v.size();
  std::string text;
  std::vector<uint64_t> end(n);  // key of non-str row r: text[end[r-1], end[r])
  std::vector<char> num(n);
  for (size_t r = 0; r < n; ++r) {
    CellView c = v.at(r);
    num[r] = c.is_number();
    if (c.type != Cell::Type::Str) c.append_py_str(text);
    end[r] = text.size();
    tick.tick();
  }
  auto key = [&](uint32_t r) {
    CellView c = v.at(r);
    if (c.type == Cell::Type::Str) return c.s;
    uint64_t b = r ? end[r - 1] : 0;
    return std::string_view(text.data() + b, end[r] - b);
  };
  Order o(n);
  std::iota(o.begin(), o.end(), uint32_t{0});
  std::stable_sort(o.begin(), o.end(), [&](uint32_t a, uint32_t b) {
    tick.tick();
    int cmp = key(a).compare(key(b));
    if (cmp != 0) return cmp < 0;
    return num[a] < num[b];
  });
  return o;
}

Order value_sorted(const Vec& v, DeadlineTicker& tick) {
  Order o(v.size());
  std::iota(o.begin(), o.end(), uint32_t{0});
  std::stable_sort(o.begin(), o.end(), [&](uint32_t ra, uint32_t rb) {
    tick.tick();
    CellView a = v.at(ra), b = v.at(rb);
    if (a.is_number() != b.is_number()) return a.is_number();
    if (a.is_number()) return a.as_double() < b.as_double();
    return a.s < b.s;  // only str cells are left (NaN became 0)
  });
  return o;
}

Order prepare(const Vec& v, Sort sort, DeadlineTicker& tick) {
  // Row indices are 32-bit: a frame never has 4 G rows (its text is bounded far below).
  switch (sort) {
    case Sort::None: return {};
    case Sort::Str: return str_sorted(v, tick);
    case Sort::Value: return value_sorted(v, tick);
  }
  return {};
}

bool prepared_match(const Vec& a, const Order& oa, const Vec& b, const Order& ob, double abs_tol, DeadlineTicker& tick) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    tick.tick();
    if (!cells_match(a.at(oa.empty() ? i : oa[i]), b.at(ob.empty() ? i : ob[i]), abs_tol)) return false;
  }
  return true;
}

bool vecs_match(const Vec& gold, const Vec& pred, Sort sort, double abs_tol, DeadlineTicker& tick) {
  if (gold.size() != pred.size()) return false;
  return prepared_match(gold, prepare(gold, sort, tick), pred, prepare(pred, sort, tick), abs_tol, tick);
}

}  // namespace

bool vectors_match(const std::vector<Cell>& gold, const std::vector<Cell>& pred, bool ignore_order, double abs_tol) {
  Column g, p;
  for (auto& c : gold) g.push(c);
  for (auto& c : pred) p.push(c);
  DeadlineTicker tick{Deadline()};
  return vecs_match({&g, false}, {&p, false}, ignore_order ? Sort::Str : Sort::None, abs_tol, tick);
}

namespace {

int compare_frames_impl(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols, bool ignore_order,
                        Sort sort, const Deadline& deadline) {
  const std::vector<Vec> gold_vecs = column_vectors(gold, select_gold_cols(gold, condition_cols));
  const std::vector<Vec> pred_vecs = column_vectors(pred, all_cols(pred));
  if (gold_vecs.empty()) return 1;
  // Every vector of a frame has the frame's length, and vectors of different lengths never match:
  // nothing needs sorting.
  if (gold.rows != pred.rows) return 0;
  if (!ignore_order) sort = Sort::None;
  DeadlineTicker tick(deadline);
  std::vector<std::optional<Order>> pred_orders(pred_vecs.size());  // each pred vector sorted once, when needed
  for (const Vec& g : gold_vecs) {
    const Order go = prepare(g, sort, tick);
    bool found = false;
    for (size_t p = 0; p < pred_vecs.size() && !found; ++p) {
      if (!pred_orders[p]) pred_orders[p] = prepare(pred_vecs[p], sort, tick);
      found = prepared_match(g, go, pred_vecs[p], *pred_orders[p], 1e-2, tick);
    }
    if (!found) return 0;
  }
  return 1;
}

}  // namespace

int compare_frames(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols, bool ignore_order,
                   const Deadline& deadline) {
  return compare_frames_impl(pred, gold, condition_cols, ignore_order, Sort::Str, deadline);
}

int compare_frames_value_sort(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                              bool ignore_order, const Deadline& deadline) {
  return compare_frames_impl(pred, gold, condition_cols, ignore_order, Sort::Value, deadline);
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
                        std::string* error, const Deadline& deadline) {
  try {
    if (single_file && golds.size() == 1) {
      const auto& cc = entry.condition_cols;
      if (cc.is_array())
        for (auto& e : cc)
          if (!e.is_number_integer()) throw std::out_of_range("condition_cols is not a flat list of integers");
      return compare_frames(pred, golds[0], cc, entry.ignore_order, deadline);
    }
    auto per = resolve_condition_cols(entry.condition_cols, golds.size());
    for (size_t i = 0; i < golds.size(); ++i) {
      if (!per[i]) throw std::out_of_range("list index out of range");
      if (compare_frames(pred, golds[i], *per[i], entry.ignore_order, deadline)) return 1;
    }
    return 0;
  } catch (const DeadlineExceeded&) {
    throw;  // not the script's error: the caller's timeout
  } catch (const std::exception& e) {
    if (error) *error = std::string("Python Script Error: ") + e.what();
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// --strict diagnostics

std::vector<std::string> strict_findings(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols,
                                         bool ignore_order, const Deadline& deadline) {
  std::vector<std::string> out;
  std::vector<size_t> gcols;
  try {
    gcols = select_gold_cols(gold, condition_cols);
  } catch (const std::exception&) {
    return out;
  }
  const std::vector<Vec> gold_vecs = column_vectors(gold, gcols);
  const std::vector<Vec> pred_vecs = column_vectors(pred, all_cols(pred));
  DeadlineTicker tick(deadline);
  const Sort sort = ignore_order ? Sort::Str : Sort::None;
  // 1. Tolerance broken by the string sort: official mismatch, but a numeric sort would match.
  std::vector<int> chosen(gold_vecs.size(), -1);
  for (size_t g = 0; g < gold_vecs.size(); ++g) {
    for (size_t p = 0; p < pred_vecs.size(); ++p)
      if (vecs_match(gold_vecs[g], pred_vecs[p], sort, 1e-2, tick)) {
        chosen[g] = static_cast<int>(p);
        break;
      }
    if (chosen[g] >= 0 || !ignore_order) continue;
    for (size_t p = 0; p < pred_vecs.size(); ++p)
      if (vecs_match(gold_vecs[g], pred_vecs[p], Sort::Value, 1e-2, tick)) {
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
      tick.tick(gold_vecs.size());
      for (size_t g = 0; g < gold_vecs.size(); ++g)
        if (!cells_match(gold_vecs[g].at(gr), pred_vecs[chosen[g]].at(pr), 1e-2)) return false;
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
