// OpenAI-compatible chat-completions client over libcurl (see llm_client.hpp).
#include "sqlgrade/uda/judge/llm_client.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/text.hpp"
#include "sqlgrade/version.hpp"
#include "sqlgrade/core/json.hpp"
#include "sqlgrade/py/number.hpp"

#ifdef SQLGRADE_HAVE_CURL
#include <curl/curl.h>
#endif

namespace sqlgrade::uda::judge {

void apply_llm_env(LlmConfig& cfg) {
  auto env = [](const char* n) -> std::string {
    const char* v = std::getenv(n);
    return v ? trim(v) : std::string();
  };
  if (cfg.base_url.empty()) cfg.base_url = env("SQLGRADE_LLM_BASE_URL");
  if (cfg.model.empty()) cfg.model = env("SQLGRADE_LLM_MODEL");
  if (cfg.api_key.empty()) cfg.api_key = env("SQLGRADE_LLM_API_KEY");
}

std::string chat_request_body(const std::string& model, const std::string& system, const std::string& user,
                              int max_tokens) {
  nlohmann::json j;
  j["model"] = model;
  j["messages"] = nlohmann::json::array({{{"role", "system"}, {"content", system}}, {{"role", "user"}, {"content", user}}});
  j["temperature"] = 0;
  j["max_tokens"] = max_tokens;
  j["stream"] = false;
  // Replace invalid UTF-8 (cells from damaged CSVs) instead of throwing.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool parse_chat_response(const std::string& body, std::string& content, std::string& error) {
  if (json_depth(body) > kMaxJsonDepth) {  // a hostile server's reply
    error = "response is JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return false;
  }
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error = "response is not JSON: " + body.substr(0, 200);
    return false;
  }
  if (j.contains("error")) {
    auto& e = j["error"];
    error = "server error: " + (e.is_object() && e.contains("message") && e["message"].is_string()
                                    ? e["message"].get<std::string>()
                                    : e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return false;
  }
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) {
    error = "response has no choices: " + body.substr(0, 200);
    return false;
  }
  auto& c = j["choices"][0];
  if (c.is_object() && c.contains("message") && c["message"].is_object()) {
    auto& m = c["message"];
    if (m.contains("content") && m["content"].is_string()) {
      content = m["content"].get<std::string>();
      return true;
    }
    if (!m.contains("content") || m["content"].is_null()) {  // e.g. a reasoning model cut off by max_tokens
      content.clear();
      return true;
    }
  }
  if (c.is_object() && c.contains("text") && c["text"].is_string()) {  // completions-style servers
    content = c["text"].get<std::string>();
    return true;
  }
  error = "response has no message content: " + body.substr(0, 200);
  return false;
}

LlmClient::LlmClient(LlmConfig cfg) : cfg_(std::move(cfg)) {
  std::string b = trim(cfg_.base_url);
  while (!b.empty() && b.back() == '/') b.pop_back();
  url_ = b.size() >= 17 && b.compare(b.size() - 17, 17, "/chat/completions") == 0 ? b : b + "/chat/completions";
  if (cfg_.concurrency < 1) cfg_.concurrency = 1;
  if (cfg_.max_retries < 0) cfg_.max_retries = 0;
#ifdef SQLGRADE_HAVE_CURL
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
#endif
}

LlmClient::~LlmClient() {
#ifdef SQLGRADE_HAVE_CURL
  for (void* h : handles_) curl_easy_cleanup(static_cast<CURL*>(h));
#endif
}

size_t LlmClient::requests_sent() const {
  std::lock_guard<std::mutex> lk(mu_);
  return requests_;
}

void LlmClient::acquire_slot() {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return in_flight_ < cfg_.concurrency; });
  ++in_flight_;
  ++requests_;
}

void LlmClient::release_slot() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    --in_flight_;
  }
  cv_.notify_one();
}

void* LlmClient::take_handle() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (!handles_.empty()) {
      void* h = handles_.back();
      handles_.pop_back();
      return h;
    }
  }
#ifdef SQLGRADE_HAVE_CURL
  return curl_easy_init();
#else
  return nullptr;
#endif
}

void LlmClient::give_handle(void* h) {
  if (!h) return;
  std::lock_guard<std::mutex> lk(mu_);
  handles_.push_back(h);
}

