#pragma once
// Pull the SQL query out of a model's free-form answer.
//
// Reasoning models first (sqlgrade, on by default, off with after_think = false): only the text after
// the LAST "</think>" is read (Qwen3 and DeepSeek-R1 open the block in the chat template, so a lone
// "</think>" counts too); a "<think>" still open in what is read — an answer cut off mid-reasoning —
// means no SQL (source UnclosedThink). Without this a policy is paid for a gold-looking query it only
// considered while thinking, and "<think>SELECT …" with no answer is graded as "SELECT …</think>".
//
// Then the order = NVIDIA NeMo Gym `spider2_lite` (spec §6.1), reproduced exactly, quirks included:
//   1. the LAST ```sql block (case-insensitive opener; "```sqlite" also opens one, leaving "ite" in
//      front of the query — a NeMo quirk kept on purpose); its stripped content is returned even when
//      empty (then there is no SQL: NeMo does not fall back further);
//   2. else the last generic ``` block whose stripped content starts with SELECT/INSERT/UPDATE/DELETE/
//      WITH/CREATE/ALTER/DROP followed by whitespace (language tags such as "```python" stay in the
//      content, so such a block never qualifies);
//   3. (sqlgrade, on by default, off with nemo_strict) the last <solution>…</solution> or
//      <answer>…</answer> pair with non-empty content, then a JSON object {"answer": "<sql>"};
//   4. else raw text: from the first SELECT/INSERT/UPDATE/DELETE/WITH followed by whitespace (NO word
//      boundary by default, so "we select the rows" triggers it) to the last ';' of the whole text
//      (when that ';' is at or after the start), stripped, trailing ';' removed, one ';' appended;
//   5. else no SQL.
// Whitespace follows Python's str.isspace()/\s (ASCII plus the Unicode spaces, e.g. U+00A0, U+3000);
// keyword case folding is ASCII only (Python would also fold U+017F 'ſ' to 's'). Whitespace and
// strip() are py/str.hpp's.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sqlgrade/extract.hpp"

namespace sqlgrade::answer {

// The options are the public struct of include/sqlgrade/extract.hpp (one definition, one set of defaults).
using ExtractOptions = sqlgrade::ExtractOptions;

enum class ExtractSource { None, SqlBlock, GenericBlock, Tag, JsonAnswer, RawText, UnclosedThink, Filler };
const char* to_string(ExtractSource s);

// "sqlgrade" | "gym-bird-0.4" | "gym-bird-0.7"; parse: nullopt for another name. preset_names(): every
// name, in that order — the one list the CLI's --extract-preset, the request parser and Python check.
const char* to_string(ExtractPreset p);
std::optional<ExtractPreset> preset_from_name(std::string_view name);
std::vector<std::string> preset_names();

struct Extracted {
  std::optional<std::string> sql;  // nullopt (or never empty) when no SQL was found
  ExtractSource source = ExtractSource::None;
};

Extracted extract_sql(std::string_view text, const ExtractOptions& opt = {});

// NeMo Gym bird_sql's extract_sql_from_response of one version (gym_bird.cpp; preset != Sqlgrade):
// source SqlBlock with the SQL, or Filler with `SELECT 1` (0.4), or None (0.7: no block).
Extracted gym_bird_extract(std::string_view text, ExtractPreset preset);

// The part of a model answer that is graded under after_think: the text after the last "</think>"
// (the whole text when there is none); nullopt when a "<think>" is still open in it.
std::optional<std::string_view> answer_after_think(std::string_view text);

// True when `sql` holds no statement at all: only ';', SQLite whitespace (space, \t, \n, \f, \r) and
// comments (`--` to the end of the line, `/* ... */`, an unterminated `/*` to the end), up to the end
// or the first NUL byte (where SQLite stops reading). SQLite runs such a text as an empty result.
bool holds_no_statement(std::string_view sql);

// The extraction every reward path uses (the reward server for every benchmark, and any later
// binding): extract_sql(), then an extracted text that holds no statement counts as no SQL. Without
// this rule `;` or a lone comment executes as an empty result and earns reward 1 whenever the gold
// returns no rows (135 of the 500 BIRD Mini-Dev golds do) — a policy would learn it. `source` still
// says where the text was found. The official CLIs keep their own quirk and do not use this.
Extracted extract_reward_sql(std::string_view text, const ExtractOptions& opt = {});

// Spider 2.0-Lite's official sql-mode extraction (spider2-lite evaluate.py, spec §4.2):
// re.search(r"```sql\n(.*?)\n```", text, re.DOTALL) → group(1).strip() (py::strip), else the whole
// text. The FIRST block, a case-sensitive opener with a newline right after it, the closing fence on a
// line of its own; no fallback to other blocks. Used by `sqlgrade spider2 --mode sql` and by verify/'s
// reading of the gold .sql files — not by extract_sql (NeMo Gym's order, above).
std::string spider2_sql_block(std::string_view text);

// {"answer": "<SQL>"} objects in model output. No official script reads this format; these are
// sqlgrade's two rules, kept apart because the results of their callers depend on them:
enum class JsonAnswerRule {
  // extract_sql step 3 (reward server, extract-sql): the last "answer" key in the text whose innermost
  // enclosing {...} parses as a JSON object; its string value stripped (py::strip); an empty or
  // non-string value there means no answer from that key (the 8 last keys are tried, 16 enclosing
  // braces each).
  LastKeyStripped,
  // bird --answer-json (the works_cycles subset target written by bird::answer_json): the whole text
  // (ASCII-trimmed) when it is an object with a string "answer", else the last ```fenced block (body
  // from the line after the opener) that is one, else the last balanced {...} in the text that is one;
  // the value as it is, even empty. An object nested in a matching object is not looked at.
  WholeFencedOrLastObject,
};
std::optional<std::string> json_answer(std::string_view text, JsonAnswerRule rule);

}  // namespace sqlgrade::answer
