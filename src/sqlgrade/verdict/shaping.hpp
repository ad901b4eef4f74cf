#pragma once
// The RL rules around an official verdict, written once for every road (the CLI's `rewards`, the
// reward server's /verify and /get_reward, the Python package): reward shaping (the score of each
// outcome), the top-level ORDER BY rule (`order`: top_level) and their JSON fields. Internal to the
// verdict module; the public types are in include/sqlgrade/verdict.hpp.
#include <optional>
#include <string>
#include <string_view>

#include "sqlgrade/verdict.hpp"

namespace sqlgrade::verdicts {

// True when `sql` has ORDER BY outside every parenthesis (subqueries, CTE bodies, window
// OVER (...) clauses), ignoring string literals, quoted identifiers ('…', "…", `…`, […]) and
// comments. Words are runs of Python str.isalnum() characters and '_' starting with an isalpha() one
// or '_'; any other character that is not whitespace separates "ORDER" from "BY".
bool has_top_level_order_by(std::string_view sql);

// The ignore_order a comparison against the gold query `gold_sql` uses: the request's own when set;
// else, under OrderRule::TopLevel for spider2, "no top-level ORDER BY in this gold"; else null (the
// benchmark's rule).
std::optional<bool> ignore_order_for(const VerdictRequest& request, const std::string& gold_sql);

// The shaping outcome of a finished verdict (from its stage) and its score.
VerdictOutcome outcome_of(const Verdict& v);
double score_of(const RewardShaping& shaping, VerdictOutcome outcome);


}  // namespace sqlgrade::verdicts
