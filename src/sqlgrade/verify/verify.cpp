// The search of verify.hpp: candidates (candidate.hpp) loaded under every declared constraint
// (load.hpp) into a per-thread in-memory copy of the schema inside a transaction that is rolled back,
// both queries run, the benchmark's rule applied; a difference that no tie-break decides (ties.hpp) is
// shrunk (shrink.hpp) and re-checked on a freshly built database (and re-validated with the triggers
// that write) before it is returned.
#include "sqlgrade/verify/verify.hpp"

#include <sqlite3.h>
#include <time.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <tuple>

#include "sqlgrade/bird/compare.hpp"
#include "sqlgrade/core/cancel.hpp"
#include "sqlgrade/spider/test_suite.hpp"
#include "sqlgrade/spider2/compare.hpp"
#include "sqlgrade/spider2/frame.hpp"
#include "sqlgrade/verify/cache.hpp"
#include "sqlgrade/verify/candidate.hpp"
#include "sqlgrade/verify/joined.hpp"
#include "sqlgrade/verify/load.hpp"
#include "sqlgrade/verify/scratch_db.hpp"
#include "sqlgrade/verify/shrink.hpp"
#include "sqlgrade/verify/suspect.hpp"
#include "sqlgrade/verify/ties.hpp"
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
    case Status::Tie: return "tie";
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
  TieVerdict verdict = TieVerdict::Same;
  bool tie_cut = false;  // a difference only the gold's tied cut makes (suspect.hpp tie_cut_reason)
  Table gold, pred;
  bool differs() const { return verdict == TieVerdict::Differs; }
};

struct Search {
  const Item& item;
  const Budget& budget;
  const Schema& schema;
  ScratchDb& db;
  size_t evaluations = 0;
  std::optional<TieVariants> gold_ties, pred_ties;  // read on the first difference (ties.hpp)
  std::optional<std::optional<RankedQuery>> gold_ranked, pred_ranked;

