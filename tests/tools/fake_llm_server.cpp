// fake_llm_server — a scripted OpenAI-compatible chat-completions server for the LLM judge's tests.
// Listens on 127.0.0.1 only, on an ephemeral port, and prints "PORT <n>" on stdout once ready.
//
//   fake_llm_server [--script FILE] [--default-reply TEXT] [--delay-ms N] [--threads N]
//                   [--require-key KEY] [--port N] [--exit-on-eof]
//
// POST /v1/chat/completions (also /chat/completions): checks that the request is a well-formed chat
// completion of the kind the judge sends (model, a system and a user message, temperature 0, a small
// max_tokens, no streaming; 400 otherwise; 401 if --require-key does not match), then answers with
// the first script rule whose "contains" text occurs in the user message and that has uses left:
//
//   [{"contains": "Reference value: Boston", "reply": "**Yes**.", "status": 200, "delay_ms": 0,
//     "times": -1, "retry_after": 0, "raw_body": "..."}]
//
// status != 200 sends {"error": {...}} with that status (and Retry-After when retry_after >= 0);
// raw_body sends that text verbatim; times = N uses the rule N times (-1: always). Without a matching
// rule the reply is --default-reply (default "YES") after --delay-ms.
// GET /stats: {"chat_requests", "by_status", "max_in_flight", "distinct_prompts", "connections" (distinct
// client source ports of valid requests), "prompts": {user: n}}.
// Stops on SIGTERM/SIGINT, and with --exit-on-eof also when its stdin reaches end of file (the test
// that started it went away).
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

using json = nlohmann::json;

namespace {

struct Rule {
  std::string contains, reply, raw_body;
  int status = 200;
  int delay_ms = 0;
  long times = -1;
  double retry_after = -1;
};

std::mutex g_mu;
std::condition_variable g_stop_cv;
bool g_stopping = false;
std::vector<Rule> g_rules;
std::map<std::string, long> g_prompts;
std::map<int, long> g_by_status;
std::set<int> g_client_ports;  // distinct client connections (by source port)
long g_chat_requests = 0;
int g_in_flight = 0, g_max_in_flight = 0;

// Sleeps up to ms, returning early when the server stops (so a stalled request never blocks exit).
void nap(int ms) {
  if (ms <= 0) return;
  std::unique_lock<std::mutex> lk(g_mu);
  g_stop_cv.wait_for(lk, std::chrono::milliseconds(ms), [] { return g_stopping; });
}

json error_body(const std::string& msg, const std::string& type) {
  return {{"error", {{"message", msg}, {"type", type}}}};
}

json completion(const std::string& model, const std::string& text) {
  return {{"id", "chatcmpl-fake"},
          {"object", "chat.completion"},
          {"created", 0},
          {"model", model},
          {"choices", json::array({{{"index", 0},
                                    {"message", {{"role", "assistant"}, {"content", text}}},
                                    {"finish_reason", "stop"}}})},
          {"usage", {{"prompt_tokens", 1}, {"completion_tokens", 1}, {"total_tokens", 2}}}};
}

}  // namespace

