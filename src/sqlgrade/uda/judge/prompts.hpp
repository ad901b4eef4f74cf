#pragma once
// The four questions the LLM judge asks (UDA-Bench design: cell equivalence, multi-value match count,
// same entity for multi-entity primary keys, group-key equivalence). The template texts live in
// prompts.cpp, in one place, with {placeholders}; render_prompt() fills them for one Question.
//
// The wording is our own (the reference's prompt document was read for intent only). The persistent
// cache is keyed by the rendered text, so editing a template simply makes old cache entries unused.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sqlgrade/uda/judge/judge.hpp"

namespace sqlgrade::uda::judge {

struct Prompt {
  std::string system, user;
  int max_tokens = 8;    // small: the answer is one word or one number
  bool wants_count = false;  // MultiCount: the reply is an integer, else YES/NO
  size_t max_count = 0;      // MultiCount: min(|pred|, |gold|), the clamp of the parsed count
};

// The raw templates, for documentation and tests.
struct PromptTemplate {
  std::string_view system, user;
  int max_tokens;
};
const PromptTemplate& prompt_template(QuestionKind kind);

// Replaces every {name} in `tpl` by its value; unknown placeholders are left as they are.
std::string fill_template(std::string_view tpl, const std::vector<std::pair<std::string, std::string>>& vars);

// How one value is shown to the model: "(empty)" for an empty value; long values are cut at 1500
// bytes (on a UTF-8 boundary) with " …" appended; newlines become spaces.
std::string show_value(std::string_view v);

Prompt render_prompt(const Question& q);

}  // namespace sqlgrade::uda::judge
