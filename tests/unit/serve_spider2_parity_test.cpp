// The reward server's spider2 verdicts equal `sqlgrade spider2 --mode sql` on the same inputs:
// real Spider 2.0-Lite local gold CSVs (condition_cols, ignore_order, multi-gold alternatives) and
// predictions that rebuild (or perturb) a gold table with a VALUES query. The server receives the
// gold the way NeMo Gym's dataset carries it (gold_result, cells converted int -> float -> str).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "sqlgrade/core/csv.hpp"
#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/py/number.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;
using json = nlohmann::json;

namespace {

struct Instance {
  std::string id, db;
  json condition_cols;
  bool ignore_order = true;
  bool single_file = false;
  std::vector<CsvData> golds;
};

std::string sql_literal(const std::string& cell, char kind, double shift) {
  if (cell.empty()) return "NULL";
  if (kind == 'i') return std::to_string(*py::parse_int(cell));
  if (kind == 'f') {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", *py::parse_float(cell) + shift);
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
  }
  return "'" + replace_all(cell, "'", "''") + "'";
}

// A query returning `t` (column kinds inferred: all-int, all-float, else text).
std::string values_query(const CsvData& t, double shift) {
  size_t w = t.header.size();
  std::vector<char> kind(w, 'i');
  for (size_t c = 0; c < w; ++c)
    for (auto& r : t.rows) {
      const std::string& v = c < r.size() ? r[c] : "";
      if (v.empty()) continue;
      if (kind[c] == 'i' && !py::parse_int(v)) kind[c] = 'f';
      if (kind[c] == 'f') {
        auto d = py::parse_float(v);
        if (!d || !std::isfinite(*d)) kind[c] = 's';
      }
    }
  std::string sel;
  for (size_t c = 0; c < w; ++c) {
    if (c) sel += ", ";
    sel += "column" + std::to_string(c + 1) + " AS \"" + replace_all(t.header[c], "\"", "\"\"") + "\"";
  }
  if (t.rows.empty()) {
    std::string q = "SELECT ";
    for (size_t c = 0; c < w; ++c) q += (c ? ", NULL AS \"" : "NULL AS \"") + replace_all(t.header[c], "\"", "\"\"") + "\"";
    return q + " WHERE 0";
  }
  std::string vals;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    vals += i ? ",(" : "(";
    for (size_t c = 0; c < w; ++c) {
      if (c) vals += ",";
      vals += sql_literal(c < t.rows[i].size() ? t.rows[i][c] : "", kind[c], kind[c] == 'f' ? shift : 0);
    }
    vals += ")";
  }
  return "SELECT " + sel + " FROM (VALUES " + vals + ")";
}

// NeMo Gym prepare_dataset: csv rows without the header, each cell int(), else float(), else str.
json nemo_gold_result(const std::vector<CsvData>& golds) {
  json out = json::array();
  for (auto& g : golds) {
    json rows = json::array();
    for (auto& r : g.rows) {
      json row = json::array();
      for (auto& cell : r) {
        if (auto i = py::parse_int(cell)) row.push_back(*i);
        else if (auto d = py::parse_float(cell); d && std::isfinite(*d)) row.push_back(*d);
        else row.push_back(cell);
      }
      rows.push_back(row);
    }
    out.push_back(rows);
  }
  return out;
}

}  // namespace

