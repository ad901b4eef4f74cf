#pragma once
// Who is wrong: a refutation whose witness shows the gold's own bug is `gold_suspect`, not a clean
// refutation (docs/verify.md "Gold-suspect refutations"). Two rules, each stated on the witness alone:
//  * the key rule (key_suspect, applied by the search itself): the gold groups by, EXCEPTs/INTERSECTs
//    on, or tests [NOT] IN on columns of one table whose values the witness repeats in two rows (two
//    entities merged into one), while the prediction groups or compares by a declared key of that
//    table (a PRIMARY KEY or UNIQUE column, or a foreign key that references one);
//  * the tie-cut rule (tie_cut_suspect, applied by the search itself): the gold's top-level LIMIT
//    cuts through rows tied on its sort keys on the witness (it answers with an arbitrary choice);
//  * the NULL-first rule (nulls_first_suspect, applied by the search itself): the gold's ascending
//    ORDER BY ... LIMIT keeps a row whose sort key is NULL, and with NULLs last it gives the prediction's;
//  * the peer rule (judge_peers, when several systems are verified together): the other systems'
//    predictions for the same question, run on the witness, side with the refuted prediction — at
//    least kMinPeers of them give its result rather than the gold's (or every one that ran, at least
//    2), more of them than give the gold's — and the prediction compares with no text literal that
//    the gold does not use (systems copy the question's words, the gold the data's values).
#include <string>
#include <vector>

#include "sqlgrade/verify/schema.hpp"
#include "sqlgrade/verify/verify.hpp"

namespace sqlgrade::verify {

class ScratchDb;

// The peer rule's threshold: this many other systems must side with the prediction (fewer only when
// every other system that ran does, at least 2). Chosen on the labelled set (docs/verify.md): with 2,
// fair refutations that two other systems share by the same mistake (Spider dev 465, 890) were lost.
inline constexpr size_t kMinPeers = 3;

// The witness database of `c` built again in `db` from its rows (cex_file.cpp); "" or why it could
// not be built as it was found.
std::string build_witness(const Schema& s, const Counterexample& c, ScratchDb& db);

// The key rule on a re-checked witness: why the gold looks wrong ("the gold groups by singer.Name,
// repeated in 2 rows of the witness; the prediction by the declared key singer.Singer_ID"), or "".
std::string key_suspect(const Schema& s, const Item& item, const Counterexample& c);

// The tie-cut rule on a re-checked witness: the gold's top-level ORDER BY ... LIMIT (or a LIMIT
// without ORDER BY) cuts through rows tied on its sort keys there, keeping an arbitrary few of them,
// and the prediction returns every row up to and including that tie group (`= (SELECT max(...))`
// against the gold's `ORDER BY ... LIMIT 1`: Spider dev 67, 156, 763). Why ("the gold's LIMIT 1 keeps
// 1 of the 2 rows tied on its sort keys ..."), or "". The search keeps looking for a witness without
// such a tie, so a prediction that is wrong on one too stays refuted.
std::string tie_cut_suspect(const Schema& s, const Item& item, const Counterexample& c, double query_timeout_s);
// The same on results already read: `ranked` is the gold's RankedQuery (ties.hpp) run on the witness,
// `pred` the prediction's result there.
struct RankedQuery;
std::string tie_cut_reason(const RuleSpec& rule, const RankedQuery& rq, const Table& ranked, const Table& pred);

// The NULL-first rule on a re-checked witness: the gold's top-level ascending `ORDER BY ... LIMIT`
// keeps a row whose sort key is NULL (SQLite sorts NULL first), and the same gold with NULLS LAST gives
// the prediction's result there — or keeps one of several rows tied at its cut, all of which the
// prediction returns (Spider dev 720: `ORDER BY LifeExpectancy LIMIT 1` answers "the shortest life
// expectancy" with a country that has none, against `= (SELECT min(LifeExpectancy) ...)`). A row with
// no value is the smallest of nothing: that answer is SQL's NULL ordering, not the question's. Why, or
// "". The search keeps looking for a witness without it, so a prediction wrong elsewhere stays refuted.
std::string nulls_first_suspect(const Schema& s, const Item& item, const Counterexample& c, double query_timeout_s);

// The peer rule: runs `peers` (the other systems' predictions for the question, as the benchmark
// executes them; "" = none) on the witness of `c` and fills c->peers with the tally; returns why the
// rule holds ("3 of the 4 other systems' predictions give this prediction's result ..."), or "".
// Nothing is written.
std::string judge_peers(const Item& item, const std::vector<std::string>& peers, double query_timeout_s, Counterexample* c);

}  // namespace sqlgrade::verify