#ifdef SQLGRADE_HAVE_CURL
namespace {

struct Exchange {
  std::string body;
  double retry_after = -1;
  bool too_big = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  if (ex->body.size() + size * n > (8u << 20)) {  // 8 MiB: no chat answer is that large
    ex->too_big = true;
    return 0;
  }
  ex->body.append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  std::string_view line(data, size * n);
  if (starts_with_ci(line, "retry-after:")) {
    if (auto v = py::parse_float(trim(line.substr(12))); v && *v >= 0) ex->retry_after = *v;
  }
  return size * n;
}

bool retryable_curl(CURLcode c) {
  switch (c) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

std::string no_proxy_list() {
  // Loopback never goes through a proxy, whatever http_proxy says.
  std::string np = "localhost,127.0.0.1,::1";
  for (const char* n : {"NO_PROXY", "no_proxy"})
    if (const char* v = std::getenv(n); v && *v) return std::string(v) + "," + np;
  return np;
}

// The CA certificates for HTTPS: $SSL_CERT_FILE or $CURL_CA_BUNDLE when set, else the first bundle
// found among the distributions' usual places; empty: libcurl's own default. The portable wheel's
// libcurl is Debian's, whose compiled-in default (/etc/ssl/certs/ca-certificates.crt) does not exist on
// RHEL-family or SUSE systems (docs/python.md, "Portable wheels").
const std::string& ca_bundle() {
  static const std::string path = [] {
    for (const char* n : {"SSL_CERT_FILE", "CURL_CA_BUNDLE"})
      if (const char* v = std::getenv(n); v && *v) return std::string(v);
    for (const char* p : {"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
                          "/etc/ssl/ca-bundle.pem", "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
                          "/etc/ssl/cert.pem"})
      if (std::FILE* f = std::fopen(p, "rb")) {
        std::fclose(f);
        return std::string(p);
      }
    return std::string();
  }();
  return path;
}

// One POST of `body` to `url` on the (reset) handle: the reply's body and Retry-After land in `ex`,
// its HTTP status in `status`, curl's message in `curl_error` when the transfer failed.
CURLcode post(CURL* h, const LlmConfig& cfg, const std::string& url, const std::string& body, Exchange& ex, long& status,
              std::string& curl_error) {
  static const std::string kNoProxy = no_proxy_list();
  struct curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, "Expect:");
  std::string auth;
  if (!cfg.api_key.empty()) {
    auth = "Authorization: Bearer " + cfg.api_key;
    headers = curl_slist_append(headers, auth.c_str());
  }
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &ex);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &ex);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM-based timeouts
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max(1.0, cfg.timeout_s * 1000)));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::max(1.0, cfg.connect_timeout_s * 1000)));
  curl_easy_setopt(h, CURLOPT_NOPROXY, kNoProxy.c_str());
  curl_easy_setopt(h, CURLOPT_USERAGENT, "sqlgrade/" SQLGRADE_VERSION);
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  if (!ca_bundle().empty()) curl_easy_setopt(h, CURLOPT_CAINFO, ca_bundle().c_str());
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);

  CURLcode rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
  if (rc != CURLE_OK) curl_error = std::string(curl_easy_strerror(rc)) + (errbuf[0] ? std::string(": ") + errbuf : "");
  return rc;
}

// The outcome of one attempt in `r` (ok and content for a chat completion, else the error); whether
// asking again may help: a transport failure curl calls transient, HTTP 408, 429 or 5xx.
bool read_attempt(CURLcode rc, const std::string& curl_error, long status, const Exchange& ex, double timeout_s,
                  ChatReply& r) {
  if (rc != CURLE_OK) {
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      char b[64];
      std::snprintf(b, sizeof b, "no reply within %.3g s (timeout)", timeout_s);
      r.error = b;
    } else {
      r.error = curl_error;
    }
    if (ex.too_big) r.error = "response larger than 8 MiB";
    return retryable_curl(rc) && !ex.too_big;
  }
  if (status == 200) {
    std::string content, err;
    if (parse_chat_response(ex.body, content, err)) {
      r.ok = true;
      r.content = std::move(content);
      r.error.clear();
      return false;
    }
    r.error = err;  // a 200 that is not a chat completion will not improve by asking again
    return false;
  }
  std::string snippet = collapse_ws(ex.body.substr(0, 300));
  r.error = "HTTP " + std::to_string(status) + (snippet.empty() ? "" : ": " + snippet);
  return status == 429 || status == 408 || status >= 500;
}

// Exponential backoff with up to 25% jitter, at least Retry-After, at most max_backoff_s.
double backoff_s(const LlmConfig& cfg, int attempt, double retry_after, std::mt19937& rng) {
  double delay = cfg.backoff_s * std::pow(2.0, attempt);
  delay += std::uniform_real_distribution<double>(0, delay * 0.25)(rng);
  if (retry_after >= 0) delay = std::max(delay, retry_after);
  return std::min(delay, cfg.max_backoff_s);
}

}  // namespace
#endif

ChatReply LlmClient::chat(const std::string& system, const std::string& user, int max_tokens) {
  ChatReply r;
#ifndef SQLGRADE_HAVE_CURL
  (void)system, (void)user, (void)max_tokens;
  r.error = "sqlgrade was built without libcurl: the LLM judge is unavailable";
  return r;
#else
  if (trim(cfg_.base_url).empty()) {
    r.error = "no LLM base URL configured";
    return r;
  }
  const std::string body = chat_request_body(cfg_.model, system, user, max_tokens);
  thread_local std::mt19937 rng(std::random_device{}());
  for (int attempt = 0; attempt <= cfg_.max_retries; ++attempt) {
    // The slot is taken before the handle, so there are never more handles (= open connections)
    // than the concurrency limit: thread-per-connection servers are not flooded with idle keep-alives.
    acquire_slot();
    CURL* h = static_cast<CURL*>(take_handle());
    if (!h) {
      release_slot();
      r.error = "cannot create a curl handle";
      return r;
    }
    curl_easy_reset(h);
    Exchange ex;
    long status = 0;
    std::string curl_error;
    CURLcode rc = post(h, cfg_, url_, body, ex, status, curl_error);
    give_handle(h);
    release_slot();

    r.attempts = attempt + 1;
    r.http_status = status;
    bool retry = read_attempt(rc, curl_error, status, ex, cfg_.timeout_s, r);
    if (r.ok) return r;
    if (!retry || attempt == cfg_.max_retries) break;
    double delay = backoff_s(cfg_, attempt, ex.retry_after, rng);
    if (delay > 0) std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  }
  if (r.attempts > 1) r.error += " (after " + std::to_string(r.attempts) + " attempts)";
  return r;
#endif
}

}  // namespace sqlgrade::uda::judge
