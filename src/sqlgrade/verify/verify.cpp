// The search of verify.hpp: candidates (candidate.hpp) loaded under every declared constraint
// (load.hpp) into a per-thread in-memory copy of the schema inside a transaction that is rolled back,
// both queries run, the benchmark's rule applied; a difference that survives reversed scan orders is
// shrunk (shrink.hpp) and re-checked on a freshly built database (and re-validated with the triggers
// that write) before it is returned.
#include "sqlgrade/verify/verify.hpp"

#include <sqlite3.h>
#include <time.h>

#include <chrono>
#include <map>
#include <memory>

#include "sqlgrade/bird/compare.hpp"
#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/spider/test_suite.hpp"
#include "sqlgrade/spider2/compare.hpp"
#include "sqlgrade/spider2/frame.hpp"
#include "sqlgrade/verify/cache.hpp"
#include "sqlgrade/verify/candidate.hpp"
#include "sqlgrade/verify/load.hpp"
#include "sqlgrade/verify/scratch_db.hpp"
#include "sqlgrade/verify/shrink.hpp"
#include "sqlgrade/verify/suspect.hpp"
#include "sqlgrade/verify/witness.hpp"

namespace sqlgrade::verify {

using Clock = std::chrono::steady_clock;

namespace {
// CPU time of the calling thread (one search runs on one thread, SQLite included).
double thread_cpu_seconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

const char* to_string(Rule r) {
  switch (r) {
    case Rule::SpiderTestSuite: return "spider-test-suite";
    case Rule::BirdSet: return "bird-ex-set";
    case Rule::Spider2Columns: return "spider2-column-vectors";
  }
  return "?";
}

const char* to_string(Status s) {
  switch (s) {
    case Status::NoCounterexample: return "no_counterexample";
    case Status::Refuted: return "refuted";
    case Status::Skipped: return "skipped";
    case Status::Edge: return "edge";
    case Status::GoldSuspect: return "gold_suspect";
  }
  return "?";
}

bool same_result(const RuleSpec& rule, const Table& gold, const Table& pred) {
  switch (rule.rule) {
    case Rule::SpiderTestSuite: return spider::result_eq(gold, pred, rule.order_matters);
    case Rule::BirdSet: return bird::ex_match(pred, gold);
    case Rule::Spider2Columns:
      try {
        return spider2::compare_frames(spider2::frame_from_table(pred), spider2::frame_from_table(gold),
                                       rule.condition_cols, rule.ignore_order) == 1;
      } catch (const std::exception&) {
        return true;  // the official caller scores such an instance 0 everywhere: no difference to show
      }
  }
  return true;
}

namespace {

struct Probe {
  bool differs = false;
  Table gold, pred;
};

struct Search {
  const Item& item;
  const Budget& budget;
  const Schema& schema;
  ScratchDb& db;
  size_t evaluations = 0;

