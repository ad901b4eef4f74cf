// bird_floor: the time SQLite itself spends executing a BIRD run's queries (every prediction and every
// gold query, prepared and stepped to the last row on one thread, connections opened beforehand).
// This is the floor that `sqlgrade bird` is compared with in bench/bird.sh.
//   usage: bird_floor GOLD.sql PRED.json DB_ROOT [REPEATS]
// Prints the first pass's total (fresh connections), the best total over REPEATS passes (default 5),
// in seconds, and the query count.
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s GOLD.sql PRED.json DB_ROOT [REPEATS]\n", argv[0]);
    return 2;
  }
  int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
  std::vector<std::pair<std::string, std::string>> work;  // (db_id, sql)
  std::ifstream g(argv[1]);
  std::string line;
  std::vector<std::string> gold_db;
  while (std::getline(g, line)) {
    auto tab = line.rfind('\t');
    if (tab == std::string::npos) continue;
    gold_db.push_back(line.substr(tab + 1));
    work.emplace_back(gold_db.back(), line.substr(0, tab));
  }
  std::ifstream p(argv[2]);
  std::stringstream ss;
  ss << p.rdbuf();
  auto preds = nlohmann::ordered_json::parse(ss.str());
  const std::string sep = "\t----- bird -----\t";
  size_t i = 0;
  for (auto& [k, v] : preds.items()) {
    if (i >= gold_db.size()) break;
    std::string s = v.is_string() ? v.get<std::string>() : " ";
    auto pos = s.find(sep);
    work.emplace_back(gold_db[i++], pos == std::string::npos ? s : s.substr(0, pos));
  }
  std::map<std::string, sqlite3*> dbs;
  for (auto& w : work) {
    if (dbs.count(w.first)) continue;
    std::string path = std::string(argv[3]) + "/" + w.first + "/" + w.first + ".sqlite";
    sqlite3* h = nullptr;
    if (sqlite3_open_v2(path.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      std::fprintf(stderr, "cannot open %s\n", path.c_str());
      return 2;
    }
    dbs[w.first] = h;
  }
  double best = 1e100, first = 0;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (auto& w : work) {
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(dbs[w.first], w.second.c_str(), -1, &st, nullptr) == SQLITE_OK && st) {
        while (sqlite3_step(st) == SQLITE_ROW) {
        }
      }
      sqlite3_finalize(st);
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r == 0) first = s;
    if (s < best) best = s;
  }
  // first pass: fresh connections (schema parse + page loads from the OS cache), as in any single run;
  // best pass: SQLite's page cache already warm.
  std::printf("%.4f %.4f %zu\n", first, best, work.size());
  for (auto& [k, h] : dbs) sqlite3_close(h);
  return 0;
}