  Limits limits() const { return Limits{budget.query_timeout_s, 100'000, 64u << 20}; }
  ExecResult run(const std::string& sql) { return db.run(sql, limits()); }
  const TieVariants& ties_of(std::optional<TieVariants>& v, const std::string& sql) {
    if (!v) v = tie_variants(sql, [&](const std::string& s) { return run(s); });
    return *v;
  }
  // The tie-break variants of one query (ties.hpp); one that does not run is left out.
  void add_variants(QueryRuns& r, const TieVariants& v) {
    r.top_order = v.top_order;
    if (v.asc.empty()) return;
    if (ExecResult a = run(v.asc); a.ok()) r.asc = std::move(a.table);
    if (ExecResult d = run(v.desc); d.ok()) r.desc = std::move(d.table);
  }
  // A subquery of the gold whose cut falls inside a tie, run alone both ways (ties.hpp).
  bool inner_tie(const TieVariants& v) {
    for (const auto& [asc, desc] : v.subqueries) {
      ExecResult a = run(asc), d = run(desc);
      if (a.ok() && d.ok() && !spider::result_eq(a.table, d.table, false)) return true;
    }
    return false;
  }
  // Whether a choice among the rows tied at a query's only cut (its top-level LIMIT) gives one of
  // `others` (the other query's results): those rows read with their ranks (ties.hpp ranked_query);
  // unknown otherwise.
  std::optional<bool> could_give(const TieVariants& v, std::optional<std::optional<RankedQuery>>& ranked,
                                 const std::string& sql, const QueryRuns& others) {
    if (v.cuts != 1) return std::nullopt;
    if (!ranked) ranked = ranked_query(sql);
    if (!*ranked) return std::nullopt;
    ExecResult r = run((*ranked)->sql);
    if (!r.ok()) return std::nullopt;
    for (const Table* t : others.all()) {
      std::optional<bool> c = cut_could_give(item.rule, r.table, (*ranked)->limit, *t);
      if (!c || *c) return c;
    }
    return false;
  }
  // Gold and prediction on the loaded rows. A difference counts (Differs) only when both ran and no
  // tie-break decides it: no answer the gold could give there (reversed unordered scans, ORDER BY ...
  // LIMIT cuts broken both ways, its tied rows) is one the prediction could give, and no cut of a gold
  // subquery falls inside a tie (ties.hpp judge_ties); else it is a Tie.
  Probe run_loaded() {
    Probe p;
    ExecResult g = run(item.gold_sql);
    if (!g.ok()) return p;
    ExecResult q = run(item.pred_sql);
    if (!q.ok() || same_result(item.rule, g.table, q.table)) return p;
    db.exec("PRAGMA reverse_unordered_selects=1");
    ExecResult gr = run(item.gold_sql), qr = run(item.pred_sql);
    db.exec("PRAGMA reverse_unordered_selects=0");
    if (!gr.ok() || !qr.ok()) return p;
    QueryRuns gold{std::move(g.table), std::move(gr.table), {}, {}, false};
    QueryRuns pred{std::move(q.table), std::move(qr.table), {}, {}, false};
    add_variants(gold, ties_of(gold_ties, item.gold_sql));
    add_variants(pred, ties_of(pred_ties, item.pred_sql));
    gold.inner_tie = inner_tie(*gold_ties);
    p.verdict = judge_ties(item.rule, gold, pred,
                           [&] { return could_give(*gold_ties, gold_ranked, item.gold_sql, pred); },
                           [&] { return could_give(*pred_ties, pred_ranked, item.pred_sql, gold); });
    if (p.differs()) p.tie_cut = gold_cut_tie(pred.base);
    p.gold = std::move(gold.base);
    p.pred = std::move(pred.base);
    return p;
  }
  // The gold's top-level LIMIT cuts through tied rows and the prediction returns the whole tie group
  // (the tie-cut rule of suspect.hpp), on the loaded rows.
  bool gold_cut_tie(const Table& pred) {
    if (!gold_ranked) gold_ranked = ranked_query(item.gold_sql);
    if (!*gold_ranked) return false;
    ExecResult r = run((*gold_ranked)->sql);
    return r.ok() && !tie_cut_reason(item.rule, **gold_ranked, r.table, pred).empty();
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

// The shrunk candidate as a re-checked counterexample (its search facts filled), or nothing.
std::optional<Counterexample> witness_of(const Item& item, const Schema& s, const Budget& b, const Candidate& small,
                                         size_t i, size_t before) {
  Counterexample cex;
  if (!recheck(item, s, small, b, &cex)) return std::nullopt;
  cex.seed = b.seed;
  cex.candidate = i;
  cex.strategy = small.strategy;
  cex.mutations = witness_mutations(s, small);  // what the rows left carry, not the candidate
  cex.candidate_mutations = small.mutations;
  cex.rows_before_shrink = before;
  cex.fk_enforced = s.fk_enforced;
  cex.fk_note = s.fk_note;
  return cex;
}

// From a witness that only a tie-break decides, short random walks of grown candidates (more rows in
// a group, another join partner: candidate.hpp grow_candidate) towards one whose difference is clean;
// at most kTieEscapeTests evaluations per search in all. The clean candidate (rows kept) and its probe.
constexpr size_t kTieEscapeTests = 120, kTieWalks = 3, kTieWalk = 8;
std::optional<std::pair<Candidate, Probe>> escape_tie(Search& search, const GenContext& gen, Rng& rng,
                                                      const Candidate& from, size_t* spent) {
  for (size_t walk = 0; walk < kTieWalks; ++walk) {
    Candidate cur = from;
    for (size_t step = 0; step < kTieWalk && *spent < kTieEscapeTests; ++step) {
      ++*spent;
      Candidate kept;
      Probe q = search.probe(grow_candidate(gen, rng, cur), &kept);
      if (q.differs()) return std::pair{std::move(kept), std::move(q)};
      if (q.verdict == TieVerdict::Tie) cur = std::move(kept);  // walk on from the grown tie
    }
  }
  return std::nullopt;
}

// A witness on which the results differ only by a tie-break (ties.hpp), shrunk a little (a reviewer
// reads it; it proves nothing): kept as the `tie` finding's example when nothing better is found.
constexpr size_t kTieShrinkTests = 60;
std::optional<Counterexample> tie_witness(Search& search, const Schema& s, Candidate kept, size_t i) {
  const size_t before = kept.row_count();
  Candidate small = shrink(std::move(kept), std::min(search.budget.shrink_tests, kTieShrinkTests),
                           [&](const Candidate& c, Candidate* k) { return search.probe(c, k).verdict == TieVerdict::Tie; });
  return witness_of(search.item, s, search.budget, small, i, before);
}

// What a search found besides clean refutations: the first witness of each kind.
struct Unclean {
  std::optional<Counterexample> suspect;  // shows the gold's own bug (suspect.hpp)
  std::optional<Counterexample> edge;     // degenerate or unrealistic (witness.hpp)
  std::optional<Counterexample> tie;      // only a tie-break decides (ties.hpp)
  bool tie_seen = false;
};

// No clean refutation: the first gold-suspect witness, else the first edge, else a tie decides the status.
void settle_unclean(SearchOutcome& out, Unclean u) {
  if (u.suspect) {
    out.status = Status::GoldSuspect;
    out.reason = "results differ on a " + std::to_string(u.suspect->rows.size()) + "-row database that shows the gold's own bug: " +
                 u.suspect->gold_suspect;
    out.cex = std::move(u.suspect);
  } else if (u.edge) {
    out.status = Status::Edge;
    out.reason = "results differ only on a " + std::to_string(u.edge->rows.size()) + "-row database that is " +
                 (u.edge->degenerate.empty() ? "unrealistic: it breaks " + u.edge->breaks[0]
                                             : "degenerate: " + u.edge->degenerate);
    out.cex = std::move(u.edge);
  } else if (u.tie_seen) {
    out.status = Status::Tie;
    out.reason = "results differ only by a tie-break" +
                 (u.tie ? " on a " + std::to_string(u.tie->rows.size()) + "-row database" : std::string()) +
                 ": the gold's result there is not determined by the query, or a tie-break of the "
                 "prediction gives the gold's (no counterexample where both are determined)";
    out.cex = std::move(u.tie);
  }
}

// One candidate of the search: probed, a tie escaped, a difference shrunk, re-checked and sorted
// (clean, gold-suspect, edge, tie: the first unclean witness of each kind is kept in `found`). True
// when it is a clean refutation, which `out` then holds.
bool try_candidate(Search& search, const GenContext& gen, const QueryFacts& facts, Unclean& found,
                   size_t& escape_tests, SearchOutcome& out, const Candidate& cand, Rng& rng, size_t i) {
  Candidate kept;
  Probe p = search.probe(cand, &kept);
  if (p.verdict == TieVerdict::Tie) {  // only a tie-break differs: try to break the tie, keep searching
    if (auto clean = escape_tie(search, gen, rng, kept, &escape_tests)) {
      std::tie(kept, p) = std::move(*clean);
    } else if (!found.tie_seen) {
      found.tie_seen = true;
      found.tie = tie_witness(search, search.schema, std::move(kept), i);
    }
  }
  if (!p.differs()) return false;
  // A degenerate difference is kept as an edge finding only once; a clean one is searched on.
  const bool degen = !degenerate(facts, search.item.rule, kept, p.gold, p.pred).empty();
  if (degen && found.edge) return false;
  const size_t before = kept.row_count();
  // Shrinking never crosses from a non-degenerate database into a degenerate one.
  // Nor from a witness the gold's tied cut does not explain into one it does (suspect.hpp).
  Candidate small = shrink(std::move(kept), search.budget.shrink_tests, [&](const Candidate& c, Candidate* k) {
    Probe q = search.probe(c, k);
    return q.differs() && (degen || degenerate(facts, search.item.rule, *k, q.gold, q.pred).empty()) &&
           (p.tie_cut || !q.tie_cut);
  });
  auto witness = witness_of(search.item, search.schema, search.budget, small, i, before);
  if (!witness) return false;  // not re-checkable: keep searching
  Counterexample cex = std::move(*witness);
  classify_witness(facts, search.schema, search.item, small, &cex);
  if (cex.is_edge()) {  // keep searching for a witness that is neither degenerate nor unrealistic
    if (!found.edge) found.edge = std::move(cex);
    return false;
  }
  cex.gold_suspect = key_suspect(search.schema, search.item, cex);
  const double timeout = search.budget.query_timeout_s;
  if (cex.gold_suspect.empty()) cex.gold_suspect = tie_cut_suspect(search.schema, search.item, cex, timeout);
  if (cex.gold_suspect.empty()) cex.gold_suspect = nulls_first_suspect(search.schema, search.item, cex, timeout);
  if (!cex.gold_suspect.empty()) {  // keep searching for a witness on which the gold is not the suspect
    if (!found.suspect) found.suspect = std::move(cex);
    return false;
  }
  out.status = Status::Refuted;
  out.reason = "results differ on a " + std::to_string(cex.rows.size()) + "-row database (" + cex.strategy + ")";
  out.cex = std::move(cex);
  return true;
}

}  // namespace

SearchOutcome verify(const Item& item, const Budget& budget) {
  const auto t0 = Clock::now();
  const double cpu0 = thread_cpu_seconds();
  SearchOutcome out;
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
  Search search{item, budget, *schema, *work, 0, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  // The candidates' seed: the seed, the database's file name (not its path: the same data found at
  // another folder, on another machine or in CI, is searched the same way) and the two queries.
  const std::string db_name = std::filesystem::path(item.db_path).filename().string();
  Unclean found;  // gold-suspect, edge and tie witnesses: kept while a clean refutation is searched for
  size_t escape_tests = 0;
  // After the cycle, where a join of the queries has no matching pair in the data: `joined` candidates
  // (joined.hpp), tried only when the cycle found no clean refutation.
  const std::vector<StarvedJoin> starved = starved_joins(*schema, facts);
  const size_t total = budget.candidates + (starved.empty() || budget.candidates == 0 ? 0 : kJoinedCandidates);
  for (size_t i = 0; i < total; ++i) {
    // The time cap, or the caller's cancellation (core/cancel.hpp: the reward server's request budget,
    // a hang-up, shutdown): candidates tried after it would have their queries interrupted and count
    // as "no difference", so the search stops and says it was cut.
    if ((budget.seconds > 0 && elapsed() > budget.seconds) || bounded.stopped() || cancel_requested()) {
      out.time_capped = true;
      break;
    }
    Rng rng(mix_seed(budget.seed, db_name + '\0' + item.gold_sql + '\0' + item.pred_sql, i));
    Candidate cand = i < budget.candidates ? make_candidate(gen, rng, i)
                                           : joined_candidate(gen, rng, starved[i % starved.size()]);
    if (try_candidate(search, gen, facts, found, escape_tests, out, cand, rng, i)) break;
  }
  if (out.status != Status::Refuted) settle_unclean(out, std::move(found));
  out.candidates = search.evaluations;
  out.seconds = elapsed();
  out.cpu_seconds = thread_cpu_seconds() - cpu0;
  return out;
}

}  // namespace sqlgrade::verify
