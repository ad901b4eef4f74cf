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
#include "sqlgrade/core/unicode.hpp"

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

std::string text_of(const Value& v) { return v.is_null() ? std::string() : judge::clean_cell(v.to_string()); }

// NULL, '', only whitespace, or a quoted empty string ("" / '').
bool empty_cell(const Value& v) { return v.is_null() || unicode::unquote(v.to_string()).empty(); }

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
  std::string s = unicode::unquote(v.to_string());
  if (is_id) {
    auto slash = s.find_last_of("/\\");
    if (slash != std::string::npos) s = s.substr(slash + 1);
    auto dot = s.find_last_of('.');
    if (dot != std::string::npos && looks_like_extension(s.substr(dot + 1)) && !parse_double(s)) s = s.substr(0, dot);
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

template <class Pred>
MatchResult match(const Table& gold, const Pred& pred, const std::vector<KeySpec>& keys,
                  const std::vector<ColumnSpec>& columns, const MatchOptions& opt, judge::Judge& jd,
                  const Deadline& deadline) {
  MatchResult res;
  DeadlineTicker tick(deadline, 1024);
  res.len_gold = gold.size();
  res.len_pred = pred.size();

  auto key_of = [&](const auto& t, size_t row, bool is_gold) {
    std::string k;
    for (auto& ks : keys) {
      int c = is_gold ? ks.gold_col : ks.pred_col;
      k += (c >= 0 ? key_text(cell_at(t, row, c), ks.is_id) : std::string()) + '\x1f';
    }
    return k;
  };
  // Group rows by key, in first-appearance order.
  std::vector<std::string> gkeys(gold.size());
  std::map<std::string, std::vector<size_t>> pgroups;
  std::vector<std::string> gorder;
  std::map<std::string, std::vector<size_t>> ggroups;
  for (size_t i = 0; i < gold.size(); ++i) {
    tick.tick();
    gkeys[i] = key_of(gold, i, true);
    auto& g = ggroups[gkeys[i]];
    if (g.empty()) gorder.push_back(gkeys[i]);
    g.push_back(i);
  }
  for (size_t i = 0; i < pred.size(); ++i) {
    tick.tick();
    pgroups[key_of(pred, i, false)].push_back(i);
  }
  auto show_key = [](std::string k) {
    if (!k.empty()) k.pop_back();
    return "(" + replace_all(k, "\x1f", ", ") + ")";
  };
  // Duplicate keys are reported with the first few key values, as the reference does. Rows without
  // any key value are left out: the gold's (Art's id-less rows) are reported once by the dataset's
  // load notes (gold_summary.json), not by every query that returns them; the result's either pair
  // with those or are counted among the unmatched rows below.
  std::string empty_key(keys.size(), '\x1f');
  auto dup_warning = [&](const std::map<std::string, std::vector<size_t>>& groups, const char* side) {
    size_t n = 0;
    std::string shown;
    for (auto& [k, rows] : groups)
      if (rows.size() > 1 && k != empty_key && ++n <= 5) shown += (shown.empty() ? "" : " ") + show_key(k);
    if (n)
      res.warnings.push_back(std::string(side) + " has " + std::to_string(n) + " key value(s) with several rows: " +
                             shown + (n > 5 ? " ..." : ""));
  };
  dup_warning(ggroups, "gold");
  dup_warning(pgroups, "result");

  std::vector<char> gused(gold.size(), 0), pused(pred.size(), 0);
  std::vector<std::pair<size_t, size_t>> pairs;
  auto pair_up = [&](size_t g, size_t p) {
    gused[g] = pused[p] = 1;
    pairs.emplace_back(g, p);
  };
  bool has_primary = opt.primary_gold_col >= 0 && opt.primary_pred_col >= 0;
  // entity questions collected across groups: (gold row, pred row), and how many there were
  std::vector<std::pair<size_t, size_t>> entity_cands;
  size_t entity_total = 0;

  for (auto& k : gorder) {
    auto pit = pgroups.find(k);
    if (pit == pgroups.end()) continue;
    auto& G = ggroups[k];
    auto& P = pit->second;
    if (G.size() == 1 && P.size() == 1) {
      pair_up(G[0], P[0]);
      continue;
    }
    res.multi_entity = true;
    if (!has_primary) {
      for (size_t i = 0; i < std::min(G.size(), P.size()); ++i) pair_up(G[i], P[i]);
      continue;
    }
    // exact canonical, then normalised primary-key equality, one-to-one in order. The group's free
    // result rows are indexed by key (in result order), so that each gold row takes the first free
    // row with its key — the pairs a scan of the group gives, in linear time (a result with every
    // row under one id made that scan quadratic).
    for (int pass = 0; pass < 2; ++pass) {
      auto primary_key = [&](const Value& v) {
        return pass == 0 ? key_text(v, false) : judge::normalize_for_compare(text_of(v));
      };
      std::unordered_map<std::string, std::pair<size_t, std::vector<size_t>>> free_by_key;  // key -> (next, rows)
      for (size_t p : P)
        if (!pused[p]) free_by_key[primary_key(cell_at(pred, p, opt.primary_pred_col))].second.push_back(p), tick.tick();
      for (size_t g : G) {
        if (gused[g]) continue;
        tick.tick();
        std::string gk = primary_key(gold.rows[g][opt.primary_gold_col]);
        if (gk.empty() && pass == 1) continue;
        auto it = free_by_key.find(gk);
        if (it == free_by_key.end()) continue;
        auto& [next, rows] = it->second;
        while (next < rows.size() && pused[rows[next]]) ++next;
        if (next < rows.size()) pair_up(g, rows[next++]);
      }
    }
    // Same-entity questions for the judge: the first max_judge_pairs pairs are kept, the rest only
    // counted (the rules judge asks none).
    if (jd.name() == "rules") continue;
    std::vector<size_t> free_p;
    for (size_t p : P)
      if (!pused[p] && !empty_cell(cell_at(pred, p, opt.primary_pred_col))) free_p.push_back(p);
    for (size_t g : G) {
      if (gused[g] || empty_cell(gold.rows[g][opt.primary_gold_col])) continue;
      entity_total += free_p.size();
      for (size_t k = 0; k < free_p.size() && entity_cands.size() < opt.max_judge_pairs; ++k)
        entity_cands.emplace_back(g, free_p[k]);
    }
  }
  // Judge: same entity inside id groups.
  if (!entity_cands.empty() && jd.name() != "rules") {
    if (entity_total > opt.max_judge_pairs)
      res.warnings.push_back("too many entity pairs for the judge (" + std::to_string(entity_total) +
                             "); only the first " + std::to_string(opt.max_judge_pairs) + " asked");
    std::vector<Question> qs;
    for (auto& [g, p] : entity_cands) {
      Question q;
      q.kind = QuestionKind::Entity;
      q.column = opt.primary_name;
      q.description = opt.primary_description;
      q.query_type = opt.query_type;
      q.pred = {text_of(cell_at(pred, p, opt.primary_pred_col))};
      q.gold = {text_of(gold.rows[g][opt.primary_gold_col])};
      qs.push_back(std::move(q));
    }
    res.judge_questions += qs.size();
    auto ans = jd.ask(qs);
    for (size_t i = 0; i < entity_cands.size(); ++i) {
      auto [g, p] = entity_cands[i];
      if (!gused[g] && !pused[p] && ans[i].answered && ans[i].yes) pair_up(g, p);
    }
  }
  // Leftover groups (aggregation): normalised key equality, then the judge.
  if (opt.group_keys_semantic) {
    auto norm_key = [&](const auto& t, size_t row, bool is_gold) {
      std::string k;
      for (auto& ks : keys) {
        int c = is_gold ? ks.gold_col : ks.pred_col;
        k += (c >= 0 ? judge::normalize_for_compare(text_of(cell_at(t, row, c))) : std::string()) + '\x1f';
      }
      return k;
    };
    std::unordered_map<std::string, std::vector<size_t>> free_pred;
    for (size_t p = 0; p < pred.size(); ++p)
      if (!pused[p]) free_pred[norm_key(pred, p, false)].push_back(p);
    for (size_t g = 0; g < gold.size(); ++g) {
      if (gused[g]) continue;
      auto it = free_pred.find(norm_key(gold, g, true));
      if (it == free_pred.end()) continue;
      for (size_t p : it->second)
        if (!pused[p]) {
          pair_up(g, p);
          break;
        }
    }
    if (jd.name() != "rules" && !keys.empty()) {
      std::vector<std::pair<size_t, size_t>> cands;  // the first max_judge_pairs, the rest only counted
      std::vector<size_t> free_p;
      for (size_t p = 0; p < pred.size(); ++p)
        if (!pused[p]) free_p.push_back(p);
      size_t total = 0;
      for (size_t g = 0; g < gold.size(); ++g) {
        if (gused[g]) continue;
        total += free_p.size();
        for (size_t k = 0; k < free_p.size() && cands.size() < opt.max_judge_pairs; ++k) cands.emplace_back(g, free_p[k]);
      }
      if (total > opt.max_judge_pairs)
        res.warnings.push_back("too many unmatched group pairs for the judge (" + std::to_string(total) +
                               "); only the first " + std::to_string(opt.max_judge_pairs) + " asked");
      if (!cands.empty()) {
        std::vector<Question> qs;
        std::string cols;
        for (auto& ks : keys) cols += (cols.empty() ? "" : ", ") + ks.name;
        for (auto& [g, p] : cands) {
          Question q;
          q.kind = QuestionKind::GroupKey;
          q.column = cols;
          q.query_type = opt.query_type;
          for (auto& ks : keys) {
            q.gold.push_back(ks.gold_col >= 0 ? text_of(gold.rows[g][ks.gold_col]) : "");
            q.pred.push_back(ks.pred_col >= 0 ? text_of(cell_at(pred, p, ks.pred_col)) : "");
          }
          qs.push_back(std::move(q));
        }
        res.judge_questions += qs.size();
        auto ans = jd.ask(qs);
        for (size_t i = 0; i < cands.size(); ++i) {
          auto [g, p] = cands[i];
          if (!gused[g] && !pused[p] && ans[i].answered && ans[i].yes) pair_up(g, p);
        }
      }
    }
  }
  // The plan lists matched rows in ID order: key values compared as numbers when both are numbers
  // (2 before 10), numbers before text, text by its canonical form; rows of one id in gold order.
  {
    struct Order {
      std::vector<std::string> parts;
      std::vector<std::optional<double>> nums;
    };
    std::unordered_map<size_t, Order> order;
    for (auto& pr : pairs) {
      Order& o = order[pr.first];
      o.parts = split(gkeys[pr.first], "\x1f");
      for (auto& p : o.parts) {
        auto d = parse_double(p);
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
    std::sort(pairs.begin(), pairs.end(), key_less);
  }
  res.pairs = pairs;
  size_t unmatched_g = gold.size() - pairs.size(), unmatched_p = pred.size() - pairs.size();
  if (unmatched_g) res.warnings.push_back(std::to_string(unmatched_g) + " gold row(s) have no match in the result");
  if (unmatched_p) res.warnings.push_back(std::to_string(unmatched_p) + " result row(s) have no match in the gold");

  // ---- cells ----
  res.columns.resize(columns.size());
  res.cells.assign(columns.size(), std::vector<CellScore>(pairs.size()));
  struct Pending {
    size_t col, pair;
    size_t matched = 0, np = 0, ng = 0;  // multi-value bookkeeping
  };
  std::vector<Question> qs;
  std::vector<Pending> pending;
  for (size_t c = 0; c < columns.size(); ++c) {
    const ColumnSpec& cs = columns[c];
    res.columns[c].name = cs.name;
    res.columns[c].kind = cs.kind;
    if (cs.pred_col < 0 || cs.gold_col < 0) continue;  // missing column: every cell 0
    for (size_t k = 0; k < pairs.size(); ++k) {
      tick.tick();
      const Value& gv = gold.rows[pairs[k].first][cs.gold_col];
      const Value& pv = cell_at(pred, pairs[k].second, cs.pred_col);
      CellScore& out = res.cells[c][k];
      if (cs.kind == CellKind::Multi) {
        auto gi = judge::split_multi(text_of(gv), opt.multi_sep);
        auto pi = judge::split_multi(text_of(pv), opt.multi_sep);
        if (gi.empty() && pi.empty()) {
          out = {1, 1};
          continue;
        }
        if (gi.empty() || pi.empty()) continue;
        std::vector<char> gu(gi.size(), 0), pu(pi.size(), 0);
        size_t m = 0;
        for (size_t a = 0; a < pi.size(); ++a) {
          tick.tick(gi.size());
          std::string pn = judge::normalize_for_compare(pi[a]);
          for (size_t b = 0; b < gi.size(); ++b)
            if (!gu[b] && judge::normalize_for_compare(gi[b]) == pn) {
              gu[b] = pu[a] = 1;
              ++m;
              break;
            }
        }
        out = {double(m) / pi.size(), double(m) / gi.size()};
        if (m < pi.size() && m < gi.size()) {
          Question q;
          q.kind = QuestionKind::MultiCount;
          q.column = cs.name;
          q.description = cs.description;
          q.query_type = opt.query_type;
          for (size_t a = 0; a < pi.size(); ++a)
            if (!pu[a]) q.pred.push_back(pi[a]);
          for (size_t b = 0; b < gi.size(); ++b)
            if (!gu[b]) q.gold.push_back(gi[b]);
          qs.push_back(std::move(q));
          pending.push_back({c, k, m, pi.size(), gi.size()});
        }
        continue;
      }
      if (auto s = rule_cell_score(cs.kind, pv, gv, opt.float_tolerance)) {
        out = {*s, *s};
        continue;
      }
      Question q;
      q.kind = QuestionKind::Cell;
      q.column = cs.name;
      q.description = cs.description;
      q.query_type = opt.query_type;
      q.pred = {text_of(pv)};
      q.gold = {text_of(gv)};
      qs.push_back(std::move(q));
      pending.push_back({c, k});
    }
  }
  if (!qs.empty()) {
    res.judge_questions += qs.size();
    auto ans = jd.ask(qs);
    for (size_t i = 0; i < pending.size(); ++i) {
      auto& pd = pending[i];
      CellScore& out = res.cells[pd.col][pd.pair];
      res.columns[pd.col].judged++;
      if (!ans[i].answered) continue;
      if (qs[i].kind == QuestionKind::MultiCount) {
        size_t extra = std::min({ans[i].count, qs[i].pred.size(), qs[i].gold.size()});
        size_t m = pd.matched + extra;
        out = {double(m) / pd.np, double(m) / pd.ng};
      } else if (ans[i].yes) {
        out = {1, 1};
      }
    }
  }
  // ---- metrics ----
  bool both_empty = gold.size() == 0 && pred.size() == 0;
  double sp = 0, sr = 0, sf = 0;
  for (size_t c = 0; c < columns.size(); ++c) {
    auto& cr = res.columns[c];
    for (auto& cell : res.cells[c]) {
      cr.sum_p += cell.p;
      cr.sum_r += cell.r;
    }
    if (both_empty) {
      cr.precision = cr.recall = cr.f1 = 1.0;
    } else {
      cr.precision = pred.size() ? cr.sum_p / pred.size() : 0.0;
      cr.recall = gold.size() ? cr.sum_r / gold.size() : 0.0;
      cr.f1 = f1_of(cr.precision, cr.recall);
    }
    sp += cr.precision;
    sr += cr.recall;
    sf += cr.f1;
  }
  if (both_empty) {
    res.row_precision = res.row_recall = res.row_f1 = 1.0;
  } else {
    res.row_precision = pred.size() ? double(pairs.size()) / pred.size() : 0.0;
    res.row_recall = gold.size() ? double(pairs.size()) / gold.size() : 0.0;
    res.row_f1 = f1_of(res.row_precision, res.row_recall);
  }
  if (!columns.empty()) {
    res.macro_precision = sp / columns.size();
    res.macro_recall = sr / columns.size();
    res.macro_f1 = sf / columns.size();
  } else {
    res.macro_precision = res.row_precision;
    res.macro_recall = res.row_recall;
    res.macro_f1 = res.row_f1;
  }
  return res;
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
