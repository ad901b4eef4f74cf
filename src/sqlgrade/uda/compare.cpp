// UDA-Bench / OpenQuest accuracy rule. Mirrors the plan the benchmark's evaluator implements —
// evaluation/doc/eval_acc_plan.md (the seed of this module, "OpenQuest-完整评测系统设计需求和规划")
// and evaluation/doc/modular_eval_script_design.md of DB-121143/UDA-Bench at HEAD 672f184
// (2025-12-06; evaluation/run_eval.py + row_matcher/comparators/metrics): rows matched by key, cells
// scored per column, macro precision/recall/F1. Where the reference code departs from the plan or is
// broken, this follows the plan and says so (spec shared/spec/uda-bench.md §15, docs/uda.md).
#include "sqlgrade/uda/compare.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/uda/key_index.hpp"
#include "sqlgrade/uda/unicode.hpp"
#include "sqlgrade/py/number.hpp"
#include "sqlgrade/py/repr.hpp"

namespace sqlgrade::uda {

using judge::Question;
using judge::QuestionKind;

const char* to_string(CellKind k) {
  switch (k) {
    case CellKind::Int: return "int";
    case CellKind::Float: return "float";
    case CellKind::Str: return "str";
    case CellKind::Multi: return "multi_str";
    case CellKind::Aggregate: return "aggregate";
  }
  return "?";
}

double f1_of(double p, double r) { return p + r > 0 ? 2 * p * r / (p + r) : 0.0; }

namespace {

bool looks_like_extension(const std::string& ext) {
  if (ext.empty() || ext.size() > 5) return false;
  bool letter = false;
  for (char c : ext) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
    if (std::isalpha(static_cast<unsigned char>(c))) letter = true;
  }
  return letter;
}

std::string text_of(const Value& v) { return v.is_null() ? std::string() : judge::clean_cell(py::text(v)); }

// NULL, '', only whitespace, or a quoted empty string ("" / '').
bool empty_cell(const Value& v) { return v.is_null() || unicode::unquote(py::text(v)).empty(); }

std::optional<double> number_of(const Value& v) {
  if (v.kind == Kind::Int) return static_cast<double>(v.i);
  if (v.kind == Kind::Real) return v.r;
  if (v.is_null()) return std::nullopt;
  auto d = judge::number_in(v.s);
  if (d && std::isnan(*d)) return std::nullopt;
  return d;
}

}  // namespace

std::string key_text(const Value& v, bool is_id) {
  if (v.is_null()) return "";
  std::string s = unicode::unquote(py::text(v));
  if (is_id) {
    auto slash = s.find_last_of("/\\");
    if (slash != std::string::npos) s = s.substr(slash + 1);
    auto dot = s.find_last_of('.');
    if (dot != std::string::npos && looks_like_extension(s.substr(dot + 1)) && !py::parse_float(s)) s = s.substr(0, dot);
  }
  return judge::canonical_key(judge::clean_cell(s));
}

std::optional<double> rule_cell_score(CellKind kind, const Value& pred, const Value& gold, double tol) {
  bool pe = empty_cell(pred), ge = empty_cell(gold);
  if (pe && ge) return 1.0;
  if (pe != ge) return 0.0;
  if (kind == CellKind::Int || kind == CellKind::Float || kind == CellKind::Aggregate) {
    auto p = number_of(pred), g = number_of(gold);
    if (p && g) {
      if (kind == CellKind::Int) return *p == *g ? 1.0 : 0.0;
      if (kind == CellKind::Float) return std::fabs(*p - *g) <= tol * std::max(1.0, std::fabs(*g)) ? 1.0 : 0.0;
      double err = *g == 0 ? std::fabs(*p) : std::fabs(*p - *g) / std::fabs(*g);
      return 1.0 / (1.0 + err);
    }
  }
  std::string ps = text_of(pred), gs = text_of(gold);
  if (iequals(ps, gs)) return 1.0;
  if (judge::normalize_for_compare(ps) == judge::normalize_for_compare(gs)) return 1.0;
  return std::nullopt;
}

