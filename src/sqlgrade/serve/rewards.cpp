// `sqlgrade rewards` (serve/rewards.hpp): /verify bodies from a JSONL file, graded on all cores through
// the very RewardServer::verify_json that answers POST /verify, replies in input order.
#include "sqlgrade/serve/rewards.hpp"

#include <mutex>

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/serve/wire.hpp"

namespace sqlgrade::serve {

using json = nlohmann::json;

namespace {

struct Line {
  size_t number = 0;  // 1-based, as an editor shows it
  std::string_view text;
};

// The non-blank lines of `text` (a trailing CR of a CRLF file dropped).
std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> out;
  size_t start = 0, number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    if (line.find_first_not_of(" \t") != std::string_view::npos) out.push_back({number, line});
    start = end + 1;
  }
  return out;
}

}  // namespace

std::vector<std::string> grade_request_file(const RewardsOptions& o) {
  const std::string name = o.requests_path == "-" ? "<stdin>" : o.requests_path;
  const std::string text = o.requests_path == "-" ? read_stdin() : read_file(o.requests_path);
  const std::vector<Line> lines = lines_of(text);
  ServerOptions so = o.server;
  so.max_concurrency = 1;  // its queue stays idle: the lines are graded on this call's own threads
  RewardServer server(so);
  std::vector<std::string> replies(lines.size());
  std::mutex mu;
  size_t first_bad = lines.size();
  std::string first_error;
  parallel_for(lines.size(), resolve_jobs(o.jobs), [&](size_t i) {
    try {
      const json body = parse_body(lines[i].text);
      replies[i] = dump(server.verify_json(body));
    } catch (const std::exception& e) {  // InputError (a 400), or json::parse_error (invalid JSON)
      std::lock_guard<std::mutex> lk(mu);
      if (i < first_bad) {
        first_bad = i;
        first_error = dynamic_cast<const InputError*>(&e) ? e.what() : std::string("invalid JSON: ") + e.what();
      }
    }
  });
  if (first_bad < lines.size()) throw InputError(name + ":" + std::to_string(lines[first_bad].number), first_error);
  return replies;
}

}  // namespace sqlgrade::serve
