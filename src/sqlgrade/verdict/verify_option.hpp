#pragma once
// The `verify` option of a verdict (RL rewards; docs/verify.md "For RL", docs/serve.md): after a
// match, a small bounded search (verify/) for a database with the same schema on which the prediction
// and gold_sql differ under the benchmark's rule. Internal to the verdict module; Verifier calls it.
#include <optional>

#include <nlohmann/json.hpp>

#include "sqlgrade/verdict/request.hpp"
#include "sqlgrade/verdict.hpp"

namespace sqlgrade::verdicts {

// The request's `verify`: absent, null or false → none; true → the defaults (0.2 s, 50 candidates,
// seed 0, on_unverified "match"); an object {budget, candidates, seed, on_unverified} (each optional;
// the numbers bounded by the table rows verify_budget, verify_candidates, seed; on_unverified "match"
// or "zero"). Anything else: BadRequest/InputError naming the field.
std::optional<VerdictRequest::VerifyOption> parse_verify_option(const nlohmann::json& body);

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

// reply["verify"] when the verdict carries one.
void verify_to_json(const Verdict& v, nlohmann::json& reply);

}  // namespace sqlgrade::verdicts
