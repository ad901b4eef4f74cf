// Printing for `sqlgrade spider`: the official scripts' stdout byte for byte (taoyds/spider evaluation.py
// @ b7b5b8c, or taoyds/test-suite-sql-eval evaluation.py @ e97acc5, chosen by the run's compat), and the
// summary numbers of the run record (record.cpp).
#include "sqlgrade/spider.hpp"

#include <cstdio>

#include "sqlgrade/spider/record.hpp"

namespace sqlgrade::spider {

namespace {

const char* const kLevels[] = {"easy", "medium", "hard", "extra", "all", "joint_all"};
const char* const kTurns[] = {"turn 1", "turn 2", "turn 3", "turn 4", "turn > 4"};

// "{:20}" for a string: left-justified, padded to at least 20.
void pad20(std::string& o, const std::string& s) {
  o += s;
  if (s.size() < 20) o.append(20 - s.size(), ' ');
}
void row_str(std::string& o, const std::string& label, const std::vector<std::string>& cells) {
  pad20(o, label);
  for (const auto& c : cells) {
    o += ' ';
    pad20(o, c);
  }
  o += '\n';
}
std::string f3(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

void summary(std::string& o, const Run& run) {
  const bool ts = run.opt.compat == Compat::TestSuite;
  const bool do_match = run.opt.etype != Etype::Exec, do_exec = run.opt.etype != Etype::Match;
  const Scores& sc = run.scores;
  size_t nl = 5 + ((ts && sc.include_turn) ? 1 : 0);
  std::vector<std::string> cells;
  for (size_t i = 0; i < nl; ++i) cells.push_back(kLevels[i]);
  row_str(o, "", cells);
  cells.clear();
  for (size_t i = 0; i < nl; ++i) cells.push_back(std::to_string(sc.levels[i].count));
  row_str(o, "count", cells);
  auto level_row = [&](const std::string& label, auto get) {
    std::vector<std::string> c;
    for (size_t i = 0; i < nl; ++i) c.push_back(f3(get(sc.levels[i])));
    row_str(o, label, c);
  };
  if (do_exec) {
    o += "=====================   EXECUTION ACCURACY     =====================\n";
    level_row("execution", [](const LevelScores& L) { return L.exec; });
  }
  if (do_match) {
    o += "\n====================== EXACT MATCHING ACCURACY =====================\n";
    level_row("exact match", [](const LevelScores& L) { return L.exact; });
    o += "\n---------------------PARTIAL MATCHING ACCURACY----------------------\n";
    for (int c = 0; c < C_COUNT; ++c)
      level_row(kComponentNames[c], [c](const LevelScores& L) { return L.partial[static_cast<size_t>(c)].acc; });
    o += "---------------------- PARTIAL MATCHING RECALL ----------------------\n";
    for (int c = 0; c < C_COUNT; ++c)
      level_row(kComponentNames[c], [c](const LevelScores& L) { return L.partial[static_cast<size_t>(c)].rec; });
    o += "---------------------- PARTIAL MATCHING F1 --------------------------\n";
    for (int c = 0; c < C_COUNT; ++c)
      level_row(kComponentNames[c], [c](const LevelScores& L) { return L.partial[static_cast<size_t>(c)].f1; });
  }
  if (ts && sc.include_turn) {
    o += "\n\n";
    std::vector<std::string> t(std::begin(kTurns), std::end(kTurns));
    row_str(o, "", t);
    t.clear();
    for (const auto& T : sc.turns) t.push_back(std::to_string(T.count));
    row_str(o, "count", t);
    if (do_exec) {
      o += "=====================   TURN EXECUTION ACCURACY     =====================\n";
      t.clear();
      for (const auto& T : sc.turns) t.push_back(f3(T.exec));
      row_str(o, "execution", t);
    }
    if (do_match) {
      o += "\n====================== TURN EXACT MATCHING ACCURACY =====================\n";
      t.clear();
      for (const auto& T : sc.turns) t.push_back(f3(T.exact));
      row_str(o, "exact match", t);
    }
  }
}

}  // namespace

std::string render_text(const Run& run) {
  const bool ts = run.opt.compat == Compat::TestSuite;
  const bool do_match = run.opt.etype != Etype::Exec;
  std::string o;
  o.reserve(256 * 1024);
  long err_num = 0;
  size_t last_inter = static_cast<size_t>(-1);
  for (const auto& ex : run.examples) {
    if (ts && ex.interaction != last_inter) {
      // "Evaluating <k>th prediction" before every 10th interaction (also for empty ones in between)
      size_t from = last_inter == static_cast<size_t>(-1) ? 0 : last_inter + 1;
      for (size_t i = from; i <= ex.interaction; ++i)
        if ((i + 1) % 10 == 0) o += "Evaluating " + std::to_string(i + 1) + "th prediction\n";
      last_inter = ex.interaction;
    }
    if (!ex.gold_ok) continue;
    if (!ts && !ex.pred_parsed) o += "eval_err_num:" + std::to_string(++err_num) + "\n";
    if (do_match && ex.exact == 0) {
      const char* h = to_string(ex.hardness);
      o += std::string(h) + " pred: " + ex.pred_sql + "\n";
      o += std::string(h) + " gold: " + ex.gold_sql + "\n\n";
    }
  }
  if (ts) {
    size_t from = last_inter == static_cast<size_t>(-1) ? 0 : last_inter + 1;
    for (size_t i = from; i < run.n_interactions; ++i)
      if ((i + 1) % 10 == 0) o += "Evaluating " + std::to_string(i + 1) + "th prediction\n";
  }
  summary(o, run);
  return o;
}

nlohmann::ordered_json summary_json(const Run& run) {
  using J = nlohmann::ordered_json;
  const bool ts = run.opt.compat == Compat::TestSuite;
  const bool do_match = run.opt.etype != Etype::Exec, do_exec = run.opt.etype != Etype::Match;
  J sum = J::object();
  size_t nl = ts && run.scores.include_turn ? 6 : 5;
  for (size_t i = 0; i < nl; ++i) {
    const LevelScores& L = run.scores.levels[i];
    J l;
    l["count"] = L.count;
    if (do_exec) l["exec"] = L.exec;
    if (do_match) {
      l["exact"] = L.exact;
      J parts = J::object();
      for (int c = 0; c < C_COUNT; ++c) {
        const auto& P = L.partial[static_cast<size_t>(c)];
        parts[kComponentNames[c]] = J{{"acc", P.acc}, {"rec", P.rec}, {"f1", P.f1}};
      }
      l["partial"] = parts;
    }
    sum[kLevels[i]] = l;
  }
  if (ts && run.scores.include_turn) {
    for (size_t i = 0; i < 5; ++i) {
      const LevelScores& T = run.scores.turns[i];
      J t;
      t["count"] = T.count;
      if (do_exec) t["exec"] = T.exec;
      if (do_match) t["exact"] = T.exact;
      sum[kTurns[i]] = t;
    }
  }
  return sum;
}

std::string both_header(Compat mode) {
  return mode == Compat::Spider ? "==> --compat spider <==\n" : "\n==> --compat test-suite <==\n";
}

std::string render_table(const Run& run) {
  std::string o;
  summary(o, run);
  return o;
}

}  // namespace sqlgrade::spider
