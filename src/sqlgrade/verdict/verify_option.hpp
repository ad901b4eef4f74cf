#pragma once
// The `verify` option of a verdict (RL rewards; docs/verify.md "For RL", docs/serve.md): after a
// match, a small bounded search (verify/) for a database with the same schema on which the prediction
// and gold_sql differ under the benchmark's rule. Internal to the verdict module; Grader calls it.
#include <optional>

#include "sqlgrade/verdict.hpp"

namespace sqlgrade::verdicts {


// Fills v.verify for a request that asked for it (v.execution_match decides whether to search). A
// search that its time cap or the request's cancellation (core/cancel.hpp: budget, hang-up,
// shutdown) cut before it found anything is "unverified", time_capped true — never
// "no_counterexample".
void verify_verdict(const Benchmark& b, const VerdictRequest& req, const std::string& pred_sql, Verdict& v);

// The stage a match ends at once its search is done, the policy of docs/verify.md ("For RL"):
// Refuted for a clean refutation ("refuted"), Unverified for a cut search ("unverified") under
// on_unverified "zero", Equal otherwise (no counterexample, skipped, or a class that is not a clean
// refutation: gold_suspect, edge, tie keep the match).
VerdictStage stage_after_verify(const VerdictRequest& req, const Verdict& v);


}  // namespace sqlgrade::verdicts
