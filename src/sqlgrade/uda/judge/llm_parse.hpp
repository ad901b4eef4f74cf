#pragma once
// Reading the judge model's reply. Models answer "Yes", "**YES**", "yes.", "Answer: NO", "2", "There are 2
// matches." ... — the parsers accept all of these; anything else is "unparsable" (nullopt), which the judge
// records and scores as no match.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sqlgrade::uda::judge {

// Removes reasoning blocks (<think>…</think>, also an unterminated one) that some local models emit.
std::string strip_reasoning(std::string_view reply);

// YES/NO: the first word (letters only, case-insensitive) that is one of yes/no/true/false decides;
// failing that, a reply whose first non-ASCII text is 是 (yes) or 否/不 (no) counts; else unparsable.
std::optional<bool> parse_yes_no(std::string_view reply);

// Count: the first whole number in the reply (digits; a minus sign directly before it or a decimal
// part makes the reply unparsable), else a number word zero…twenty or "none"; clamped to max_count.
std::optional<size_t> parse_count(std::string_view reply, size_t max_count);

}  // namespace sqlgrade::uda::judge
