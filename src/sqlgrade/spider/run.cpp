// Spider: the run — reads the gold and prediction files (one per line, or SParC/CoSQL interactions),
// pairs them, parses and grades every example (exact set match, partial components, hardness), runs
// the execution check and aggregates the official score table. Printing is in report.cpp.
#include "sqlgrade/spider.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/exec/runner.hpp"
#include "sqlgrade/py/io.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/spider/aggregate.hpp"
#include "sqlgrade/spider/exact_match.hpp"
#include "sqlgrade/spider/exec_evaluator.hpp"
#include "sqlgrade/spider/hardness.hpp"
#include "sqlgrade/spider/parser.hpp"
#include "sqlgrade/spider/questions.hpp"
#include "sqlgrade/spider/rebuild.hpp"
#include "sqlgrade/spider/schema.hpp"
#include "sqlgrade/spider/sql_json.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/core/text.hpp"

namespace sqlgrade::spider {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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

// The gold of one question, parsed (and rebuilt when needed) once for every system.
struct GoldParse {
  std::shared_ptr<const Sql> sql;  // null when the gold does not parse
  bool ok = true;
  std::string error;
  Hardness hardness = Hardness::Easy;  // set before the shape check, as evaluation.py does
  double seconds = 0;
};

struct Parsed {
  std::shared_ptr<const Sql> gold;  // shared by the systems' examples of one question
  std::unique_ptr<Sql> pred;
};


// Reads run.opt.pred and pairs it with the gold groups; then keeps the examples of run.opt's shard.
void read_and_pair(Run& run, const std::vector<std::vector<Line>>& ggroups, bool gbom) {
  const Options& opt = run.opt;
  const bool ts = opt.compat == Compat::TestSuite;
  bool pbom = false;
  auto praw = py::read_lines_universal(opt.pred, &pbom);
  if (gbom) run.warnings.push_back(opt.gold + ": UTF-8 BOM removed");
  if (pbom) run.warnings.push_back(opt.pred + ": UTF-8 BOM removed (the official script would fail line 1)");
  const bool interaction_format = ggroups.size() > 1;

  auto pred_text = [&](const Line& l) {
    std::string p = l.fields[0];
    if (l.fields.size() > 2)
      run.warnings.push_back(opt.pred + ":" + std::to_string(l.no) +
                             ": TAB inside the prediction; only the text before the first TAB is used (as the official scripts do)");
    return p;
  };

  auto add_example = [&](size_t inter, size_t turn, const Line& g, const Line* p, bool blank_pred, long pline) {
    Example ex;
    ex.index = run.examples.size();
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
        run.warnings.push_back(opt.pred + ":" + std::to_string(pline) + ": blank prediction line; scored 0 (never shifts later lines)");
    }
    if (ts) ex.pred_sql = replace_value(ex.pred_sql);  // test-suite quirk: applied before match AND exec
    run.examples.push_back(std::move(ex));
  };

  if (!interaction_format) {
    // One example per line: pair by physical line so that a blank or missing prediction never
    // shifts the rest.
    std::vector<std::string> plines = praw;
    while (!plines.empty() && py::strip(plines.back()).empty()) plines.pop_back();
    const auto& gl = ggroups.empty() ? std::vector<Line>{} : ggroups[0];
    for (size_t k = 0; k < gl.size(); ++k) {
      if (k < plines.size()) {
        std::string s = py::strip(plines[k]);
        if (s.empty()) {
          add_example(0, k, gl[k], nullptr, true, static_cast<long>(k + 1));
        } else {
          Line pl{static_cast<long>(k + 1), split(s, "\t")};
          add_example(0, k, gl[k], &pl, false, pl.no);
        }
      } else {
        add_example(0, k, gl[k], nullptr, false, 0);
      }
    }
    if (plines.size() < gl.size())
      run.warnings.push_back(opt.pred + ": " + std::to_string(plines.size()) + " prediction line(s) for " +
                             std::to_string(gl.size()) + " gold examples; the missing ones score 0");
    else if (plines.size() > gl.size())
      run.warnings.push_back(opt.pred + ": " + std::to_string(plines.size() - gl.size()) +
                             " extra prediction line(s) after the last gold example ignored");
  } else {
    auto pgroups = group_lines(praw);
    while (pgroups.size() > ggroups.size() && pgroups.back().empty()) pgroups.pop_back();
    if (pgroups.size() != ggroups.size())
      throw InputError(opt.pred, std::to_string(pgroups.size()) + " interactions (blank-line separated) but " + opt.gold +
                                     " has " + std::to_string(ggroups.size()));
    for (size_t i = 0; i < ggroups.size(); ++i) {
      const auto& g = ggroups[i];
      const auto& p = pgroups[i];
      for (size_t t = 0; t < g.size(); ++t) {
        if (t < p.size()) add_example(i, t, g[t], &p[t], false, p[t].no);
        else add_example(i, t, g[t], nullptr, false, 0);
      }
      if (p.size() < g.size())
        run.warnings.push_back(opt.pred + ": interaction " + std::to_string(i + 1) + " has " + std::to_string(p.size()) +
                               " prediction(s) for " + std::to_string(g.size()) + " gold turns; the missing ones score 0");
      else if (p.size() > g.size())
        run.warnings.push_back(opt.pred + ": interaction " + std::to_string(i + 1) + ": " +
                               std::to_string(p.size() - g.size()) + " extra prediction(s) ignored");
    }
  }
  if (opt.shard_count > 0) {
    runs::Shard sh{opt.shard_index, opt.shard_count};
    std::vector<Example> kept;
    for (auto& ex : run.examples)
      if (runs::in_shard(std::to_string(ex.index), sh)) kept.push_back(std::move(ex));
    run.examples = std::move(kept);
  }
}


}  // namespace

