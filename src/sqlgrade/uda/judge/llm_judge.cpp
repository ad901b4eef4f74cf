// The LLM cell judge (see llm_judge.hpp).
#include "sqlgrade/uda/judge/llm_judge.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <thread>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda/judge/llm_parse.hpp"
#include "sqlgrade/uda/judge/prompts.hpp"
#include "sqlgrade/core/text.hpp"

namespace sqlgrade::uda::judge {

// How a distinct question was settled.
struct LlmJudge::Outcome {
  bool replied = false;  // the model replied (raw holds the reply)
  std::string raw;
  std::string error;     // transport error / give-up reason when !replied
  std::string source;    // call | cache | skipped
};

struct LlmJudge::Slot {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  Outcome out;
};

std::string prompt_key(const std::string& system, const std::string& user, int max_tokens) {
  return "max_tokens=" + std::to_string(max_tokens) + "\n[system]\n" + system + "\n[user]\n" + user;
}

LlmJudge::LlmJudge(LlmJudgeOptions opt) : opt_(std::move(opt)), client_(opt_.client) {
  if (trim(opt_.client.base_url).empty())
    throw InputError("", "--judge llm needs the server's base URL: --llm-base-url or SQLGRADE_LLM_BASE_URL "
                         "(e.g. http://127.0.0.1:8000/v1)");
  if (trim(opt_.client.model).empty())
    throw InputError("", "--judge llm needs a model name: --llm-model or SQLGRADE_LLM_MODEL");
  if (!opt_.cache_path.empty()) cache_ = std::make_unique<LlmCache>(opt_.cache_path);
}

LlmJudge::~LlmJudge() = default;

void LlmJudge::resolve(Slot& s, Outcome o) {
  {
    std::lock_guard<std::mutex> lk(s.m);
    s.out = std::move(o);
    s.done = true;
  }
  s.cv.notify_all();
}

bool LlmJudge::gave_up() const {
  std::lock_guard<std::mutex> lk(mu_);
  return !disabled_reason_.empty();
}

void LlmJudge::note_transport(bool ok, const std::string& error) {
  std::lock_guard<std::mutex> lk(mu_);
  if (ok) {
    consecutive_failures_ = 0;
    return;
  }
  ++consecutive_failures_;
  if (opt_.max_consecutive_failures > 0 && consecutive_failures_ >= opt_.max_consecutive_failures &&
      disabled_reason_.empty())
    disabled_reason_ = "the LLM judge stopped asking after " + std::to_string(consecutive_failures_) +
                       " failed calls in a row (last: " + error + ")";
}

std::string LlmJudge::disabled_reason() const {
  std::lock_guard<std::mutex> lk(mu_);
  return disabled_reason_;
}

std::vector<char> LlmJudge::claim(const std::vector<std::string>& keys, std::vector<std::shared_ptr<Slot>>& slot) {
  std::vector<char> mine(keys.size(), 0);
  std::lock_guard<std::mutex> lk(mu_);
  for (size_t i = 0; i < keys.size(); ++i) {
    auto& s = memo_[keys[i]];
    if (!s) {
      s = std::make_shared<Slot>();
      mine[i] = 1;
    }
    slot[i] = s;
  }
  return mine;
}

void LlmJudge::call(const Prompt& prompt, const std::string& key, Slot& slot) {
  if (gave_up()) {
    resolve(slot, {false, "", disabled_reason(), "skipped"});
    return;
  }
  // Every claimed slot must be resolved, or threads waiting for it would hang.
  try {
    ChatReply r = client_.chat(prompt.system, prompt.user, prompt.max_tokens);
    note_transport(r.ok, r.error);
    {
      std::lock_guard<std::mutex> lk(mu_);
      st_.requests += static_cast<size_t>(r.attempts);
    }
    if (r.ok && cache_) cache_->put(opt_.client.model, key, r.content);
    resolve(slot, {r.ok, r.ok ? r.content : "", r.ok ? "" : r.error, "call"});
  } catch (const std::exception& e) {
    resolve(slot, {false, "", std::string("internal error: ") + e.what(), "call"});
  }
}

void LlmJudge::call_all(const std::vector<size_t>& to_call, const std::vector<Prompt>& prompts,
                        const std::vector<std::string>& keys, const std::vector<std::shared_ptr<Slot>>& slot) {
  auto call_one = [&](size_t i) { call(prompts[i], keys[i], *slot[i]); };
  size_t threads = std::min<size_t>(to_call.size(), static_cast<size_t>(std::max(1, client_.config().concurrency)));
  if (threads <= 1) {
    for (size_t i : to_call) call_one(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (size_t k; (k = next.fetch_add(1)) < to_call.size();) call_one(to_call[k]);
    });
  for (auto& th : pool) th.join();
}

LlmJudge::Outcome LlmJudge::wait(Slot& slot) {
  std::unique_lock<std::mutex> lk(slot.m);
  slot.cv.wait(lk, [&] { return slot.done; });
  return slot.out;
}

void LlmJudge::add_counts(const QueryJudgeCounts& qc, size_t errors, size_t skipped, size_t unparsable) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    st_.questions += qc.questions;
    st_.calls += qc.calls;
    st_.cache_hits += qc.cache_hits;
    st_.deduplicated += qc.deduplicated;
    st_.failures += qc.failures;
    st_.errors += errors;
    st_.skipped += skipped;
    st_.unparsable += unparsable;
  }
  if (QueryTrace* t = QueryTrace::current()) {
    t->counts.questions += qc.questions;
    t->counts.calls += qc.calls;
    t->counts.cache_hits += qc.cache_hits;
    t->counts.deduplicated += qc.deduplicated;
    t->counts.failures += qc.failures;
  }
}