namespace {

// A cell of either kind of table: the result's (a TextTable, read from result.csv) or a Table.
const Value& cell_at(const Table& t, size_t r, size_t c) { return t.rows[r][c]; }
Value cell_at(const TextTable& t, size_t r, size_t c) { return t.value(r, c); }

using RowGroups = std::map<std::string, std::vector<size_t>>;  // key → rows, in table order (the gold's)

// One comparison of a result with its gold: rows grouped and paired by key, then cells scored per
// column, then the metrics. Each step is a member; run() calls them in the plan's order.
template <class Pred>
class Matcher {
 public:
  Matcher(const Table& gold, const Pred& pred, const std::vector<KeySpec>& keys, const std::vector<ColumnSpec>& columns,
          const MatchOptions& opt, judge::Judge& jd, const Deadline& deadline)
      : gold_(gold), pred_(pred), keys_(keys), columns_(columns), opt_(opt), jd_(jd), tick_(deadline, 1024),
        gused_(gold.size(), 0), pused_(pred.size(), 0) {}

  MatchResult run() {
    res_.len_gold = gold_.size();
    res_.len_pred = pred_.size();
    group_rows();
    for (auto& k : gorder_) pair_group(k);
    judge_entities();
    if (opt_.group_keys_semantic) {
      pair_normalised_keys();
      if (jd_.name() != "rules" && !keys_.empty()) judge_group_keys();
    }
    sort_pairs();
    res_.pairs = pairs_;
    size_t unmatched_g = gold_.size() - pairs_.size(), unmatched_p = pred_.size() - pairs_.size();
    if (unmatched_g) res_.warnings.push_back(std::to_string(unmatched_g) + " gold row(s) have no match in the result");
    if (unmatched_p) res_.warnings.push_back(std::to_string(unmatched_p) + " result row(s) have no match in the gold");
    score_cells();
    metrics();
    return std::move(res_);
  }

 private:
  // A cell's text for the judge.
  Value pcell(size_t r, int c) const { return cell_at(pred_, r, static_cast<size_t>(c)); }
  const Value& gcell(size_t r, int c) const { return gold_.rows[r][static_cast<size_t>(c)]; }

  template <class T>
  std::string key_of(const T& t, size_t row, bool is_gold, bool normalised) const {
    std::string k;
    for (auto& ks : keys_) {
      int c = is_gold ? ks.gold_col : ks.pred_col;
      if (c >= 0) {
        const auto& v = cell_at(t, row, static_cast<size_t>(c));
        k += normalised ? judge::normalize_for_compare(text_of(v)) : key_text(v, ks.is_id);
      }
      k += '\x1f';
    }
    return k;
  }

  void pair_up(size_t g, size_t p) {
    gused_[g] = pused_[p] = 1;
    pairs_.emplace_back(g, p);
  }

  // Group rows by key, in first-appearance order.
  void group_rows() {
    gkeys_.resize(gold_.size());
    for (size_t i = 0; i < gold_.size(); ++i) {
      tick_.tick();
      gkeys_[i] = key_of(gold_, i, true, false);
      auto& g = ggroups_[gkeys_[i]];
      if (g.empty()) gorder_.push_back(gkeys_[i]);
      g.push_back(i);
    }
    // The result's rows (any number: a result.csv up to --max-result-mb) in a KeyIndex, not a map.
    pkeys_.reserve(pred_.size());
    for (size_t i = 0; i < pred_.size(); ++i) {
      tick_.tick();
      pkeys_.add(i, key_of(pred_, i, false, false));
    }
    pkeys_.sort();
    dup_warning([&](auto&& f) { for (auto& [k, rows] : ggroups_) f(k, rows.size()); }, "gold");
    dup_warning([&](auto&& f) { pkeys_.for_each_group([&](std::string_view k, size_t a, size_t b) { f(k, b - a); }); },
                "result");
  }

