// What real predictions need inside SQLite (issue 31, item 4): every distinct (database, statement) of
// the JSONL that bench/sqlite_needs.py collects, as the benchmarks execute it (Spider: the raw text, as
// --compat spider runs it, and the test-suite text; BIRD and Spider 2.0: the text), run once through
// the engine with the memory cap raised to --cap-mb (default 4096) and no spill, so that `peak_memory`
// is what the statement needs in memory. Prints the distribution, every statement that needs more than
// --show-mb (default 64), and those stopped.
// Usage: sqlite_needs STATEMENTS.jsonl [--threads N] [--timeout S] [--cap-mb M] [--show-mb M]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/spider/test_suite.hpp"

using namespace sqlgrade;

namespace {
struct Job {
  std::string db, sql, src;
};
struct Got {
  ExecStatus status = ExecStatus::Ok;
  std::string error;
  size_t peak = 0;
  double seconds = 0;
};
double mib(size_t b) { return static_cast<double>(b) / (1 << 20); }
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sqlite_needs STATEMENTS.jsonl [--threads N] [--timeout S] [--cap-mb M] [--show-mb M]\n");
    return 2;
  }
  unsigned threads = 1;
  double timeout = 120, show_mb = 64;
  size_t cap_mb = 4096;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--timeout")) timeout = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--cap-mb")) cap_mb = static_cast<size_t>(std::atoll(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--show-mb")) show_mb = std::atof(argv[i + 1]);
  }
  std::vector<Job> jobs;
  std::set<std::pair<std::string, std::string>> seen;
  size_t lines = 0;
  std::ifstream in(argv[1]);
  for (std::string line; std::getline(in, line);) {
    ++lines;
    auto j = nlohmann::json::parse(line);
    const std::string db = j["db"], sql = j["sql"], gold = j["gold"], src = j["src"];
    std::vector<std::string> texts{sql};
    if (j["bench"] == "spider") {
      auto q = spider::prepare_exec_queries(gold, sql, true, false);
      if (q.error.empty()) texts.push_back(spider::replace_cur_year(q.pred));
    }
    for (const auto& t : texts)
      if (seen.insert({db, t}).second) jobs.push_back({db, t, src});
  }
  std::printf("%zu statements read, %zu distinct (database, text) executed; cap %zu MiB, timeout %.0f s, %u thread(s)\n",
              lines, jobs.size(), cap_mb, timeout, threads);
  std::vector<Got> got(jobs.size());
  const auto t0 = std::chrono::steady_clock::now();
  parallel_for(jobs.size(), threads, [&](size_t i) {
    Limits lim;
    lim.timeout_s = timeout;
    lim.max_memory = cap_mb << 20;
    lim.max_spill = 0;
    try {
      ExecResult r = SqlitePool::lease(jobs[i].db)->execute(jobs[i].sql, lim);
      got[i] = {r.status, r.error, r.peak_memory, r.seconds};
    } catch (const std::exception& e) {
      got[i] = {ExecStatus::Error, e.what(), 0, 0};
    }
  });
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return got[a].peak > got[b].peak; });
  std::map<std::string, size_t> by_status;
  for (const auto& g : got) by_status[to_string(g.status)]++;
  std::printf("wall %.1f s;", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  for (auto& [k, v] : by_status) std::printf(" %s %zu", k.c_str(), v);
  std::printf("\n");
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    size_t k = static_cast<size_t>((1 - q) * static_cast<double>(order.size()));
    std::printf("  peak memory p%g: %.2f MiB\n", q * 100, mib(got[order[std::min(k, order.size() - 1)]].peak));
  }
  for (size_t mb : {16, 64, 128, 256, 512}) {
    size_t n = 0;
    for (const auto& g : got) n += g.peak > (mb << 20);
    std::printf("  statements needing more than %zu MiB: %zu\n", mb, n);
  }
  std::printf("largest (peak MiB, seconds, status, source, text):\n");
  for (size_t i : order) {
    if (mib(got[i].peak) < show_mb) break;
    std::printf("  %9.1f %7.2f %-9s %s  %.160s\n", mib(got[i].peak), got[i].seconds, to_string(got[i].status),
                jobs[i].src.c_str(), jobs[i].sql.c_str());
  }
  std::printf("stopped (timeout / too_large), with their peak:\n");
  for (size_t i = 0; i < jobs.size(); ++i)
    if (got[i].status == ExecStatus::Timeout || got[i].status == ExecStatus::TooLarge)
      std::printf("  %9.1f %7.2f %-9s %s  %.120s  [%s]\n", mib(got[i].peak), got[i].seconds, to_string(got[i].status),
                  jobs[i].src.c_str(), jobs[i].sql.c_str(), got[i].error.c_str());
  return 0;
}
