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
// seed 0); an object {budget, candidates, seed} (each optional, bounded by the table rows
// verify_budget, verify_candidates, seed). Anything else: BadRequest/InputError naming the field.
std::optional<VerdictRequest::VerifyOption> parse_verify_option(const nlohmann::json& body);

// Fills v.verify for a request that asked for it (v.execution_match decides whether to search).
void verify_verdict(Bench b, const VerdictRequest& req, const std::string& pred_sql, Verdict& v);

// reply["verify"] when the verdict carries one.
void verify_to_json(const Verdict& v, nlohmann::json& reply);

}  // namespace sqlgrade::verdicts