  // Duplicate keys are reported with the first few key values, as the reference does. Rows without any
  // key value are left out: the gold's (Art's id-less rows) are reported once by the dataset's load
  // notes (gold_summary.json), not by every query that returns them; the result's either pair with
  // those or are counted among the unmatched rows.
  // `groups(f)` calls f(key, rows) for every group, in key order.
  template <class Groups>
  void dup_warning(Groups&& groups, const char* side) {
    auto show_key = [](std::string k) {
      if (!k.empty()) k.pop_back();
      return "(" + replace_all(k, "\x1f", ", ") + ")";
    };
    const std::string empty_key(keys_.size(), '\x1f');
    size_t n = 0;
    std::string shown;
    groups([&](std::string_view k, size_t rows) {
      if (rows > 1 && k != empty_key && ++n <= 5) shown += (shown.empty() ? "" : " ") + show_key(std::string(k));
    });
    if (n)
      res_.warnings.push_back(std::string(side) + " has " + std::to_string(n) + " key value(s) with several rows: " +
                              shown + (n > 5 ? " ..." : ""));
  }

  void pair_group(const std::string& k) {
    const auto [first, last] = pkeys_.find(k);
    if (first == last) return;
    const auto& G = ggroups_[k];
    if (G.size() == 1 && last - first == 1) return pair_up(G[0], pkeys_.row_at(first));
    std::vector<size_t> P;  // the group's result rows, in table order
    P.reserve(last - first);
    for (size_t i = first; i < last; ++i) P.push_back(pkeys_.row_at(i));
    res_.multi_entity = true;
    if (opt_.primary_gold_col < 0 || opt_.primary_pred_col < 0) {
      for (size_t i = 0; i < std::min(G.size(), P.size()); ++i) pair_up(G[i], P[i]);
      return;
    }
    for (int pass = 0; pass < 2; ++pass) pair_by_primary(G, P, pass);
    if (jd_.name() != "rules") collect_entities(G, P);
  }

  // Inside one key group: exact canonical (pass 0), then normalised (pass 1) primary-key equality,
  // one-to-one in order. The group's free result rows are indexed by key (in result order), so that
  // each gold row takes the first free row with its key — the pairs a scan of the group gives, in
  // linear time (a result with every row under one id made that scan quadratic).
  void pair_by_primary(const std::vector<size_t>& G, const std::vector<size_t>& P, int pass) {
    auto primary_key = [&](const Value& v) {
      return pass == 0 ? key_text(v, false) : judge::normalize_for_compare(text_of(v));
    };
    KeyIndex free_by_key;
    for (size_t p : P)
      if (!pused_[p]) free_by_key.add(p, primary_key(pcell(p, opt_.primary_pred_col))), tick_.tick();
    free_by_key.sort();
    FirstFree next(free_by_key, pused_);
    for (size_t g : G) {
      if (gused_[g]) continue;
      tick_.tick();
      std::string gk = primary_key(gcell(g, opt_.primary_gold_col));
      if (gk.empty() && pass == 1) continue;
      if (auto p = next(gk)) pair_up(g, *p);
    }
  }

  // Same-entity questions for the judge: the first max_judge_pairs pairs are kept, the rest only
  // counted (the rules judge asks none).
  void collect_entities(const std::vector<size_t>& G, const std::vector<size_t>& P) {
    std::vector<size_t> free_p;
    for (size_t p : P)
      if (!pused_[p] && !empty_cell(pcell(p, opt_.primary_pred_col))) free_p.push_back(p);
    for (size_t g : G) {
      if (gused_[g] || empty_cell(gcell(g, opt_.primary_gold_col))) continue;
      entity_total_ += free_p.size();
      for (size_t k = 0; k < free_p.size() && entity_cands_.size() < opt_.max_judge_pairs; ++k)
        entity_cands_.emplace_back(g, free_p[k]);
    }
  }

  // Asks the judge about candidate pairs and pairs those it says yes to (when both are still free).
  void ask_pairs(const std::vector<std::pair<size_t, size_t>>& cands, const std::vector<Question>& qs) {
    res_.judge_questions += qs.size();
    auto ans = jd_.ask(qs);
    for (size_t i = 0; i < cands.size(); ++i) {
      auto [g, p] = cands[i];
      if (!gused_[g] && !pused_[p] && ans[i].answered && ans[i].yes) pair_up(g, p);
    }
  }

