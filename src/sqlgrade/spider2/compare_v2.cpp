// "Spider2 evaluation v2" rule. Mirrors spider2-lite/evaluation_suite/evaluate_v2.py of the unmerged
// PR #131 to xlang-ai/Spider2 (refs/pull/131/head = 819e5eab, Shorthills AI, 2025-08-11): column
// names and values normalised, column P/R/F1, greedy one-to-one row matching; spec
// shared/spec/official-evaluators.md §5. Deliberate differences are listed in compare_v2.hpp.
#include "sqlgrade/spider2/compare_v2.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <cctype>
#include <functional>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/core/value.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::spider2::v2 {

namespace {

const std::map<std::string, std::string, std::less<>>& synonyms() {
  static const std::map<std::string, std::string, std::less<>> m = {
      {"unique", "distinct"}, {"avg", "average"},     {"sum", "total"},        {"count", "number"},
      {"qty", "quantity"},    {"amt", "amount"},      {"desc", "description"}, {"id", "identifier"},
      {"max", "maximum"},     {"min", "minimum"},     {"pct", "percentage"},   {"percent", "percentage"},
      {"num", "number"},      {"cust", "customer"},   {"prod", "product"},     {"trans", "transaction"},
      {"cat", "category"},    {"grp", "group"},       {"dt", "date"},          {"ts", "timestamp"},
      {"pk", "primary key"},  {"fk", "foreign key"},  {"cnt", "number"},       {"no", "number"},
      {"nbr", "number"},      {"vol", "volume"},      {"val", "value"},        {"rev", "revenue"}};
  return m;
}

bool is_py_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' || c == '\x1e' || c == '\x1f'; }

double ratio(long a, long b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }
double f1_of(double p, double r) { return (p + r) > 0 ? 2 * (p * r) / (p + r) : 0.0; }

std::vector<size_t> gold_selection(const Frame& gold, const nlohmann::json& cc) {
  if (cc.is_null() || (cc.is_array() && cc.empty())) {
    std::vector<size_t> out;
    for (size_t i = 0; i < gold.width(); ++i) out.push_back(i);
    return out;
  }
  return iloc_columns(gold.width(), cc);
}

}  // namespace

std::string normalize_column_name(std::string_view name) {
  std::string s = to_lower(name);
  for (char& c : s)
    if (c == '_') c = ' ';
  std::vector<std::string> words;
  std::string cur;
  for (char c : s) {
    if (is_py_space(c)) {
      if (!cur.empty()) words.push_back(std::move(cur)), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  std::string out;
  for (auto& w : words) {
    if (w == "of" || w == "the" || w == "a" || w == "an") continue;
    auto it = synonyms().find(w);
    if (!out.empty()) out += ' ';
    out += it != synonyms().end() ? it->second : w;
  }
  return out;
}

void append_normalized_value(const CellView& c, std::string& out) {
  switch (c.type) {
    case Cell::Type::NaN: out += "NaN"; return;
    case Cell::Type::Float: {
      if (std::isnan(c.f)) {
        out += "NaN";
        return;
      }
      if (std::isinf(c.f)) {
        out += py::float_repr(c.f);
        return;
      }
      // Python round(x, 2): correctly rounded from the exact binary value (glibc printf does the same).
      char buf[400];
      std::snprintf(buf, sizeof buf, "%.2f", c.f);
      out += py::float_repr(std::strtod(buf, nullptr));
      return;
    }
    case Cell::Type::Int:
    case Cell::Type::Bool: c.append_py_str(out); return;
    case Cell::Type::Str: {
      size_t b = out.size();
      out += c.s;
      for (size_t k = b; k < out.size(); ++k) out[k] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[k])));
      return;
    }
  }
}

std::string normalize_value(const Cell& c) {
  Column one;
  one.push(c);
  std::string out;
  append_normalized_value(one.at(0), out);
  return out;
}

namespace {

// A row's key: its normalised values on the common columns, each as "<length>:<text>".
void row_key(const Frame& f, const std::vector<size_t>& cols, size_t r, std::string& key) {
  key.clear();
  std::string v;
  for (size_t c : cols) {
    v.clear();
    append_normalized_value(f.columns[c].at(r), v);
    key += std::to_string(v.size());
    key += ':';
    key += v;
  }
}

// The script's greedy first-unused matching of gold rows to pred rows with the same key, which counts
// the multiset intersection of the two sides' keys. The pred keys are kept as 64-bit hashes (16 bytes
// a row, sorted) and a hash hit is confirmed on the keys themselves, so memory does not grow with the
// keys' text (was a hash map of every pred key: ~150 bytes a row).
long common_rows(const Frame& pred, const std::vector<size_t>& pc, const Frame& gold, const std::vector<size_t>& gc,
                 const Deadline& deadline) {
  DeadlineTicker tick(deadline, 256);
  std::string key, other;
  std::vector<std::pair<uint64_t, uint32_t>> ph(pred.rows);  // (hash of key, pred row)
  for (size_t i = 0; i < pred.rows; ++i) {
    row_key(pred, pc, i, key);
    ph[i] = {std::hash<std::string_view>{}(key), static_cast<uint32_t>(i)};
    tick.tick();
  }
  std::sort(ph.begin(), ph.end());
  std::vector<char> used(pred.rows, 0);
  // Per run of equal hashes (indexed by its first entry): how many entries at its front are used, so
  // that a run of identical keys is consumed in linear time.
  std::vector<uint32_t> used_front(pred.rows, 0);
  long tp = 0;
  for (size_t i = 0; i < gold.rows; ++i) {
    row_key(gold, gc, i, key);
    tick.tick();
    const uint64_t h = std::hash<std::string_view>{}(key);
    const size_t s = static_cast<size_t>(std::lower_bound(ph.begin(), ph.end(), std::make_pair(h, uint32_t{0})) - ph.begin());
    bool front = true;  // every entry before k in the run is used
    for (size_t k = s + (s < ph.size() ? used_front[s] : 0); k < ph.size() && ph[k].first == h; ++k) {
      const uint32_t row = ph[k].second;
      bool taken = false;
      if (!used[row]) {
        row_key(pred, pc, row, other);
        tick.tick();
        if (other == key) used[row] = 1, taken = true, ++tp;
        else front = false;  // a different key with the same hash: it stays for its own rows
      }
      if (front) used_front[s] = static_cast<uint32_t>(k + 1 - s);
      if (taken) break;
    }
  }
  return tp;
}

}  // namespace

