#pragma once
// Cell judges for UDA-Bench: decide whether a predicted value means the same as the gold value.
//
// Evaluation is two-layered. The deterministic rules (normalize_for_compare and friends below) always
// run first: identical, normalised-identical or numerically equal values are decided without a judge.
// Only what the rules cannot decide is put to a Judge as a batch of Questions. The default judge
// ("rules") answers every question with "no" and makes no calls, so results are offline and
// deterministic; an LLM judge (OpenAI-compatible) implements the same interface.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sqlgrade::uda::judge {

enum class QuestionKind {
  Cell,        // single value: is pred[0] the same as gold[0]?
  MultiCount,  // multi-value: how many items of pred have a match in gold (clamped to min sizes)?
  Entity,      // multi-entity primary key: do pred[0] and gold[0] name the same entity?
  GroupKey,    // row/group keys: do the key tuples pred and gold denote the same row/group?
};

struct Question {
  QuestionKind kind = QuestionKind::Cell;
  std::string column;       // column name (or comma-separated key columns)
  std::string description;  // attribute description(s) from *_attributes.json
  std::string query_type;   // select_filter / join / aggregation
  std::vector<std::string> pred, gold;
};

struct Answer {
  bool answered = false;  // false: the judge gave no usable answer (scored as no match)
  bool yes = false;       // Cell / Entity / GroupKey
  size_t count = 0;       // MultiCount (already clamped)
  std::string raw;        // raw reply, for audit logs
};

struct JudgeStats {
  size_t questions = 0, calls = 0, cache_hits = 0, failures = 0;
};

class Judge {
 public:
  virtual ~Judge() = default;
  virtual std::string name() const = 0;   // "rules", "llm"
  virtual std::string model() const { return ""; }
  // Answers all questions (in order). Implementations deduplicate identical questions.
  virtual std::vector<Answer> ask(const std::vector<Question>& questions) = 0;
  virtual JudgeStats stats() const { return {}; }
};

// The offline judge: everything the rules did not decide is "no".
class RulesJudge : public Judge {
 public:
  std::string name() const override { return "rules"; }
  std::vector<Answer> ask(const std::vector<Question>& questions) override;
};

// ---- deterministic rules ----

// UDA cell cleaning (also applied to gold CSV cells and to gold SQL string literals): `||` becomes
// ` || `, every run of Unicode whitespace (U+00A0, U+2009, U+3000, tabs, …) collapses to one space,
// the ends are trimmed — what the reference's `\s+` / strip() do on Python strings.
std::string clean_cell(std::string_view s);

// Splits a multi-value cell on the separator (default "||"), trims items and drops empty ones. Quotation
// marks around a whole cell that holds the separator are removed first (unicode::unquote).
std::vector<std::string> split_multi(std::string_view s, std::string_view sep = "||");

// Parses a number written the ways extraction systems write them: "1,234.5", "$12", "12%", " 3 ".
std::optional<double> lenient_number(std::string_view s);

// A cell as a number the way the rules read it: unicode::fold, quotation marks around the value
// removed (unicode::unquote), then lenient_number — so "\"-0.68\"", "'74.0'" and "−0.68" (U+2212)
// are numbers.
std::optional<double> number_in(std::string_view s);

// Canonical date "YYYY-MM-DD" for Y-M-D / Y/M/D / Y.M.D (1- or 2-digit month and day), else nullopt.
std::optional<std::string> canonical_date(std::string_view s);

// The comparison form used by the rules: unicode::fold (NFKC, full case folding, accents and other
// combining marks removed, Unicode whitespace collapsed), quotation marks around the whole value
// removed, then numbers in canonical form (1 == 1.0, "1,000" == 1000 ...), dates as YYYY-MM-DD, and
// otherwise Unicode punctuation removed — except '.'/',' between digits and a sign starting a
// number ("-5" stays "-5"; a sign is never punctuation).
std::string normalize_for_compare(std::string_view s);

// Canonical key text for exact row matching: unicode::fold (so case, accents, NFC/NFD and Unicode
// spaces do not split a key), surrounding quotes removed; numbers in canonical form so that "1",
// "1.0", "0001" and "\"1\"" agree.
std::string canonical_key(std::string_view s);

// Number rendering used in canonical forms: integral values without ".0", others with up to 15
// significant digits.
std::string canonical_number(double v);

}  // namespace sqlgrade::uda::judge