  Limits limits() const { return Limits{budget.query_timeout_s, 100'000, 64u << 20}; }
  // Gold and prediction on the loaded rows; `differs` only when both ran and the rule says they differ
  // under every pairing of forward and reversed unordered scans (a difference that only tie order or
  // scan order makes is not a proof).
  Probe run_loaded() {
    Probe p;
    ExecResult g = db.run(item.gold_sql, limits());
    if (!g.ok()) return p;
    ExecResult q = db.run(item.pred_sql, limits());
    if (!q.ok() || same_result(item.rule, g.table, q.table)) return p;
    db.exec("PRAGMA reverse_unordered_selects=1");
    ExecResult gr = db.run(item.gold_sql, limits()), qr = db.run(item.pred_sql, limits());
    db.exec("PRAGMA reverse_unordered_selects=0");
    if (!gr.ok() || !qr.ok()) return p;
    p.differs = !same_result(item.rule, gr.table, qr.table) && !same_result(item.rule, g.table, qr.table) &&
                !same_result(item.rule, gr.table, q.table);
    p.gold = std::move(g.table);
    p.pred = std::move(q.table);
    return p;
  }
  Probe probe(const Candidate& c, Candidate* kept) {
    ++evaluations;
    db.exec("BEGIN");
    bool ok = true;
    Candidate k = load_rows(db, schema, c, &ok);
    Probe p = ok ? run_loaded() : Probe{};
    db.exec("ROLLBACK");
    if (kept) *kept = std::move(k);
    return p;
  }
};

// Builds the shrunk rows into a new committed database and runs both queries again (forward scans).
bool recheck(const Item& item, const Schema& s, const Candidate& c, const Budget& b, Counterexample* cex) {
  ScratchDb db;
  create_schema(db, s);
  bool ok = true;
  db.exec("BEGIN");
  Candidate kept = load_rows(db, s, c, &ok);
  if (!db.exec("COMMIT").empty() || !ok || kept.row_count() != c.row_count()) return false;
  // The triggers that write were not in the search's database: the witness must load with them too.
  if (!s.writing_triggers.empty() && !revalidate(s, kept)) return false;
  Limits lim{b.query_timeout_s, 100'000, 64u << 20};
  ExecResult g = db.run(item.gold_sql, lim), p = db.run(item.pred_sql, lim);
  if (!g.ok() || !p.ok() || same_result(item.rule, g.table, p.table)) return false;
  cex->gold_result = std::move(g.table);
  cex->pred_result = std::move(p.table);
  for (size_t t = 0; t < s.tables.size(); ++t)
    for (size_t r = 0; r < kept.rows[t].size(); ++r)
      cex->rows.push_back({s.tables[t].name, s.tables[t].column_names(), kept.rows[t][r], kept.src[t][r]});
  return true;
}

// No clean refutation: the first gold-suspect witness, else the first edge, decides the status.
void settle_unclean(Outcome& out, std::optional<Counterexample> suspect, std::optional<Counterexample> edge) {
  if (suspect) {
    out.status = Status::GoldSuspect;
    out.reason = "results differ on a " + std::to_string(suspect->rows.size()) + "-row database that shows the gold's own bug: " +
                 suspect->gold_suspect;
    out.cex = std::move(suspect);
  } else if (edge) {
    out.status = Status::Edge;
    out.reason = "results differ only on a " + std::to_string(edge->rows.size()) + "-row database that is " +
                 (edge->degenerate.empty() ? "unrealistic: it breaks " + edge->breaks[0]
                                           : "degenerate: " + edge->degenerate);
    out.cex = std::move(edge);
  }
}

}  // namespace

Outcome verify(const Item& item, const Budget& budget) {
  const auto t0 = Clock::now();
  const double cpu0 = thread_cpu_seconds();
  Outcome out;
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  std::shared_ptr<const Schema> schema;
  try {
    schema = schema_of(item.db_path, budget.sample_rows);
  } catch (const std::exception& e) {
    out.status = Status::Skipped;
    out.reason = std::string("database unreadable: ") + e.what();
    return out;
  }
  const QueryFacts facts = query_facts(*schema, item.gold_sql, item.pred_sql);
  const auto used = tables_used(*schema, item.gold_sql, item.pred_sql);
  const QueryTargets targets = query_targets(*schema, used, item.gold_sql, item.pred_sql);
  const Seeds seeds = seed_rows(*schema, used, targets, item.db_path);
  GenContext gen{*schema, facts.constants, used, std::max<size_t>(budget.rows_per_table, 1), &targets, &seeds};
  // The search's own deadline and the thread's cancellation (a reward server's request: hang-up,
  // request budget, shutdown) bound every query on a candidate, inside a step too (cache.hpp).
  SearchScope bounded(budget.seconds, budget.query_timeout_s);
  WorkDb work = lease_work_db(*schema);  // the schema in memory, leased from the engine's pool (cache.hpp)
  Search search{item, budget, *schema, *work};
  std::optional<Counterexample> edge;  // the first degenerate or unrealistic witness (witness.hpp)
  std::optional<Counterexample> suspect;  // the first witness that shows the gold's own bug (suspect.hpp)
  for (size_t i = 0; i < budget.candidates; ++i) {
    // The time cap, or the caller's cancellation (core/cancel.hpp: the reward server's request budget,
    // a hang-up, shutdown): candidates tried after it would have their queries interrupted and count
    // as "no difference", so the search stops and says it was cut.
    if ((budget.seconds > 0 && elapsed() > budget.seconds) || bounded.stopped() || cancel_requested()) {
      out.time_capped = true;
      break;
    }
    Rng rng(mix_seed(budget.seed, item.db_path + '\0' + item.gold_sql + '\0' + item.pred_sql, i));
    Candidate kept;
    Probe p = search.probe(make_candidate(gen, rng, i), &kept);
    if (!p.differs) continue;
    // A degenerate difference is kept as an edge finding only once; a clean one is searched on.
    const bool degen = !degenerate(facts, item.rule, kept, p.gold, p.pred).empty();
    if (degen && edge) continue;
    const size_t before = kept.row_count();
    // Shrinking never crosses from a non-degenerate database into a degenerate one.
    Candidate small = shrink(std::move(kept), budget.shrink_tests, [&](const Candidate& c, Candidate* k) {
      Probe q = search.probe(c, k);
      return q.differs && (degen || degenerate(facts, item.rule, *k, q.gold, q.pred).empty());
    });
    Counterexample cex;
    if (!recheck(item, *schema, small, budget, &cex)) continue;  // not re-checkable: keep searching
    cex.seed = budget.seed;
    cex.candidate = i;
    cex.strategy = small.strategy;
    cex.mutations = witness_mutations(*schema, small);  // what the rows left carry, not the candidate
    cex.candidate_mutations = small.mutations;
    cex.rows_before_shrink = before;
    cex.fk_enforced = schema->fk_enforced;
    cex.fk_note = schema->fk_note;
    classify_witness(facts, *schema, item, small, &cex);
    if (cex.is_edge()) {  // keep searching for a witness that is neither degenerate nor unrealistic
      if (!edge) edge = std::move(cex);
      continue;
    }
    cex.gold_suspect = key_suspect(*schema, item, cex);
    if (!cex.gold_suspect.empty()) {  // keep searching for a witness on which the gold is not the suspect
      if (!suspect) suspect = std::move(cex);
      continue;
    }
    out.status = Status::Refuted;
    out.reason = "results differ on a " + std::to_string(cex.rows.size()) + "-row database (" + cex.strategy + ")";
    out.cex = std::move(cex);
    break;
  }
  if (out.status != Status::Refuted) settle_unclean(out, std::move(suspect), std::move(edge));
  out.candidates = search.evaluations;
  out.seconds = elapsed();
  out.cpu_seconds = thread_cpu_seconds() - cpu0;
  return out;
}

}  // namespace sqlgrade::verify
