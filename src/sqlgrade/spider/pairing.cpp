// Spider: a pass's inputs — the gold read once, every prediction file paired with it (by physical line,
// or SParC/CoSQL interaction by interaction), the shard kept, the slots and the databases.
#include "sqlgrade/spider/pairing.hpp"
#include "sqlgrade/spider/bench.hpp"

#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/py/io.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/runs/ids.hpp"

namespace sqlgrade::spider {

namespace {

struct Line {
  long no;
  std::vector<std::string> fields;
};
// Blank-line separated groups (test-suite's reading: consecutive blank lines make empty groups,
// the last group is kept without a trailing blank line).
std::vector<std::vector<Line>> group_lines(const std::vector<std::string>& raw) {
  std::vector<std::vector<Line>> groups;
  std::vector<Line> cur;
  for (size_t i = 0; i < raw.size(); ++i) {
    std::string s = py::strip(raw[i]);
    if (s.empty()) {
      groups.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back({static_cast<long>(i + 1), split(s, "\t")});
    }
  }
  if (!cur.empty()) groups.push_back(std::move(cur));
  return groups;
}

std::string replace_value(std::string s) { return replace_all(std::move(s), "value", "1"); }

// The examples of one prediction file paired with the gold, and what pairing found.
struct Paired {
  std::vector<Example> examples;
  std::vector<std::string> warnings;
  size_t extra_preds = 0;
};

// Builds the Paired of one prediction file (`pred`, its path), example by example.
struct PairedBuilder {
  const std::string& pred;
  bool ts;
  Paired out{};

  std::string pred_text(const Line& l) {
    if (l.fields.size() > 2)
      out.warnings.push_back(pred + ":" + std::to_string(l.no) +
                             ": TAB inside the prediction; only the text before the first TAB is used (as the official scripts do)");
    return l.fields[0];
  }

