#pragma once
// A small OpenAI-compatible chat-completions client (libcurl): POST <base_url>/chat/completions with
// {"model", "messages": [system, user], "temperature": 0, "max_tokens", "stream": false} and read
// choices[0].message.content. Works with vLLM, llama.cpp's llama-server, Ollama (/v1) and hosted APIs.
//
// - endpoint, model and key come from the caller (flags / SQLGRADE_LLM_* environment): nothing is
//   built in; the Authorization header is sent only when a key is given;
// - every request has a total timeout and a connect timeout;
// - 429, 5xx and transport errors (refused, reset, timed out) are retried with exponential backoff
//   and jitter, honouring a Retry-After header in seconds (capped); other 4xx are not retried;
// - at most `concurrency` requests are in flight at once across all threads using the client;
// - thread-safe: curl handles are pooled and reused (keep-alive) but never shared concurrently.
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace sqlgrade::uda::judge {

struct LlmConfig {
  std::string base_url;  // e.g. http://127.0.0.1:8000/v1 (a URL ending in /chat/completions is used as is)
  std::string model;
  std::string api_key;   // empty: no Authorization header
  double timeout_s = 60;         // whole request
  double connect_timeout_s = 10;
  int max_retries = 3;           // extra attempts after the first
  double backoff_s = 0.5;        // first retry delay; doubles each time (plus up to 25% jitter)
  double max_backoff_s = 20;     // cap of one delay, also of Retry-After
  int concurrency = 4;           // requests in flight at once
};

// Fills a config from SQLGRADE_LLM_BASE_URL / SQLGRADE_LLM_MODEL / SQLGRADE_LLM_API_KEY for the
// fields that are still empty.
void apply_llm_env(LlmConfig& cfg);

struct ChatReply {
  bool ok = false;        // HTTP 200 with a message content (possibly empty)
  std::string content;    // the assistant's text
  std::string error;      // why not ok (last attempt)
  long http_status = 0;   // last HTTP status (0: no response)
  int attempts = 0;       // requests sent
};

class LlmClient {
 public:
  explicit LlmClient(LlmConfig cfg);
  ~LlmClient();
  LlmClient(const LlmClient&) = delete;
  LlmClient& operator=(const LlmClient&) = delete;

  ChatReply chat(const std::string& system, const std::string& user, int max_tokens);
  const LlmConfig& config() const { return cfg_; }
  std::string endpoint() const { return url_; }
  size_t requests_sent() const;  // all HTTP attempts, retries included

 private:
  void* take_handle();
  void give_handle(void* h);
  void acquire_slot();
  void release_slot();

  LlmConfig cfg_;
  std::string url_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int in_flight_ = 0;
  size_t requests_ = 0;
  std::vector<void*> handles_;
};

// The JSON request body (exposed for tests).
std::string chat_request_body(const std::string& model, const std::string& system, const std::string& user,
                              int max_tokens);
// Extracts choices[0].message.content from a response body; false with `error` set when the body
// is not a chat completion (an "error" object's message is reported).
bool parse_chat_response(const std::string& body, std::string& content, std::string& error);

}  // namespace sqlgrade::uda::judge