Result compare(const Frame& pred, const Frame& gold, const nlohmann::json& condition_cols, const Deadline& deadline) {
  std::vector<size_t> gsel = gold_selection(gold, condition_cols);
  // normalised name -> column index (duplicates collapse, the last one wins, as a Python dict).
  std::map<std::string, size_t> pmap, gmap;
  for (size_t i = 0; i < pred.width(); ++i) pmap[normalize_column_name(pred.columns[i].name)] = i;
  for (size_t i : gsel) gmap[normalize_column_name(gold.columns[i].name)] = i;

  Result r;
  auto& cm = r.columns;
  for (auto& [k, _] : pmap) (gmap.count(k) ? cm.tp : cm.fp).push_back(k);
  for (auto& [k, _] : gmap)
    if (!pmap.count(k)) cm.fn.push_back(k);
  long ctp = static_cast<long>(cm.tp.size()), cfp = static_cast<long>(cm.fp.size()), cfn = static_cast<long>(cm.fn.size());
  cm.precision = ratio(ctp, ctp + cfp);
  cm.recall = ratio(ctp, ctp + cfn);
  cm.f1 = f1_of(cm.precision, cm.recall);

  auto& rm = r.rows;
  long tp = 0;
  const long prow = static_cast<long>(pred.rows), grow = static_cast<long>(gold.rows);
  if (cm.tp.empty()) {
    rm.tp = 0;
    rm.fp = prow;
    rm.fn = grow;
  } else {
    rm.common_columns = cm.tp;
    std::vector<size_t> pc, gc;
    for (auto& k : cm.tp) pc.push_back(pmap[k]), gc.push_back(gmap[k]);
    tp = common_rows(pred, pc, gold, gc, deadline);
    rm.tp = tp;
    rm.fp = prow - tp;
    rm.fn = grow - tp;
    rm.precision = ratio(rm.tp, rm.tp + rm.fp);
    rm.recall = ratio(rm.tp, rm.tp + rm.fn);
    rm.f1 = f1_of(rm.precision, rm.recall);
  }
  r.score = (cm.f1 == 1.0 && rm.f1 == 1.0) ? 1 : 0;
  auto& o = r.overall;
  o.tp = ctp + rm.tp;
  o.fp = cfp + rm.fp;
  o.fn = cfn + rm.fn;
  o.precision = ratio(o.tp, o.tp + o.fp);
  o.recall = ratio(o.tp, o.tp + o.fn);
  o.f1 = f1_of(o.precision, o.recall);
  return r;
}

Result compare_multi(const Frame& pred, const std::vector<Frame>& golds, const nlohmann::json& cc, bool single_file,
                     const Deadline& deadline) {
  if (golds.empty()) throw std::out_of_range("no gold alternative");
  if (single_file) return compare(pred, golds[0], cc, deadline);
  std::vector<std::optional<nlohmann::json>> per;
  bool flat = cc.is_array() && !cc.empty() &&
              std::none_of(cc.begin(), cc.end(), [](const nlohmann::json& e) { return e.is_array() || e.is_null(); });
  if (golds.size() == 1 && flat) per.assign(1, cc);  // fix: the whole flat list, not its first element
  else per = resolve_condition_cols(cc, golds.size());
  Result best;
  bool have_col = false, have_row = false;
  for (size_t i = 0; i < golds.size(); ++i) {
    if (!per[i]) throw std::out_of_range("list index out of range");
    Result r = compare(pred, golds[i], *per[i], deadline);
    if (r.score == 1) return r;
    if (!have_col || r.columns.f1 > best.columns.f1) {
      best.columns = r.columns;
      best.overall = r.overall;
      have_col = true;
    }
    if (!have_row || r.rows.f1 > best.rows.f1) {
      best.rows = r.rows;
      have_row = true;
    }
  }
  best.score = 0;
  return best;
}

nlohmann::json to_json(const Result& r) {
  using nlohmann::json;
  return json{{"data_score", r.score},
              {"column_metrics",
               {{"precision", r.columns.precision},
                {"recall", r.columns.recall},
                {"f1", r.columns.f1},
                {"true_positive_columns", r.columns.tp},
                {"false_positive_columns", r.columns.fp},
                {"false_negative_columns", r.columns.fn}}},
              {"row_metrics",
               {{"precision", r.rows.precision},
                {"recall", r.rows.recall},
                {"f1", r.rows.f1},
                {"true_positive_rows", r.rows.tp},
                {"false_positive_rows", r.rows.fp},
                {"false_negative_rows", r.rows.fn},
                {"common_columns_used", r.rows.common_columns}}},
              {"overall_metrics",
               {{"precision", r.overall.precision},
                {"recall", r.overall.recall},
                {"f1", r.overall.f1},
                {"tp", r.overall.tp},
                {"fp", r.overall.fp},
                {"fn", r.overall.fn}}}};
}

}  // namespace sqlgrade::spider2::v2