  // Judge: same entity inside id groups.
  void judge_entities() {
    if (entity_cands_.empty() || jd_.name() == "rules") return;
    if (entity_total_ > opt_.max_judge_pairs)
      res_.warnings.push_back("too many entity pairs for the judge (" + std::to_string(entity_total_) +
                              "); only the first " + std::to_string(opt_.max_judge_pairs) + " asked");
    std::vector<Question> qs;
    for (auto& [g, p] : entity_cands_) {
      Question q;
      q.kind = QuestionKind::Entity;
      q.column = opt_.primary_name;
      q.description = opt_.primary_description;
      q.query_type = opt_.query_type;
      q.pred = {text_of(pcell(p, opt_.primary_pred_col))};
      q.gold = {text_of(gcell(g, opt_.primary_gold_col))};
      qs.push_back(std::move(q));
    }
    ask_pairs(entity_cands_, qs);
  }

  // Leftover groups (aggregation): normalised key equality. Each free gold row, in order, takes the first
  // free result row with its normalised key — the same pairs as each free result row, in order, taking
  // the first free gold row with its key; so the index holds the gold's free rows, not the result's
  // (which can be millions: issue 31).
  void pair_normalised_keys() {
    KeyIndex free_gold;
    for (size_t g = 0; g < gold_.size(); ++g)
      if (!gused_[g]) free_gold.add(g, key_of(gold_, g, true, true)), tick_.tick();
    free_gold.sort();
    if (free_gold.size() == 0) return;
    FirstFree next(free_gold, gused_);
    for (size_t p = 0; p < pred_.size(); ++p) {
      if (pused_[p]) continue;
      tick_.tick();
      if (auto g = next(key_of(pred_, p, false, true))) pair_up(*g, p);
    }
  }

  // Leftover groups, then the judge on their key values.
  void judge_group_keys() {
    std::vector<std::pair<size_t, size_t>> cands;  // the first max_judge_pairs, the rest only counted
    std::vector<size_t> free_p;
    for (size_t p = 0; p < pred_.size(); ++p)
      if (!pused_[p]) free_p.push_back(p);
    size_t total = 0;
    for (size_t g = 0; g < gold_.size(); ++g) {
      if (gused_[g]) continue;
      total += free_p.size();
      for (size_t k = 0; k < free_p.size() && cands.size() < opt_.max_judge_pairs; ++k) cands.emplace_back(g, free_p[k]);
    }
    if (total > opt_.max_judge_pairs)
      res_.warnings.push_back("too many unmatched group pairs for the judge (" + std::to_string(total) +
                              "); only the first " + std::to_string(opt_.max_judge_pairs) + " asked");
    if (cands.empty()) return;
    std::vector<Question> qs;
    std::string cols;
    for (auto& ks : keys_) cols += (cols.empty() ? "" : ", ") + ks.name;
    for (auto& [g, p] : cands) {
      Question q;
      q.kind = QuestionKind::GroupKey;
      q.column = cols;
      q.query_type = opt_.query_type;
      for (auto& ks : keys_) {
        q.gold.push_back(ks.gold_col >= 0 ? text_of(gcell(g, ks.gold_col)) : "");
        q.pred.push_back(ks.pred_col >= 0 ? text_of(pcell(p, ks.pred_col)) : "");
      }
      qs.push_back(std::move(q));
    }
    ask_pairs(cands, qs);
  }