namespace {

// The answer a reply gives: a count (clamped by parse_count) or YES/NO; the error ("unparsable reply",
// or why there was no reply) when there is none.
std::string read_reply(const Prompt& prompt, bool replied, const std::string& raw, const std::string& why, Answer& a) {
  if (!replied) {
    a.answered = false;
    a.raw = "no answer: " + why;
    return why;
  }
  a.raw = raw;
  if (prompt.wants_count) {
    if (auto c = parse_count(raw, prompt.max_count)) {
      a.answered = true;
      a.count = *c;
    }
  } else if (auto y = parse_yes_no(raw)) {
    a.answered = true;
    a.yes = *y;
  }
  return a.answered ? "" : "unparsable reply";
}

}  // namespace

std::vector<Answer> LlmJudge::ask(const std::vector<Question>& qs) {
  const size_t n = qs.size();
  std::vector<Prompt> prompts(n);
  std::vector<std::string> keys(n);
  for (size_t i = 0; i < n; ++i) {
    prompts[i] = render_prompt(qs[i]);
    if (opt_.max_tokens > 0) prompts[i].max_tokens = opt_.max_tokens;
    keys[i] = prompt_key(prompts[i].system, prompts[i].user, prompts[i].max_tokens);
  }
  // Claim the questions nobody has asked yet in this run; the others are waited for.
  std::vector<std::shared_ptr<Slot>> slot(n);
  const std::vector<char> mine = claim(keys, slot);
  // Persistent cache first, then calls for what is left.
  std::vector<size_t> to_call;
  for (size_t i = 0; i < n; ++i) {
    if (!mine[i]) continue;
    if (cache_)
      if (auto hit = cache_->get(opt_.client.model, keys[i])) {
        resolve(*slot[i], {true, *hit, "", "cache"});
        continue;
      }
    to_call.push_back(i);
  }
  call_all(to_call, prompts, keys, slot);
  // Collect (waiting for questions another thread is asking) and parse.
  std::vector<Answer> out(n);
  QueryJudgeCounts qc;
  qc.questions = n;
  size_t unparsable = 0, errors = 0, skipped = 0;
  for (size_t i = 0; i < n; ++i) {
    const Outcome o = wait(*slot[i]);
    std::string source = mine[i] ? o.source : "dedup";
    if (mine[i]) {
      if (o.source == "call") ++qc.calls;
      else if (o.source == "cache") ++qc.cache_hits;
      if (o.source == "call" && !o.replied) ++errors;
      if (o.source == "skipped") ++skipped;
    } else {
      ++qc.deduplicated;
    }
    Answer& a = out[i];
    const std::string error = read_reply(prompts[i], o.replied, o.raw, o.error, a);
    if (o.replied && !a.answered && mine[i]) ++unparsable;
    if (!a.answered) ++qc.failures;
    if (opt_.log) opt_.log->add(qs[i], a, source, error);
  }
  add_counts(qc, errors, skipped, unparsable);
  return out;
}

JudgeStats LlmJudge::stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  return {st_.questions, st_.calls, st_.cache_hits, st_.failures};
}

LlmJudgeStats LlmJudge::detailed_stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  return st_;
}

std::string LlmJudge::summary() const {
  LlmJudgeStats s = detailed_stats();
  std::string out = "judge llm (" + opt_.client.model + " at " + client_.endpoint() + "): " +
                    std::to_string(s.questions) + " questions, " + std::to_string(s.calls) + " calls (" +
                    std::to_string(s.requests) + " requests), " + std::to_string(s.cache_hits) + " cache hits, " +
                    std::to_string(s.deduplicated) + " deduplicated, " + std::to_string(s.failures) +
                    " without answer (" + std::to_string(s.errors) + " failed calls, " + std::to_string(s.unparsable) +
                    " unparsable, " + std::to_string(s.skipped) + " skipped)";
  std::string why = disabled_reason();
  if (!why.empty()) out += "\nwarning: " + why;
  return out;
}

}  // namespace sqlgrade::uda::judge