  void add(size_t inter, size_t turn, const Line& g, const Line* p, bool blank_pred, long pline) {
    Example ex;
    ex.index = out.examples.size();
    ex.interaction = inter;
    ex.turn = turn;
    ex.gold_line = g.no;
    ex.gold_sql = g.fields[0];
    ex.db_id = g.fields[1];
    if (p) {
      ex.pred_line = p->no;
      ex.pred_sql = pred_text(*p);
    } else {
      ex.has_pred = false;
      ex.pred_line = pline;
      if (blank_pred)
        out.warnings.push_back(pred + ":" + std::to_string(pline) +
                               ": blank prediction line; scored 0 (never shifts later lines)");
    }
    if (ts) ex.pred_sql = replace_value(ex.pred_sql);  // test-suite quirk: applied before match AND exec
    out.examples.push_back(std::move(ex));
  }
};

// One example per line: pair by physical line so that a blank or missing prediction never shifts the
// rest.
Paired pair_by_line(const std::vector<Line>& gl, std::vector<std::string> plines, const std::string& pred, bool ts) {
  PairedBuilder b{pred, ts};
  while (!plines.empty() && py::strip(plines.back()).empty()) plines.pop_back();
  for (size_t k = 0; k < gl.size(); ++k) {
    if (k >= plines.size()) {
      b.add(0, k, gl[k], nullptr, false, 0);
      continue;
    }
    std::string s = py::strip(plines[k]);
    if (s.empty()) {
      b.add(0, k, gl[k], nullptr, true, static_cast<long>(k + 1));
    } else {
      Line pl{static_cast<long>(k + 1), split(s, "\t")};
      b.add(0, k, gl[k], &pl, false, pl.no);
    }
  }
  if (plines.size() < gl.size())
    b.out.warnings.push_back(pred + ": " + std::to_string(plines.size()) + " prediction line(s) for " +
                             std::to_string(gl.size()) + " gold examples; the missing ones score 0");
  else if (plines.size() > gl.size()) {
    b.out.extra_preds = plines.size() - gl.size();
    b.out.warnings.push_back(pred + ": " + std::to_string(plines.size() - gl.size()) +
                             " extra prediction line(s) after the last gold example ignored");
  }
  return std::move(b.out);
}

// SParC/CoSQL: blank-line separated interactions, paired turn by turn.
Paired pair_by_interaction(const std::vector<std::vector<Line>>& ggroups, const std::vector<std::string>& praw,
                           const Options& opt, bool ts) {
  PairedBuilder b{opt.pred, ts};
  auto pgroups = group_lines(praw);
  while (pgroups.size() > ggroups.size() && pgroups.back().empty()) pgroups.pop_back();
  if (pgroups.size() != ggroups.size())
    throw InputError(opt.pred, std::to_string(pgroups.size()) + " interactions (blank-line separated) but " + opt.gold +
                                   " has " + std::to_string(ggroups.size()));
  for (size_t i = 0; i < ggroups.size(); ++i) {
    const auto& g = ggroups[i];
    const auto& p = pgroups[i];
    for (size_t t = 0; t < g.size(); ++t) {
      if (t < p.size()) b.add(i, t, g[t], &p[t], false, p[t].no);
      else b.add(i, t, g[t], nullptr, false, 0);
    }
    if (p.size() < g.size())
      b.out.warnings.push_back(opt.pred + ": interaction " + std::to_string(i + 1) + " has " + std::to_string(p.size()) +
                               " prediction(s) for " + std::to_string(g.size()) + " gold turns; the missing ones score 0");
    else if (p.size() > g.size()) {
      b.out.extra_preds += p.size() - g.size();
      b.out.warnings.push_back(opt.pred + ": interaction " + std::to_string(i + 1) + ": " +
                               std::to_string(p.size() - g.size()) + " extra prediction(s) ignored");
    }
  }
  return std::move(b.out);
}

// Reads opt.pred and pairs it with the gold groups; then keeps the examples of opt's shard.
Paired read_and_pair(const Options& opt, const std::vector<std::vector<Line>>& ggroups, bool gbom) {
  bool pbom = false;
  auto praw = py::read_lines_universal(opt.pred, &pbom);
  std::vector<std::string> boms;
  if (gbom) boms.push_back(opt.gold + ": UTF-8 BOM removed");
  if (pbom) boms.push_back(opt.pred + ": UTF-8 BOM removed (the official script would fail line 1)");
  const bool ts = opt.compat == Compat::TestSuite;
  Paired p = ggroups.size() > 1
                 ? pair_by_interaction(ggroups, praw, opt, ts)
                 : pair_by_line(ggroups.empty() ? std::vector<Line>{} : ggroups[0], std::move(praw), opt.pred, ts);
  p.warnings.insert(p.warnings.begin(), boms.begin(), boms.end());
  if (opt.shard_count > 0) {
    const runs::Shard sh = *runs::shard_option(opt.shard_index, opt.shard_count, opt.shard_by);
    std::vector<Example> kept;
    for (auto& ex : p.examples)
      if (runs::in_shard(sh, std::to_string(ex.index), ex.db_id)) kept.push_back(std::move(ex));
    p.examples = std::move(kept);
  }
  return p;
}

}  // namespace

PassMode pass_mode(const Options& opt) {
  PassMode m;
  m.ts = opt.compat == Compat::TestSuite;
  m.do_match = opt.etype != Etype::Exec;
  m.do_exec = opt.etype != Etype::Match;
  // The original Spider exec metric compares rebuilt structures, which need the foreign keys.
  m.need_table = m.do_match || !m.ts;
  if (m.need_table && opt.table.empty()) throw InputError("", "--table is required for this --etype/--compat");
  m.jobs = resolve_jobs(opt.jobs);
  return m;
}

std::string db_path(const std::string& db_dir, const std::string& db_id) {
  return benchmark().database(db_dir, db_id);
}

std::vector<Run> read_systems(const Options& opt, const PassMode& mode, const std::vector<std::string>& preds,
                              const std::string& started_at) {
  bool gbom = false;
  auto graw = py::read_lines_universal(opt.gold, &gbom);
  auto ggroups = group_lines(graw);
  for (auto& g : ggroups)
    for (auto& l : g)
      if (l.fields.size() != 2)
        throw InputError(opt.gold, "expected `SQL<TAB>db_id` (" + std::to_string(l.fields.size()) + " field(s))", l.no);
  std::vector<Run> runs(preds.size());
  for (size_t k = 0; k < preds.size(); ++k) {
    Run& run = runs[k];
    run.opt = opt;
    run.opt.pred = preds[k];
    run.started_at = started_at;
    run.n_interactions = mode.ts ? ggroups.size() : 1;
    if (mode.ts) run.scores.include_turn = ggroups.size() > 1;
    Paired p = read_and_pair(run.opt, ggroups, gbom);
    run.examples = std::move(p.examples);
    run.warnings = std::move(p.warnings);
    run.extra_preds = p.extra_preds;
  }
  return runs;
}

Slots make_slots(const std::vector<Run>& runs) {
  Slots slots;
  for (size_t k = 0; k < runs.size(); ++k)
    for (size_t i = 0; i < runs[k].examples.size(); ++i) slots.emplace_back(k, i);
  return slots;
}

Databases load_databases(const Options& opt, const PassMode& mode, const std::vector<Run>& runs) {
  Databases dbs;
  std::unordered_map<std::string, nlohmann::json> tables;
  if (!opt.table.empty() && mode.need_table) tables = load_tables_json(opt.table);
  for (const auto& run : runs)
    for (const auto& ex : run.examples) {
      if (dbs.count(ex.db_id)) continue;
      if (!is_plain_name(ex.db_id))
        throw InputError(opt.gold, "db_id '" + ex.db_id + "' is not a folder name inside --db", ex.gold_line);
      std::string path = db_path(opt.db_dir, ex.db_id);
      std::error_code ec;
      if (!fs::is_regular_file(path, ec))
        throw InputError(opt.gold, "database " + path + " not found for db_id '" + ex.db_id + "'", ex.gold_line);
      const nlohmann::json* entry = nullptr;
      if (mode.need_table) {
        auto it = tables.find(ex.db_id);
        if (it == tables.end()) throw InputError(opt.table, "no entry for db_id '" + ex.db_id + "'");
        entry = &it->second;
      }
      dbs.emplace(ex.db_id, make_db_info(ex.db_id, read_sqlite_catalogue(path), entry));
    }
  return dbs;
}

}  // namespace sqlgrade::spider