Etype parse_etype(const std::string& s) {
  if (s == "match") return Etype::Match;
  if (s == "exec") return Etype::Exec;
  if (s == "all") return Etype::All;
  throw InputError("--etype", "Unknown evaluation method '" + s + "' (match, exec, all)");
}

Compat parse_compat(const std::string& s) {
  if (s == "test-suite" || s == "testsuite") return Compat::TestSuite;
  if (s == "spider") return Compat::Spider;
  throw InputError("--compat", "unknown value '" + s + "' (spider, test-suite)");
}

Run evaluate(const Options& opt) {
  auto runs = evaluate_many(opt, {opt.pred});
  return std::move(runs[0]);
}

std::vector<Run> evaluate_many(const Options& opt, const std::vector<std::string>& preds) {
  const double t_start = now_s();
  const std::string started_at = runs::utc_now_iso8601();
  const bool ts = opt.compat == Compat::TestSuite;
  const bool do_match = opt.etype != Etype::Exec;
  const bool do_exec = opt.etype != Etype::Match;
  // The original Spider exec metric compares rebuilt structures, which need the foreign keys.
  const bool need_table = do_match || !ts;
  if (need_table && opt.table.empty()) throw InputError("", "--table is required for this --etype/--compat");
  const std::optional<Questions> texts = load_questions(opt);  // before grading: a bad file is exit 2 at once
  if (opt.shard_count > 0 && (opt.shard_index < 1 || opt.shard_index > opt.shard_count))
    throw InputError("--shard", "shard index must be in 1.." + std::to_string(opt.shard_count));

  // ---- read the gold once, pair each prediction file ---------------------------------------------
  bool gbom = false;
  auto graw = py::read_lines_universal(opt.gold, &gbom);
  auto ggroups = group_lines(graw);
  for (auto& g : ggroups)
    for (auto& l : g)
      if (l.fields.size() != 2)
        throw InputError(opt.gold, "expected `SQL<TAB>db_id` (" + std::to_string(l.fields.size()) + " field(s))", l.no);
  std::vector<Run> out(preds.size());
  for (size_t k = 0; k < preds.size(); ++k) {
    Run& run = out[k];
    run.opt = opt;
    run.opt.pred = preds[k];
    run.started_at = started_at;
    if (ts) {
      run.n_interactions = ggroups.size();
      run.scores.include_turn = ggroups.size() > 1;
    } else {
      run.n_interactions = 1;
    }
    read_and_pair(run, ggroups, gbom);
  }

  // ---- schemas (once for all systems) -------------------------------------------------------------
  std::unordered_map<std::string, nlohmann::json> tables;
  if (!opt.table.empty() && need_table) tables = load_tables_json(opt.table);
  std::unordered_map<std::string, std::shared_ptr<DbInfo>> dbs;
  for (const auto& run : out)
    for (const auto& ex : run.examples) {
      if (dbs.count(ex.db_id)) continue;
      if (!is_plain_name(ex.db_id))
        throw InputError(opt.gold, "db_id '" + ex.db_id + "' is not a folder name inside --db", ex.gold_line);
      std::string path = (fs::path(opt.db_dir) / ex.db_id / (ex.db_id + ".sqlite")).string();
      std::error_code ec;
      if (!fs::is_regular_file(path, ec))
        throw InputError(opt.gold, "database " + path + " not found for db_id '" + ex.db_id + "'", ex.gold_line);
      const nlohmann::json* entry = nullptr;
      if (need_table) {
        auto it = tables.find(ex.db_id);
        if (it == tables.end()) throw InputError(opt.table, "no entry for db_id '" + ex.db_id + "'");
        entry = &it->second;
      }
      dbs.emplace(ex.db_id, make_db_info(ex.db_id, read_sqlite_catalogue(path), entry));
    }

  // Every (system, example) pair is one slot; the work below runs over all slots at once.
  std::vector<std::pair<size_t, size_t>> slots;
  for (size_t k = 0; k < out.size(); ++k)
    for (size_t i = 0; i < out[k].examples.size(); ++i) slots.emplace_back(k, i);
  auto example_at = [&](size_t s) -> Example& { return out[slots[s].first].examples[slots[s].second]; };

  // ---- parse, rebuild, match (parallel) -----------------------------------------------------------
  // Every system pairs the same gold questions in the same order (read_and_pair), so a question's
  // gold is parsed and rebuilt once, then shared by the slots of all systems; predictions are parsed
  // per slot.
  const unsigned jobs = resolve_jobs(opt.jobs);
  ParseOptions popt{ts};
  const std::vector<Example> no_examples;
  const std::vector<Example>& questions = out.empty() ? no_examples : out[0].examples;
  std::vector<GoldParse> golds(questions.size());
  parallel_for(questions.size(), jobs, [&](size_t q) {
    const Example& ex = questions[q];
    const DbInfo& db = *dbs.at(ex.db_id);
    double a = now_s();
    GoldParse& gp = golds[q];
    std::unique_ptr<Sql> g;
    try {
      g = parse_sql(db.schema, ex.gold_sql, popt);
      gp.hardness = hardness(*g);
      if (do_match || !ts) check_condition_shape(*g);
    } catch (const ParseError& e) {
      gp.ok = false;
      gp.error = e.what();
      return;
    }
    if (do_match || !ts) rebuild_sql(*g, db);
    gp.sql = std::move(g);
    gp.seconds = now_s() - a;
  });
  std::vector<Parsed> parsed(slots.size());
  parallel_for(slots.size(), jobs, [&](size_t i) {
    Example& ex = example_at(i);
    const GoldParse& gp = golds[slots[i].second];
    ex.hardness = gp.hardness;
    if (!gp.ok) {
      ex.gold_ok = false;
      ex.gold_error = gp.error;
      return;
    }
    const DbInfo& db = *dbs.at(ex.db_id);
    double a = now_s();
    Parsed& ps = parsed[i];
    ps.gold = gp.sql;
    try {
      if (!ex.has_pred) throw ParseError("no prediction");
      ps.pred = parse_sql(db.schema, ex.pred_sql, popt);
      if (do_match || !ts) check_condition_shape(*ps.pred);
      ex.pred_parsed = true;
    } catch (const ParseError& e) {
      ps.pred = empty_sql();
      ex.pred_parsed = false;
      ex.parse_error = e.what();
    }
    if (do_match || !ts) rebuild_sql(*ps.pred, db);
    if (do_match) ex.exact = exact_match(*ps.pred, *ps.gold, db, &ex.partial);
    ex.parse_seconds = gp.seconds + (now_s() - a);
  });
  for (auto& run : out) {
    for (const auto& ex : run.examples)
      if (!ex.gold_ok)
        run.warnings.push_back(opt.gold + ":" + std::to_string(ex.gold_line) +
                               ": gold does not parse with the Spider grammar (" + ex.gold_error +
                               "); example left out (the official script aborts here)");
  }

  // ---- execution ---------------------------------------------------------------------------------
  if (do_exec) {
    Progress progress("spider exec", slots.size(), opt.progress_each ? 1 : opt.progress);
    if (ts) {
      ExecOptions eo;
      eo.plug_value = opt.plug_value;
      eo.keep_distinct = opt.keep_distinct;
      eo.timeout_s = opt.timeout_s;
      eo.compat = Compat::TestSuite;
      eo.keep_rows = opt.keep_rows;
      ExecEvaluator ev(opt.db_dir, eo);
      // A verdict depends only on (db, gold, prediction): each distinct triple is checked once, however
      // many examples or systems share it.
      std::vector<ExecItem> items;
      std::map<std::tuple<std::string, std::string, std::string>, size_t> item_of;
      std::vector<std::pair<size_t, size_t>> idx;  // (slot, item)
      for (size_t i = 0; i < slots.size(); ++i) {
        Example& ex = example_at(i);
        if (!ex.gold_ok) continue;
        if (!ex.has_pred) {
          ex.exec = 0;
          ex.exec_reason = "no prediction";
          continue;
        }
        // pred_sql already has test-suite's `value` → `1` replacement (spec §2.1): the suite applies
        // it once, before both match and exec; ExecEvaluator receives the replaced text.
        auto [it, fresh] = item_of.try_emplace({ex.db_id, ex.gold_sql, ex.pred_sql}, items.size());
        if (fresh) items.push_back({ex.db_id, ex.gold_sql, ex.pred_sql});
        idx.emplace_back(i, it->second);
      }
      auto verdicts = ev.evaluate_all(items, jobs, &progress);
      for (const auto& [slot, item] : idx) {
        Example& ex = example_at(slot);
        ex.exec = verdicts[item].score;
        ex.exec_reason = verdicts[item].reason;
        ex.exec_timeout = verdicts[item].timeout;
        ex.exec_gold_error = verdicts[item].gold_error;
        ex.exec_seconds = verdicts[item].seconds;
        ex.gold_rows = verdicts[item].gold_rows;
        ex.pred_rows = verdicts[item].pred_rows;
      }
    } else {
      // Original Spider exec (spec §1.14): one DB file, default text factory (invalid UTF-8 is an
      // error), result columns keyed by the parsed select items. Every distinct (database, SQL)
      // runs once: gold and prediction results share one memo across all systems (exec::GoldMemo; a
      // prediction equal to its gold, a gold shared by several examples, or one prediction of several
      // systems, is executed a single time), bounded by bytes so that large results are not all kept.
      exec::GoldMemo<ExecResult> results(MemoBounds{SIZE_MAX, 256u << 20}, [](const std::string& key, const ExecResult& r) {
        return key.size() + sizeof(ExecResult) + heap_bytes(r.table) + heap_bytes(r.error);
      });
      auto path_of = [&](const Example& ex) {
        return (fs::path(opt.db_dir) / ex.db_id / (ex.db_id + ".sqlite")).string();
      };
      // A prediction that does not parse has an empty select map, which can only equal the gold's
      // when the gold has no select items either: otherwise the score is 0 without executing it.
      auto hopeless = [&](size_t i) {
        const Example& ex = example_at(i);
        return !ex.pred_parsed && parsed[i].gold && !parsed[i].gold->select.empty();
      };
      SqliteOptions so;
      so.text_decode = SqliteOptions::TextDecode::Error;
      Limits lim;
      lim.timeout_s = opt.timeout_s;
      // The connection is leased only while the query runs, never while waiting for another thread's
      // computation of the same result (SqlitePool: a thread holds one lease at a time).
      auto get = [&](const std::string& path, const std::string& sql) {
        return results.get(path, sql, [&] { return SqlitePool::lease(path, so)->execute(sql, lim); });
      };
      parallel_for(
          slots.size(), jobs,
          [&](size_t i) {
            Example& ex = example_at(i);
            if (!ex.gold_ok) return;
            if (!ex.has_pred) {
              ex.exec = 0;
              ex.exec_reason = "no prediction";
              return;
            }
            if (hopeless(i)) {
              ex.exec = 0;
              ex.exec_reason = "prediction does not parse (the original metric keys results by parsed select items)";
              return;
            }
            double a = now_s();
            std::string path = path_of(ex);
            auto pr = get(path, ex.pred_sql);
            auto gr = get(path, ex.gold_sql);
            if (opt.keep_rows) {
              if (gr->ok()) ex.gold_rows = first_rows(gr->table);
              if (pr->ok()) ex.pred_rows = first_rows(pr->table);
            }
            if (!pr->ok()) {
              ex.exec = 0;
              ex.exec_timeout = pr->status == ExecStatus::Timeout;
              ex.exec_reason = std::string("prediction: ") + to_string(pr->status) + ": " + pr->error;
            } else if (!gr->ok()) {
              ex.exec = 0;
              ex.exec_gold_error = true;
              ex.exec_reason = std::string("gold: ") + to_string(gr->status) + ": " + gr->error;
            } else {
              ex.exec = spider_exec_maps_equal(*parsed[i].pred, pr->table, *parsed[i].gold, gr->table) ? 1 : 0;
              if (!ex.exec) ex.exec_reason = "results differ";
            }
            ex.exec_seconds = now_s() - a;
          },
          &progress);
    }
    progress.finish();
    for (auto& run : out) {
      size_t n_timeout = 0;
      for (const auto& ex : run.examples) {
        if (ex.exec_gold_error)
          run.warnings.push_back(opt.gold + ":" + std::to_string(ex.gold_line) + ": gold query failed on its database (" +
                                 ex.exec_reason + "); example scored 0 (the official script aborts here)");
        if (ex.exec_timeout) ++n_timeout;
      }
      if (n_timeout)
        run.warnings.push_back(std::to_string(n_timeout) + " prediction(s) hit the " + std::to_string(opt.timeout_s) +
                               " s timeout and scored 0");
    }
  }

  attach_questions(texts, out);
  const double wall = now_s() - t_start;
  for (auto& run : out) {
    aggregate(run);
    run.wall_s = wall;
  }
  return out;
}

}  // namespace sqlgrade::spider