int main(int argc, char** argv) {
  std::string script, default_reply = "YES", require_key;
  int delay_ms = 0, threads = 16, port = 0;
  bool exit_on_eof = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fake_llm_server: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--script") script = next();
    else if (a == "--default-reply") default_reply = next();
    else if (a == "--delay-ms") delay_ms = std::atoi(next().c_str());
    else if (a == "--threads") threads = std::atoi(next().c_str());
    else if (a == "--require-key") require_key = next();
    else if (a == "--port") port = std::atoi(next().c_str());
    else if (a == "--exit-on-eof") exit_on_eof = true;
    else {
      std::fprintf(stderr, "fake_llm_server: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (!script.empty()) {
    std::ifstream in(script);
    std::stringstream ss;
    ss << in.rdbuf();
    json j = json::parse(ss.str(), nullptr, false);
    if (!in || j.is_discarded() || !j.is_array()) {
      std::fprintf(stderr, "fake_llm_server: %s: expected a JSON array of rules\n", script.c_str());
      return 2;
    }
    for (auto& r : j) {
      Rule rule;
      rule.contains = r.value("contains", "");
      rule.reply = r.value("reply", "YES");
      rule.raw_body = r.value("raw_body", "");
      rule.status = r.value("status", 200);
      rule.delay_ms = r.value("delay_ms", 0);
      rule.times = r.value("times", -1L);
      rule.retry_after = r.value("retry_after", -1.0);
      g_rules.push_back(rule);
    }
  }

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by every thread; handled by sigwait below
  signal(SIGPIPE, SIG_IGN);

  httplib::Server svr;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  svr.set_keep_alive_max_count(1000);
  svr.set_tcp_nodelay(true);  // no Nagle/delayed-ACK stalls between header and body writes

  auto chat = [&](const httplib::Request& req, httplib::Response& res) {
    struct InFlight {
      InFlight() {
        std::lock_guard<std::mutex> lk(g_mu);
        ++g_chat_requests;
        g_max_in_flight = std::max(g_max_in_flight, ++g_in_flight);
      }
      ~InFlight() {
        std::lock_guard<std::mutex> lk(g_mu);
        --g_in_flight;
      }
    } guard;
    auto reply = [&](int status, const std::string& body) {
      res.status = status;
      res.set_content(body, "application/json");
      std::lock_guard<std::mutex> lk(g_mu);
      g_by_status[status]++;
    };
    if (!require_key.empty() && req.get_header_value("Authorization") != "Bearer " + require_key)
      return reply(401, error_body("invalid API key", "invalid_request_error").dump());
    json j = json::parse(req.body, nullptr, false);
    std::string problem, user, model;
    if (j.is_discarded() || !j.is_object()) problem = "body is not a JSON object";
    else if (!j.contains("model") || !j["model"].is_string() || j["model"].get<std::string>().empty()) problem = "model missing";
    else if (!j.contains("messages") || !j["messages"].is_array()) problem = "messages missing";
    else if (!j.contains("temperature") || !j["temperature"].is_number() || j["temperature"].get<double>() != 0)
      problem = "temperature must be 0";
    else if (!j.contains("max_tokens") || !j["max_tokens"].is_number_integer() || j["max_tokens"].get<int>() <= 0 ||
             j["max_tokens"].get<int>() > 64)
      problem = "max_tokens must be a small positive integer";
    else if (j.value("stream", false)) problem = "streaming not expected";
    else {
      model = j["model"];
      bool has_system = false;
      for (auto& m : j["messages"]) {
        if (!m.is_object() || !m.contains("role") || !m.contains("content") || !m["content"].is_string()) {
          problem = "bad message";
          break;
        }
        if (m["role"] == "system") has_system = true;
        if (m["role"] == "user") user = m["content"];
      }
      if (problem.empty() && (!has_system || user.empty())) problem = "expected a system and a user message";
    }
    if (!problem.empty()) return reply(400, error_body(problem, "invalid_request_error").dump());
    Rule chosen;
    bool found = false;
    {
      std::lock_guard<std::mutex> lk(g_mu);
      g_prompts[user]++;
      g_client_ports.insert(req.remote_port);
      for (auto& r : g_rules) {
        if (r.times == 0 || user.find(r.contains) == std::string::npos) continue;
        if (r.times > 0) --r.times;
        chosen = r;
        found = true;
        break;
      }
    }
    if (!found) {
      chosen.reply = default_reply;
      chosen.delay_ms = delay_ms;
    }
    nap(chosen.delay_ms);
    if (chosen.retry_after >= 0) res.set_header("Retry-After", std::to_string(static_cast<int>(chosen.retry_after)));
    if (!chosen.raw_body.empty()) return reply(chosen.status, chosen.raw_body);
    if (chosen.status != 200)
      return reply(chosen.status, error_body("scripted failure " + std::to_string(chosen.status), "server_error").dump());
    reply(200, completion(model, chosen.reply).dump());
  };
  svr.Post("/v1/chat/completions", chat);
  svr.Post("/chat/completions", chat);
  svr.Get("/stats", [](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lk(g_mu);
    json by = json::object();
    for (auto& [s, n] : g_by_status) by[std::to_string(s)] = n;
    json prompts = json::object();
    for (auto& [p, n] : g_prompts) prompts[p] = n;
    json j = {{"chat_requests", g_chat_requests}, {"by_status", by}, {"max_in_flight", g_max_in_flight},
              {"distinct_prompts", g_prompts.size()}, {"connections", g_client_ports.size()},
              {"prompts", prompts}};
    res.set_content(j.dump(), "application/json");
  });

  int bound = port > 0 ? (svr.bind_to_port("127.0.0.1", port) ? port : -1) : svr.bind_to_any_port("127.0.0.1");
  if (bound <= 0) {
    std::fprintf(stderr, "fake_llm_server: cannot bind 127.0.0.1\n");
    return 1;
  }
  // Stopping: wake sleeping handlers, stop the listener (waiting for it to have started, as a stop
  // requested before listen() would be lost), and if shutting down takes more than 3 s, just exit.
  auto stop = [&] {
    {
      std::lock_guard<std::mutex> lk(g_mu);
      if (g_stopping) return;
      g_stopping = true;
    }
    g_stop_cv.notify_all();
    for (int i = 0; i < 200 && !svr.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    svr.stop();
    std::this_thread::sleep_for(std::chrono::seconds(3));
    std::_Exit(0);
  };
  std::thread sig([&] {
    int s = 0;
    sigwait(&set, &s);
    stop();
  });
  sig.detach();
  if (exit_on_eof) {
    std::thread eof([&] {
      char buf[256];
      while (::read(0, buf, sizeof buf) > 0) {
      }
      stop();
    });
    eof.detach();
  }
  std::printf("PORT %d\n", bound);
  std::fflush(stdout);
  svr.listen_after_bind();
  return 0;
}
