// The SQLite floor for `sqlgrade spider --etype exec|all` (see bench/spider_exec.sh): every gold
// and every prediction of a Spider gold/pred pair of files executed once, on one thread, on every
// test-suite database of its db_id (each *.sqlite file in the folder), with the SQLite C API only —
// prepare, step every row, read every cell. No comparison, no rewriting, no caching. Prints
// "<best seconds> <queries executed>" over RUNS runs.
//   spider_exec_floor GOLD PRED DB_DIR [RUNS]
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;

static std::string strip(const std::string& s) {
  size_t b = 0, e = s.size();
  auto w = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (b < e && w(s[b])) ++b;
  while (e > b && w(s[e - 1])) --e;
  return s.substr(b, e - b);
}

static std::vector<std::string> lines(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> out;
  std::string l;
  while (std::getline(in, l))
    if (!strip(l).empty()) out.push_back(strip(l));
  return out;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s GOLD PRED DB_DIR [RUNS]\n", argv[0]);
    return 2;
  }
  auto gold = lines(argv[1]), pred = lines(argv[2]);
  std::string dir = argv[3];
  int runs = argc > 4 ? std::atoi(argv[4]) : 3;
  struct Job { std::string db, sql; };
  std::vector<Job> jobs;
  std::map<std::string, std::vector<std::string>> sets;
  for (size_t i = 0; i < gold.size() && i < pred.size(); ++i) {
    size_t t = gold[i].find('\t');
    if (t == std::string::npos) continue;
    std::string g = gold[i].substr(0, t), db = gold[i].substr(t + 1);
    db = db.substr(0, db.find('\t'));
    std::string p = pred[i].substr(0, pred[i].find('\t'));
    auto& s = sets[db];
    if (s.empty())
      for (auto& e : fs::directory_iterator(fs::path(dir) / db))
        if (e.path().filename().string().find(".sqlite") != std::string::npos) s.push_back(e.path().string());
    for (auto& f : s) {
      jobs.push_back({f, g});
      jobs.push_back({f, p});
    }
  }
  std::map<std::string, sqlite3*> conns;
  for (auto& j : jobs)
    if (!conns.count(j.db)) {
      sqlite3* h = nullptr;
      sqlite3_open_v2(("file:" + j.db + "?mode=ro").c_str(), &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
      if (const char* pr = std::getenv("FLOOR_PRAGMAS")) sqlite3_exec(h, pr, nullptr, nullptr, nullptr);
      conns[j.db] = h;
    }
  double best = 1e30;
  volatile long long sink = 0;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (auto& j : jobs) {
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(conns[j.db], j.sql.c_str(), -1, &st, nullptr) != SQLITE_OK || !st) {
        if (st) sqlite3_finalize(st);
        continue;
      }
      int n = sqlite3_column_count(st);
      while (sqlite3_step(st) == SQLITE_ROW)
        for (int c = 0; c < n; ++c) {
          switch (sqlite3_column_type(st, c)) {
            case SQLITE_INTEGER: sink = sink + sqlite3_column_int64(st, c); break;
            case SQLITE_FLOAT: sink = sink + static_cast<long long>(sqlite3_column_double(st, c)); break;
            case SQLITE_TEXT: sink = sink + sqlite3_column_bytes(st, c) + (sqlite3_column_text(st, c) != nullptr); break;
            case SQLITE_BLOB: sink = sink + sqlite3_column_bytes(st, c) + (sqlite3_column_blob(st, c) != nullptr); break;
            default: break;
          }
        }
      sqlite3_finalize(st);
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
  }
  for (auto& kv : conns) sqlite3_close(kv.second);
  std::printf("%.3f %zu\n", best, jobs.size());
  return 0;
}