  // The plan lists matched rows in ID order: key values compared as numbers when both are numbers
  // (2 before 10), numbers before text, text by its canonical form; rows of one id in gold order.
  void sort_pairs() {
    struct Order {
      std::vector<std::string> parts;
      std::vector<std::optional<double>> nums;
    };
    std::unordered_map<size_t, Order> order;
    for (auto& pr : pairs_) {
      Order& o = order[pr.first];
      o.parts = split(gkeys_[pr.first], "\x1f");
      for (auto& p : o.parts) {
        auto d = py::parse_float(p);
        o.nums.push_back(d && !std::isnan(*d) ? d : std::nullopt);
      }
    }
    auto key_less = [&](const std::pair<size_t, size_t>& a, const std::pair<size_t, size_t>& b) {
      const Order &x = order.at(a.first), &y = order.at(b.first);
      for (size_t k = 0; k < x.parts.size() && k < y.parts.size(); ++k) {
        if (x.nums[k] && y.nums[k]) {
          if (*x.nums[k] != *y.nums[k]) return *x.nums[k] < *y.nums[k];
        } else if (x.nums[k] || y.nums[k]) {
          return x.nums[k].has_value();
        } else if (x.parts[k] != y.parts[k]) {
          return x.parts[k] < y.parts[k];
        }
      }
      return a < b;
    };
    std::sort(pairs_.begin(), pairs_.end(), key_less);
  }

  // A cell the rules cannot decide, left to the judge (multi-value cells keep their bookkeeping).
  struct Pending {
    size_t col, pair;
    size_t matched = 0, np = 0, ng = 0;
  };

  // A multi-value cell: items matched one-to-one after normalisation; the rest to the judge to count.
  void score_multi(size_t c, size_t k, const Value& gv, const Value& pv) {
    const ColumnSpec& cs = columns_[c];
    CellScore& out = res_.cells[c][k];
    auto gi = judge::split_multi(text_of(gv), opt_.multi_sep);
    auto pi = judge::split_multi(text_of(pv), opt_.multi_sep);
    if (gi.empty() && pi.empty()) {
      out = {1, 1};
      return;
    }
    if (gi.empty() || pi.empty()) return;
    std::vector<char> gu(gi.size(), 0), pu(pi.size(), 0);
    size_t m = 0;
    for (size_t a = 0; a < pi.size(); ++a) {
      tick_.tick(gi.size());
      std::string pn = judge::normalize_for_compare(pi[a]);
      for (size_t b = 0; b < gi.size(); ++b)
        if (!gu[b] && judge::normalize_for_compare(gi[b]) == pn) {
          gu[b] = pu[a] = 1;
          ++m;
          break;
        }
    }
    out = {double(m) / pi.size(), double(m) / gi.size()};
    if (m >= pi.size() || m >= gi.size()) return;
    Question q;
    q.kind = QuestionKind::MultiCount;
    q.column = cs.name;
    q.description = cs.description;
    q.query_type = opt_.query_type;
    for (size_t a = 0; a < pi.size(); ++a)
      if (!pu[a]) q.pred.push_back(pi[a]);
    for (size_t b = 0; b < gi.size(); ++b)
      if (!gu[b]) q.gold.push_back(gi[b]);
    qs_.push_back(std::move(q));
    pending_.push_back({c, k, m, pi.size(), gi.size()});
  }

  void score_cell(size_t c, size_t k) {
    const ColumnSpec& cs = columns_[c];
    const Value& gv = gcell(pairs_[k].first, cs.gold_col);
    const Value pv = pcell(pairs_[k].second, cs.pred_col);
    if (cs.kind == CellKind::Multi) return score_multi(c, k, gv, pv);
    if (auto s = rule_cell_score(cs.kind, pv, gv, opt_.float_tolerance)) {
      res_.cells[c][k] = {*s, *s};
      return;
    }
    Question q;
    q.kind = QuestionKind::Cell;
    q.column = cs.name;
    q.description = cs.description;
    q.query_type = opt_.query_type;
    q.pred = {text_of(pv)};
    q.gold = {text_of(gv)};
    qs_.push_back(std::move(q));
    pending_.push_back({c, k});
  }

