#pragma once
// The LLM cell judge (`--judge llm`): answers the questions the deterministic rules could not decide
// by asking an OpenAI-compatible model (llm_client.hpp) with the prompts of prompts.hpp.
//
// - Identical questions (same rendered prompt) are asked once per run: across the questions of one
//   batch and across the worker threads sharing the judge (a question in flight on another thread
//   is waited for, not asked again). Failures are remembered for the run too (never re-asked).
// - Answers are remembered across runs in a persistent SQLite cache keyed by model + prompt
//   (llm_cache.hpp), so a re-run costs no calls.
// - The distinct questions of one batch that need a call are sent concurrently (bounded by the
//   client's concurrency limit, shared by all threads).
// - A reply that cannot be parsed, or no reply at all (timeouts, errors after retries), is an
//   unanswered Answer (scored as no match) with the reason recorded.
// - After `max_consecutive_failures` transport failures in a row the judge stops calling for the rest
//   of the run (every further question fails at once), so a dead or stalled server cannot make a
//   run take questions × timeout × retries.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "sqlgrade/uda/judge/judge.hpp"
#include "sqlgrade/uda/judge/llm_cache.hpp"
#include "sqlgrade/uda/judge/llm_client.hpp"
#include "sqlgrade/uda/judge/llm_trace.hpp"
#include "sqlgrade/uda/judge/prompts.hpp"

namespace sqlgrade::uda::judge {

struct LlmJudgeOptions {
  LlmConfig client;
  std::string cache_path;   // "" : no persistent cache
  int max_tokens = 0;       // 0: the prompt's own small default (8 for YES/NO, 12 for counts)
  int max_consecutive_failures = 8;  // 0: never give up
  JudgeLog* log = nullptr;  // audit log of every judged question (optional)
};

struct LlmJudgeStats {
  size_t questions = 0;     // questions received (all occurrences)
  size_t calls = 0;         // distinct questions sent to the model
  size_t requests = 0;      // HTTP requests, retries included
  size_t cache_hits = 0;    // distinct questions answered by the persistent cache
  size_t deduplicated = 0;  // occurrences answered by an earlier/in-flight identical question
  size_t errors = 0;        // distinct questions whose call failed (after retries)
  size_t skipped = 0;       // distinct questions not asked because the judge had given up
  size_t unparsable = 0;    // distinct questions with a reply that is not YES/NO or a number
  size_t failures = 0;      // occurrences without a usable answer
};

class LlmJudge : public Judge {
 public:
  // InputError when base URL or model is missing, or the cache cannot be opened.
  explicit LlmJudge(LlmJudgeOptions opt);
  ~LlmJudge() override;

  std::string name() const override { return "llm"; }
  std::string model() const override { return opt_.client.model; }
  std::vector<Answer> ask(const std::vector<Question>& questions) override;
  JudgeStats stats() const override;

  LlmJudgeStats detailed_stats() const;
  std::string endpoint() const { return client_.endpoint(); }
  std::string cache_path() const { return cache_ ? cache_->path().string() : ""; }
  // Non-empty once the judge gave up after repeated failures (the reason, with the last error).
  std::string disabled_reason() const;
  // One-line summary for the console.
  std::string summary() const;

 private:
  struct Slot;
  struct Outcome;
  void resolve(Slot& s, Outcome o);
  bool gave_up() const;
  void note_transport(bool ok, const std::string& error);
  // The steps of ask(): claim the questions nobody has asked yet in this run (1 = ours to settle),
  // ask the model for what the persistent cache does not hold (on up to `concurrency` threads), wait
  // for each question's outcome, and add a round's counts to the run's statistics and the query's trace.
  std::vector<char> claim(const std::vector<std::string>& keys, std::vector<std::shared_ptr<Slot>>& slot);
  void call(const Prompt& prompt, const std::string& key, Slot& slot);
  void call_all(const std::vector<size_t>& to_call, const std::vector<Prompt>& prompts, const std::vector<std::string>& keys,
                const std::vector<std::shared_ptr<Slot>>& slot);
  static Outcome wait(Slot& slot);
  void add_counts(const QueryJudgeCounts& qc, size_t errors, size_t skipped, size_t unparsable);

  LlmJudgeOptions opt_;
  LlmClient client_;
  std::unique_ptr<LlmCache> cache_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Slot>> memo_;  // prompt key → answer of this run
  LlmJudgeStats st_;
  int consecutive_failures_ = 0;
  std::string disabled_reason_;
};

// The cache key of a rendered prompt (everything that determines the reply besides the model).
std::string prompt_key(const std::string& system, const std::string& user, int max_tokens);

}  // namespace sqlgrade::uda::judge