TEST(ServeSpider2Parity, VerdictsEqualSpider2Cli) {
  SQLGRADE_REQUIRE_DATA("spider2lite/gold/exec_result");
  std::string S2 = DATA + "/spider2lite";
  std::map<std::string, std::string> db_of;
  {
    std::ifstream in(S2 + "/spider2-lite.local.jsonl");
    std::string line;
    while (std::getline(in, line))
      if (!trim(line).empty()) {
        auto j = json::parse(line);
        db_of[j["instance_id"]] = j["db"];
      }
  }
  std::vector<Instance> insts;
  {
    std::ifstream in(S2 + "/gold/spider2lite_eval.local.jsonl");
    std::string line;
    std::vector<std::string> files;
    for (auto& e : fs::directory_iterator(S2 + "/gold/exec_result")) files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    while (std::getline(in, line)) {
      if (trim(line).empty()) continue;
      auto j = json::parse(line);
      Instance x;
      x.id = j["instance_id"];
      x.db = db_of[x.id];
      x.condition_cols = j.value("condition_cols", json());
      x.ignore_order = j.value("ignore_order", false);
      std::regex alt("^" + x.id + "(_[a-z])?\\.csv$");
      size_t rows = 0;
      for (auto& f : files)
        if (std::regex_match(f, alt)) {
          x.single_file = x.single_file || f == x.id + ".csv";
          x.golds.push_back(read_csv_file(S2 + "/gold/exec_result/" + f));
          rows += x.golds.back().rows.size();
        }
      if (x.single_file) {  // the official script then reads <id>.csv only
        x.golds = {read_csv_file(S2 + "/gold/exec_result/" + x.id + ".csv")};
      }
      if (x.golds.empty() || x.db.empty() || rows > 400) continue;  // keep the VALUES queries small
      insts.push_back(std::move(x));
    }
  }
  ASSERT_GT(insts.size(), 100u);

  // Variants of the prediction: exact first gold, rows reversed, first column dropped, floats
  // shifted within tolerance, exact last gold.
  auto variant = [](const Instance& x, int v) {
    CsvData t = v == 4 ? x.golds.back() : x.golds.front();
    if (v == 1) std::reverse(t.rows.begin(), t.rows.end());
    if (v == 2 && t.header.size() > 1) {
      t.header.erase(t.header.begin());
      for (auto& r : t.rows)
        if (!r.empty()) r.erase(r.begin());
    }
    return values_query(t, v == 3 ? 0.004 : 0.0);
  };

  serve::ServerOptions so;
  so.db_dir = S2 + "/databases";
  so.max_concurrency = 1;
  so.grader.extract.tags_and_json = false;
  serve::RewardServer server(so);
  so.grader.spider2_gold_dir = S2 + "/gold";  // second server: the official gold CSVs by instance_id
  serve::RewardServer official(so);

  int compared = 0, ones = 0, zeros = 0;
  std::vector<std::string> diffs;
  for (int v = 0; v < 5; ++v) {
    TempDir tmp;
    fs::path res = tmp / "pred";
    fs::create_directories(res);
    for (auto& x : insts) spit(res / (x.id + ".sql"), variant(x, v));
    auto r = run_cli({"spider2", "--mode", "sql", "--result_dir", res.string(), "--gold_dir", S2 + "/gold", "--db_dir",
                      S2 + "/databases", "--meta", S2 + "/spider2-lite.jsonl", "--json", (tmp / "out.json").string(),
                      "--no-progress"});
    ASSERT_EQ(r.rc, 0) << r.err;
    json out = json::parse(slurp(tmp / "out.json"));
    std::map<std::string, int> cli;
    for (auto& p : out["instances"]) cli[p["id"]] = p["scores"]["ex"].get<int>();
    for (auto& x : insts) {
      json req = {{"response", {{"output", json::array({{{"type", "message"},
                                                          {"content", json::array({{{"type", "output_text"},
                                                                                    {"text", "```sql\n" + variant(x, v) + "\n```"}}})}}})}}},
                  {"instance_id", x.id},
                  {"db_id", x.db},
                  {"question", ""},
                  {"gold_result", nemo_gold_result(x.golds)},
                  {"gold_single_file", x.single_file},
                  {"ignore_order", x.ignore_order},
                  {"condition_cols", x.condition_cols}};
      serve::Reply rep = server.verify(req.dump());
      ASSERT_EQ(rep.status, 200) << x.id << " " << rep.body;
      json j = json::parse(rep.body);
      ASSERT_TRUE(cli.count(x.id)) << x.id;
      int s = j["reward"].get<double>() == 1.0 ? 1 : 0;
      ++compared;
      (s ? ones : zeros)++;
      if (s != cli[x.id])
        diffs.push_back("variant " + std::to_string(v) + " " + x.id + ": server " + std::to_string(s) + " cli " +
                        std::to_string(cli[x.id]) + " (" + j["failure_detail"].get<std::string>() + ")");
      // --spider2-gold-dir: no gold in the request (and a misleading ignore_order that must be ignored)
      for (const char* f : {"gold_result", "gold_single_file", "condition_cols"}) req.erase(f);
      req["ignore_order"] = !x.ignore_order;
      rep = official.verify(req.dump());
      ASSERT_EQ(rep.status, 200) << x.id << " " << rep.body;
      int o = json::parse(rep.body)["reward"].get<double>() == 1.0 ? 1 : 0;
      if (o != cli[x.id])
        diffs.push_back("gold-dir variant " + std::to_string(v) + " " + x.id + ": server " + std::to_string(o) +
                        " cli " + std::to_string(cli[x.id]));
    }
  }
  std::string all;
  for (auto& d : diffs) all += d + "\n";
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " of " << compared << " verdicts differ:\n" << all;
  EXPECT_GT(ones, 100);
  EXPECT_GT(zeros, 20);
  std::printf("compared %d verdicts (%d ones, %d zeros)\n", compared, ones, zeros);
}
