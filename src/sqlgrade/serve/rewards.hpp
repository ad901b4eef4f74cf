#pragma once
// `sqlgrade rewards`: a file of /verify request bodies (JSON Lines) graded exactly as the reward
// server's POST /verify grades each (RewardServer::verify_json: the server's db_id resolution in its
// folders, --benchmark default, the request model and verdicts::verdict_json), without HTTP. Internal
// to the serve module; the CLI (src/cli/rewards_cmd.cpp) only maps flags and prints.
#include <string>
#include <vector>

#include "sqlgrade/serve/server.hpp"

namespace sqlgrade::serve {

struct RewardsOptions {
  ServerOptions server;       // the database folders and verdict configuration, as `sqlgrade serve` takes them
  std::string requests_path;  // JSON Lines: one /verify body per line (blank lines skipped); "-" = stdin
  int jobs = 0;               // lines graded at once; 0 = all cores
};

// The /verify reply of every non-blank line, in order, each one line of JSON text. The file is read
// bounded by --max-input-mb (core/fs.hpp). A line that is no JSON object, or a request the server would
// answer 400 (unknown db_id, bad field, no gold, ...), throws InputError "<file>:<line>: <message>"
// (the first such line); a bad prediction is a reply with reward 0, as over HTTP.
std::vector<std::string> grade_request_file(const RewardsOptions& options);

}  // namespace sqlgrade::serve
