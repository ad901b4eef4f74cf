// The LLM judge's prompt templates — all four in one place. See prompts.hpp.
#include "sqlgrade/uda/judge/prompts.hpp"

#include <algorithm>

#include "sqlgrade/core/text.hpp"

namespace sqlgrade::uda::judge {

namespace {

// ---- 1. Cell equivalence (single-valued str cells, and numbers the rules could not read) ----
constexpr std::string_view kCellSystem =
    "You check the output of a system that reads documents and extracts attribute values. "
    "You are shown the value it extracted for one attribute and the reference value written by a human. "
    "Decide whether both values state the same fact. Reply with exactly one word: YES or NO.";

constexpr std::string_view kCellUser =
    "Attribute: {column}\n"
    "Meaning of the attribute: {description}\n"
    "\n"
    "Reference value: {gold}\n"
    "Extracted value: {pred}\n"
    "\n"
    "How to decide:\n"
    "- Ignore differences of letter case, spacing, punctuation and formatting.\n"
    "- Synonyms, abbreviations, alternative spellings, translations and small typos of the same thing are the same.\n"
    "- A number is the same if it is equal up to notation, units written out or rounding to the shown precision.\n"
    "- If the extracted value leaves out or adds something that changes the fact, it is not the same.\n"
    "- An empty or unknown value is never the same as a concrete value.\n"
    "\n"
    "Do the two values state the same fact? Answer YES or NO.";

// ---- 2. Multi-value match count (multi_str cells; only the items the rules left unmatched) ----
constexpr std::string_view kMultiSystem =
    "You check the output of a system that extracts multi-valued attributes from documents. "
    "You are shown the items it extracted and the reference items. Count how many extracted items "
    "have a counterpart with the same meaning among the reference items. Reply with one integer and nothing else.";

constexpr std::string_view kMultiUser =
    "Attribute: {column}\n"
    "Meaning of the attribute: {description}\n"
    "\n"
    "Extracted items ({n_pred}):\n"
    "{pred_list}"
    "Reference items ({n_gold}):\n"
    "{gold_list}"
    "\n"
    "How to count:\n"
    "- Every line is one separate item; do not merge or split items.\n"
    "- An extracted item counts when some reference item names the same thing: a synonym, an abbreviation, "
    "another spelling, a paraphrase, or a number within 1% of it.\n"
    "- A reference item can be the counterpart of one extracted item only.\n"
    "- The result is a whole number from 0 to {max_count}.\n"
    "\n"
    "How many extracted items have a counterpart? Reply with the number only.";

// ---- 3. Same entity (multi-entity documents: rows of one document paired by their primary key) ----
constexpr std::string_view kEntitySystem =
    "One document can describe several entities of the same kind, and an extraction system produced one row per "
    "entity. You are shown the identifying value of a reference row and of an extracted row from the same document. "
    "Decide whether both name the same entity. Reply with exactly one word: YES or NO.";

constexpr std::string_view kEntityUser =
    "Identifying attribute: {column}\n"
    "Meaning of the attribute: {description}\n"
    "\n"
    "Reference entity: {gold}\n"
    "Extracted entity: {pred}\n"
    "\n"
    "How to decide:\n"
    "- The same entity written another way (full or short name, abbreviation, nickname, title added or left out, "
    "other case or spelling) is the same.\n"
    "- Two different entities are not the same, however similar or related they are.\n"
    "- An empty or unknown value names no entity.\n"
    "\n"
    "Do both values name the same entity? Answer YES or NO.";

// ---- 4. Group-key equivalence (aggregation results: which predicted group is which gold group) ----
constexpr std::string_view kGroupSystem =
    "You align the rows of two results of the same aggregation query: a reference result and a result computed "
    "from extracted data. A row is identified by the values of its grouping columns. Decide whether two key "
    "tuples identify the same group. Reply with exactly one word: YES or NO.";

constexpr std::string_view kGroupUser =
    "Query type: {query_type}\n"
    "Grouping columns:\n"
    "{columns_block}"
    "\n"
    "Reference key:\n"
    "{gold_key}"
    "Extracted key:\n"
    "{pred_key}"
    "\n"
    "How to decide:\n"
    "- All grouping columns must agree; one disagreeing column means a different group.\n"
    "- Within a column, ignore case, spacing, punctuation and number formatting; accept synonyms, abbreviations, "
    "and a country written as its name or its adjective (France / French).\n"
    "- An empty or unknown value only agrees with another empty or unknown value.\n"
    "\n"
    "Do the two keys identify the same group? Answer YES or NO.";

const PromptTemplate kTemplates[] = {
    {kCellSystem, kCellUser, 8},
    {kMultiSystem, kMultiUser, 12},
    {kEntitySystem, kEntityUser, 8},
    {kGroupSystem, kGroupUser, 8},
};

std::string describe(std::string_view d) {
  std::string t = collapse_ws(d);
  return t.empty() ? "(no description given)" : t;
}

std::string numbered(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += std::to_string(i + 1) + ". " + show_value(items[i]) + "\n";
  if (items.empty()) out = "(none)\n";
  return out;
}

}  // namespace

const PromptTemplate& prompt_template(QuestionKind kind) {
  switch (kind) {
    case QuestionKind::Cell: return kTemplates[0];
    case QuestionKind::MultiCount: return kTemplates[1];
    case QuestionKind::Entity: return kTemplates[2];
    case QuestionKind::GroupKey: return kTemplates[3];
  }
  return kTemplates[0];
}

std::string fill_template(std::string_view tpl, const std::vector<std::pair<std::string, std::string>>& vars) {
  std::string out;
  out.reserve(tpl.size() + 256);
  size_t i = 0;
  while (i < tpl.size()) {
    if (tpl[i] == '{') {
      size_t close = tpl.find('}', i + 1);
      if (close != std::string_view::npos) {
        std::string_view name = tpl.substr(i + 1, close - i - 1);
        auto it = std::find_if(vars.begin(), vars.end(), [&](auto& kv) { return kv.first == name; });
        if (it != vars.end()) {
          out += it->second;  // values are inserted verbatim, never re-scanned for placeholders
          i = close + 1;
          continue;
        }
      }
    }
    out += tpl[i++];
  }
  return out;
}

std::string show_value(std::string_view v) {
  std::string s = collapse_ws(v);
  if (s.empty()) return "(empty)";
  constexpr size_t kMax = 1500;
  if (s.size() > kMax) {
    size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
    s = s.substr(0, cut) + " \xE2\x80\xA6";
  }
  return s;
}

Prompt render_prompt(const Question& q) {
  const PromptTemplate& t = prompt_template(q.kind);
  Prompt p;
  p.system = std::string(t.system);
  p.max_tokens = t.max_tokens;
  std::string first_pred = q.pred.empty() ? "" : q.pred[0], first_gold = q.gold.empty() ? "" : q.gold[0];
  switch (q.kind) {
    case QuestionKind::Cell:
    case QuestionKind::Entity:
      p.user = fill_template(t.user, {{"column", collapse_ws(q.column)},
                                      {"description", describe(q.description)},
                                      {"gold", show_value(first_gold)},
                                      {"pred", show_value(first_pred)}});
      break;
    case QuestionKind::MultiCount:
      p.wants_count = true;
      p.max_count = std::min(q.pred.size(), q.gold.size());
      p.user = fill_template(t.user, {{"column", collapse_ws(q.column)},
                                      {"description", describe(q.description)},
                                      {"n_pred", std::to_string(q.pred.size())},
                                      {"pred_list", numbered(q.pred)},
                                      {"n_gold", std::to_string(q.gold.size())},
                                      {"gold_list", numbered(q.gold)},
                                      {"max_count", std::to_string(p.max_count)}});
      break;
    case QuestionKind::GroupKey: {
      // q.column holds the key column names joined by ", "; pred/gold hold one value per column.
      std::vector<std::string> cols;
      for (auto& c : split(q.column, ",")) cols.push_back(collapse_ws(c));
      size_t n = std::max(q.pred.size(), q.gold.size());
      while (cols.size() < n) cols.push_back("column " + std::to_string(cols.size() + 1));
      std::string block, gk, pk;
      for (size_t i = 0; i < n; ++i) {
        block += "- " + cols[i];
        if (i == 0 && !collapse_ws(q.description).empty()) block += ": " + collapse_ws(q.description);
        block += "\n";
        gk += "- " + cols[i] + " = " + show_value(i < q.gold.size() ? q.gold[i] : "") + "\n";
        pk += "- " + cols[i] + " = " + show_value(i < q.pred.size() ? q.pred[i] : "") + "\n";
      }
      std::string qt = collapse_ws(q.query_type);
      p.user = fill_template(t.user, {{"query_type", qt.empty() ? "aggregation" : qt},
                                      {"columns_block", block},
                                      {"gold_key", gk},
                                      {"pred_key", pk}});
      break;
    }
  }
  return p;
}

}  // namespace sqlgrade::uda::judge
