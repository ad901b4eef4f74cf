#pragma once
// BIRD comparison rules, all in one place (spec official-evaluators.md §3):
//   EX       set(pred rows) == set(gold rows)  (original BIRD and Mini-Dev evaluation_ex.py)
//   Soft-F1  Mini-Dev evaluation_f1.py: rows de-duplicated in first-occurrence order, paired by position
//   EM+F1    the works_cycles prompt-optimisation subset: (EM + F1) / 2 per question
//   VES      original BIRD: 100 * sqrt(mean of 3-sigma-filtered gold/pred time ratios)
//   R-VES    Mini-Dev: 100 * sqrt(reward), reward bucketed from the same filtered ratio
//
// Cells and rows are compared with Python's semantics for the values sqlite3 returns (py/equality.hpp:
// int and float compare numerically and exactly, 1 == 1.0, 2**53+1 != 2.0**53; str never equals
// bytes; None == None): set(...) is py::same_set, dict.fromkeys is py::unique_in_order.
// Nothing here prints or executes SQL; the reward server calls ex_match / soft_f1 directly.
#include <cstddef>
#include <vector>

#include "sqlgrade/core/deadline.hpp"
#include "sqlgrade/core/table.hpp"

namespace sqlgrade::bird {

// EX: set(pred.rows) == set(gold.rows). Column order matters (rows are tuples), row order and
// duplicate rows do not. Column names are not compared.
// Every rule below checks `deadline` while it works (DeadlineExceeded; the caller scores a timeout).
bool ex_match(const Table& pred, const Table& gold, const Deadline& deadline = {});

// Mini-Dev Soft-F1 in [0, 1]. Both empty -> 1.0. Rows are de-duplicated in first-occurrence order and
// gold row i is paired with pred row i; per pair, cells are matched by membership (each pred cell
// independently) and normalised by the gold row's width. Quirk reproduced: the same rows in a
// different order can score 0 (spec 3.3 table).
double soft_f1(const Table& pred, const Table& gold, const Deadline& deadline = {});
double soft_f1_rows(const std::vector<Row>& pred, const std::vector<Row>& gold, const Deadline& deadline = {});

// The works_cycles subset score: (EM + F1) / 2 with EM = ex_match and F1 = soft_f1. The subset's
// original code de-duplicates through set(), whose iteration order (and therefore the row pairing) is
// not reproducible across Python runs; we use first-occurrence order, as Mini-Dev later did.
double em_f1(const Table& pred, const Table& gold, const Deadline& deadline = {});

// ---- VES / R-VES reward math (timing itself lives in suites/bird) ----

// The official clean_abnormal() + mean: keep ratios strictly inside (mean - 3 sigma, mean + 3 sigma)
// with the population sigma, return their mean. Returns 0 when nothing is kept: when every ratio is
// identical sigma is 0, the interval is empty and the official code divides by zero, which its
// exception handler turns into a score of 0 (quirk, reproduced).
double filtered_time_ratio(const std::vector<double>& ratios);

// Original BIRD VES contribution of one question: 100 * sqrt(time_ratio) (0 when incorrect).
double ves_score(double time_ratio);

// Mini-Dev R-VES reward: 1.25 if r >= 2; 1 if r in [1,2); 0.75 if [0.5,1); 0.5 if [0.25,0.5);
// 0.25 if (0,0.25); 0 if r == 0.
double rves_reward(double time_ratio);
// R-VES contribution of one question: 100 * sqrt(reward).
double rves_score(double reward);

}  // namespace sqlgrade::bird
