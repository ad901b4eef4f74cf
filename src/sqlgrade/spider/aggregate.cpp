// Spider: the official score table's numbers from the graded examples (evaluation.py's Evaluator
// scores and the test-suite turn/joint counts). Used by the run and by the "spider" run-record
// summarizer, so that merged shards and one whole run aggregate identically.
#include "sqlgrade/spider/aggregate.hpp"

#include <string>
#include <vector>

namespace sqlgrade::spider {

namespace {

constexpr size_t ALL = 4, JOINT = 5;

// evaluation.py's per-level sums of one example's partial scores: acc over the examples whose
// prediction has the component, rec over those whose gold has it, f1 over all.
void add_partials(LevelScores& L, const PartialScores& partial) {
  for (int c = 0; c < C_COUNT; ++c) {
    const ComponentScore& cs = partial[static_cast<size_t>(c)];
    auto& P = L.partial[static_cast<size_t>(c)];
    if (cs.pred_total > 0) {
      P.acc += cs.score;
      P.acc_count++;
    }
    if (cs.label_total > 0) {
      P.rec += cs.score;
      P.rec_count++;
    }
    P.f1 += cs.score;
  }
}

// Sums to averages (Evaluator.finalize): exec and exact over the level's count; each component's acc
// and rec over their own counts (0 without any), f1 their harmonic mean (1 when both are 0).
void finalize_level(LevelScores& L, bool do_exec, bool do_match) {
  if (L.count == 0) return;
  if (do_exec) L.exec /= static_cast<double>(L.count);
  if (!do_match) return;
  L.exact /= static_cast<double>(L.count);
  for (auto& P : L.partial) {
    P.acc = P.acc_count == 0 ? 0.0 : P.acc / static_cast<double>(P.acc_count) * 1.0;
    P.rec = P.rec_count == 0 ? 0.0 : P.rec / static_cast<double>(P.rec_count) * 1.0;
    if (P.acc == 0 && P.rec == 0) P.f1 = 1;
    else P.f1 = 2.0 * P.acc * P.rec / (P.rec + P.acc);
  }
}

}  // namespace

void aggregate(Run& run) {
  const Options& opt = run.opt;
  const bool ts = opt.compat == Compat::TestSuite;
  const bool do_match = opt.etype != Etype::Exec;
  const bool do_exec = opt.etype != Etype::Match;
  run.scores.levels = {};
  run.scores.turns = {};
  Scores& sc = run.scores;
  std::vector<int> joint_exec(ts ? run.n_interactions : 1, 1), joint_exact(ts ? run.n_interactions : 1, 1);
  size_t n_unparsed = 0;
  for (const auto& ex : run.examples) {
    if (!ex.gold_ok) {
      if (ts) joint_exec[ex.interaction] = joint_exact[ex.interaction] = 0;
      continue;
    }
    if (!ex.pred_parsed && ex.has_pred) ++n_unparsed;
    const size_t h = static_cast<size_t>(ex.hardness);
    LevelScores& turn = sc.turns[ex.turn > 3 ? 4 : ex.turn];
    for (LevelScores* L : {&sc.levels[h], &sc.levels[ALL]}) L->count++;
    turn.count++;
    if (do_exec) {
      if (ex.exec && ex.exec->match()) {
        sc.levels[h].exec += 1;
        sc.levels[ALL].exec += 1;
        turn.exec += 1;
      } else if (ts) {
        joint_exec[ex.interaction] = 0;
      }
    }
    if (do_match) {
      if (ex.exact != 1 && ts) joint_exact[ex.interaction] = 0;
      turn.exact += ex.exact;
      for (LevelScores* L : {&sc.levels[h], &sc.levels[ALL]}) {
        L->exact += ex.exact;
        add_partials(*L, ex.partial);
      }
    }
  }
  if (n_unparsed && do_match)  // only where exact match is scored (--etype exec never scores it)
    run.warnings.push_back(std::to_string(n_unparsed) +
                           " prediction(s) do not parse with the Spider grammar (e.g. `error`, placeholders, LEFT JOIN, IS NULL); "
                           "they score 0 in exact match");
  if (ts) {
    sc.levels[JOINT].count = static_cast<long>(run.n_interactions);
    for (size_t i = 0; i < run.n_interactions; ++i) {
      if (do_exec && joint_exec[i]) sc.levels[JOINT].exec += 1;
      if (do_match && joint_exact[i]) sc.levels[JOINT].exact += 1;
    }
    if (!do_exec) sc.levels[JOINT].exec = 0;
  }
  for (auto& t : sc.turns) {
    if (t.count == 0) continue;
    if (do_exec) t.exec /= static_cast<double>(t.count);
    if (do_match) t.exact /= static_cast<double>(t.count);
  }
  for (size_t li = 0; li < (ts ? 6u : 5u); ++li) finalize_level(sc.levels[li], do_exec, do_match);
}

}  // namespace sqlgrade::spider