  void score_cells() {
    res_.columns.resize(columns_.size());
    res_.cells.assign(columns_.size(), std::vector<CellScore>(pairs_.size()));
    for (size_t c = 0; c < columns_.size(); ++c) {
      const ColumnSpec& cs = columns_[c];
      res_.columns[c].name = cs.name;
      res_.columns[c].kind = cs.kind;
      if (cs.pred_col < 0 || cs.gold_col < 0) continue;  // missing column: every cell 0
      for (size_t k = 0; k < pairs_.size(); ++k) {
        tick_.tick();
        score_cell(c, k);
      }
    }
    if (qs_.empty()) return;
    res_.judge_questions += qs_.size();
    auto ans = jd_.ask(qs_);
    for (size_t i = 0; i < pending_.size(); ++i) {
      auto& pd = pending_[i];
      CellScore& out = res_.cells[pd.col][pd.pair];
      res_.columns[pd.col].judged++;
      if (!ans[i].answered) continue;
      if (qs_[i].kind == QuestionKind::MultiCount) {
        size_t extra = std::min({ans[i].count, qs_[i].pred.size(), qs_[i].gold.size()});
        size_t m = pd.matched + extra;
        out = {double(m) / pd.np, double(m) / pd.ng};
      } else if (ans[i].yes) {
        out = {1, 1};
      }
    }
  }

  void metrics() {
    const size_t ng = gold_.size(), np = pred_.size(), nm = pairs_.size();
    const bool both_empty = ng == 0 && np == 0;
    double sp = 0, sr = 0, sf = 0;
    for (size_t c = 0; c < columns_.size(); ++c) {
      auto& cr = res_.columns[c];
      for (auto& cell : res_.cells[c]) {
        cr.sum_p += cell.p;
        cr.sum_r += cell.r;
      }
      if (both_empty) {
        cr.precision = cr.recall = cr.f1 = 1.0;
      } else {
        cr.precision = np ? cr.sum_p / np : 0.0;
        cr.recall = ng ? cr.sum_r / ng : 0.0;
        cr.f1 = f1_of(cr.precision, cr.recall);
      }
      sp += cr.precision;
      sr += cr.recall;
      sf += cr.f1;
    }
    if (both_empty) {
      res_.row_precision = res_.row_recall = res_.row_f1 = 1.0;
    } else {
      res_.row_precision = np ? double(nm) / np : 0.0;
      res_.row_recall = ng ? double(nm) / ng : 0.0;
      res_.row_f1 = f1_of(res_.row_precision, res_.row_recall);
    }
    const size_t nc = columns_.size();
    res_.macro_precision = nc ? sp / nc : res_.row_precision;
    res_.macro_recall = nc ? sr / nc : res_.row_recall;
    res_.macro_f1 = nc ? sf / nc : res_.row_f1;
  }

  const Table& gold_;
  const Pred& pred_;
  const std::vector<KeySpec>& keys_;
  const std::vector<ColumnSpec>& columns_;
  const MatchOptions& opt_;
  judge::Judge& jd_;
  DeadlineTicker tick_;
  MatchResult res_;
  std::vector<std::string> gkeys_, gorder_;
  RowGroups ggroups_;
  KeyIndex pkeys_;  // the result's rows by exact key
  std::vector<char> gused_, pused_;
  std::vector<std::pair<size_t, size_t>> pairs_;
  // entity questions collected across groups: (gold row, pred row), and how many there were
  std::vector<std::pair<size_t, size_t>> entity_cands_;
  size_t entity_total_ = 0;
  std::vector<Question> qs_;
  std::vector<Pending> pending_;
};

template <class Pred>
MatchResult match(const Table& gold, const Pred& pred, const std::vector<KeySpec>& keys,
                  const std::vector<ColumnSpec>& columns, const MatchOptions& opt, judge::Judge& jd,
                  const Deadline& deadline) {
  return Matcher<Pred>(gold, pred, keys, columns, opt, jd, deadline).run();
}

}  // namespace

MatchResult evaluate_match(const Table& gold, const Table& pred, const std::vector<KeySpec>& keys,
                           const std::vector<ColumnSpec>& columns, const MatchOptions& opt, judge::Judge& jd,
                           const Deadline& deadline) {
  return match(gold, pred, keys, columns, opt, jd, deadline);
}

MatchResult evaluate_match(const Table& gold, const TextTable& pred, const std::vector<KeySpec>& keys,
                           const std::vector<ColumnSpec>& columns, const MatchOptions& opt, judge::Judge& jd,
                           const Deadline& deadline) {
  return match(gold, pred, keys, columns, opt, jd, deadline);
}

}  // namespace sqlgrade::uda
