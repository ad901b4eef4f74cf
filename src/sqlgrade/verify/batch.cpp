// Whole runs: the matches of each system's official grading become verification items (Spider,
// BIRD, Spider 2.0-Lite sql mode), identical items of several systems are searched once, all cores,
// then counterexamples are written (and re-checked from the file) under --counterexamples DIR.
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider/test_suite.hpp"
#include "sqlgrade/bird/bench.hpp"
#include "sqlgrade/spider/bench.hpp"
#include "sqlgrade/spider2/bench.hpp"
#include "sqlgrade/spider2/run.hpp"
#include "sqlgrade/verify.hpp"
#include "sqlgrade/verify/suspect.hpp"
#include "sqlgrade/verify/verify.hpp"

namespace sqlgrade::verify {

namespace fs = std::filesystem;

namespace {

Budget budget_of(const Options& o) {
  Budget b;
  b.seed = o.seed;
  b.seconds = o.budget_s;
  b.candidates = o.candidates;
  b.rows_per_table = o.rows_per_table;
  return b;
}

// An instance to search, or a match that cannot be searched (skip_reason set).
struct Pending {
  Item item;
  std::string skip_reason;
};

// Every system's prediction for each question, as the benchmark executes it ("" = none), by question
// id (Item::id): the peers that judge a refutation (suspect.hpp).
using Peers = std::map<std::string, std::vector<std::string>>;

std::string item_key(const Item& it) {
  return it.db_path + '\0' + it.gold_sql + '\0' + it.pred_sql + '\0' + to_string(it.rule.rule) +
         (it.rule.order_matters ? "o" : "-") + (it.rule.ignore_order ? "i" : "-") + it.rule.condition_cols.dump();
}

// A folder name for a system's counterexamples: its path's last two parts, made safe.
std::string system_folder(const std::string& system, size_t k) {
  fs::path p(system);
  std::string name = p.parent_path().filename().string() + "_" + p.filename().string();
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.')) c = '_';
  return std::to_string(k + 1) + "_" + name;
}

// Writes the counterexample files of the refutations (clean and gold-suspect) of one system.
void write_files(SystemReport& rep, const std::vector<Pending>& pend, std::vector<SearchOutcome>& outs,
                 const Options& opt, size_t k) {
  const std::string dir = (fs::path(opt.counterexamples_dir) / system_folder(rep.system, k)).string();
  for (size_t i = 0; i < rep.instances.size(); ++i) {
    InstanceReport& ir = rep.instances[i];
    if (ir.status != to_string(Status::Refuted) && ir.status != to_string(Status::GoldSuspect)) continue;
    std::string stem;
    for (char c : ir.id) stem += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
    std::string err = write_counterexample(pend[i].item, outs[i], dir, stem);  // throws when it cannot write
    if (err.empty()) {
      ir.counterexample_file = (fs::path(dir) / (stem + ".sqlite")).string();
    } else {  // not re-checkable from the file: not reported
      ir.status = to_string(Status::NoCounterexample);
      ir.reason = "refutation dropped: " + err;
      ir.counterexample_json.clear();
    }
  }
}

// Every system's counterexamples; when one cannot be written, every file and folder this run wrote
// under --counterexamples is removed and the error goes on (include/sqlgrade/verify.hpp).
void write_all_files(std::vector<SystemReport>& reps, const std::vector<std::vector<Pending>>& pend,
                     std::vector<std::vector<SearchOutcome>>& outs, const Options& opt) {
  if (opt.counterexamples_dir.empty()) return;
  std::error_code ec;
  const bool root_existed = fs::exists(opt.counterexamples_dir, ec);
  try {
    for (size_t s = 0; s < reps.size(); ++s) write_files(reps[s], pend[s], outs[s], opt, s);
  } catch (...) {
    for (size_t s = 0; s < reps.size(); ++s) {
      for (const InstanceReport& ir : reps[s].instances)
        if (!ir.counterexample_file.empty()) {
          fs::remove(ir.counterexample_file, ec);
          fs::remove(fs::path(ir.counterexample_file).replace_extension(".json"), ec);
        }
      const fs::path sys = fs::path(opt.counterexamples_dir) / system_folder(reps[s].system, s);
      if (fs::is_directory(fs::symlink_status(sys, ec))) fs::remove(sys, ec);  // only if empty
    }
    if (!root_existed) fs::remove(opt.counterexamples_dir, ec);  // only if empty
    throw;
  }
}

// The counts by status name (every class, tie included when the search reports it) and the named
// totals, from the instances.
void tally(SystemReport& rep) {
  rep.statuses.clear();
  for (const InstanceReport& i : rep.instances) ++rep.statuses[i.status];
  auto count = [&](Status st) {
    auto it = rep.statuses.find(to_string(st));
    return it == rep.statuses.end() ? size_t{0} : it->second;
  };
  rep.refuted = count(Status::Refuted);
  rep.verified = count(Status::NoCounterexample);
  rep.skipped = count(Status::Skipped);
}

// Every refutation of a question judged by the other systems' predictions for it (suspect.hpp): a
// clean one becomes gold_suspect when the peer rule holds; a gold-suspect one gets the tally too.
void judge_all(std::vector<std::vector<SearchOutcome>>& per, const std::vector<std::vector<Pending>>& pend,
               const Peers& peers, const Options& opt) {
  std::vector<std::pair<size_t, size_t>> todo;
  for (size_t s = 0; s < per.size(); ++s)
    for (size_t i = 0; i < per[s].size(); ++i)
      if (per[s][i].cex && (per[s][i].status == Status::Refuted || per[s][i].status == Status::GoldSuspect))
        todo.push_back({s, i});
  const Budget b = budget_of(opt);
  parallel_for(todo.size(), resolve_jobs(opt.jobs), [&](size_t k) {
    auto [s, i] = todo[k];
    const Item& item = pend[s][i].item;
    auto q = peers.find(item.id);
    if (q == peers.end()) return;
    std::vector<std::string> others;
    for (size_t o = 0; o < q->second.size(); ++o)
      if (o != s) others.push_back(q->second[o]);
    SearchOutcome& out = per[s][i];
    const std::string why = judge_peers(item, others, b.query_timeout_s, &*out.cex);
    if (why.empty() || out.status != Status::Refuted) return;
    out.status = Status::GoldSuspect;
    out.cex->gold_suspect = why;
    out.reason = "results differ on a " + std::to_string(out.cex->rows.size()) +
                 "-row database on which the other systems side with the prediction: " + why;
  });
}

InstanceReport instance_report(const Pending& p, const SearchOutcome& o) {
  InstanceReport ir;
  ir.id = p.item.id, ir.db = p.item.db_path, ir.gold_sql = p.item.gold_sql, ir.pred_sql = p.item.pred_sql;
  ir.status = to_string(o.status);
  ir.reason = o.reason;
  ir.candidates = o.candidates;
  ir.seconds = o.seconds;
  ir.cpu_seconds = o.cpu_seconds;
  ir.time_capped = o.time_capped;
  if (o.cex) ir.counterexample_json = counterexample_json(p.item, o).dump();
  return ir;
}

// Searches every pending item of every system (identical items once), judges the refutations by the
// other systems' predictions, and fills the reports.
void search_all(std::vector<SystemReport>& reps, const std::vector<std::vector<Pending>>& pend, const Options& opt,
                const Peers& peers) {
  const auto t0 = std::chrono::steady_clock::now();
  std::map<std::string, size_t> unique_at;
  std::vector<const Item*> unique;
  std::vector<std::vector<size_t>> slot(pend.size());
  for (size_t s = 0; s < pend.size(); ++s)
    for (const Pending& p : pend[s]) {
      if (!p.skip_reason.empty()) { slot[s].push_back(SIZE_MAX); continue; }
      auto [it, fresh] = unique_at.emplace(item_key(p.item), unique.size());
      if (fresh) unique.push_back(&p.item);
      slot[s].push_back(it->second);
    }
  std::vector<SearchOutcome> outs(unique.size());
  const Budget b = budget_of(opt);
  const unsigned threads = resolve_jobs(opt.jobs);
  Progress progress("verify", unique.size(), opt.progress);
  parallel_for(unique.size(), threads, [&](size_t i) { outs[i] = verify(*unique[i], b); }, &progress);
  progress.finish();
  double pass_cpu = 0;
  for (const SearchOutcome& o : outs) pass_cpu += o.cpu_seconds;
  std::vector<std::vector<SearchOutcome>> per(pend.size());
  for (size_t s = 0; s < pend.size(); ++s)
    for (size_t i = 0; i < pend[s].size(); ++i) {
      SearchOutcome o;
      if (slot[s][i] == SIZE_MAX) o.status = Status::Skipped, o.reason = pend[s][i].skip_reason;
      else o = outs[slot[s][i]];
      per[s].push_back(std::move(o));
    }
  judge_all(per, pend, peers, opt);
  for (size_t s = 0; s < reps.size(); ++s) {
    SystemReport& rep = reps[s];
    for (size_t i = 0; i < pend[s].size(); ++i) {
      const SearchOutcome& o = per[s][i];
      rep.candidates += o.candidates;
      rep.time_capped += o.time_capped;
      rep.seconds += o.seconds;
      rep.cpu_s += o.cpu_seconds;
      rep.instances.push_back(instance_report(pend[s][i], o));
    }
  }
  write_all_files(reps, pend, per, opt);
  for (SystemReport& rep : reps) tally(rep);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (SystemReport& rep : reps) rep.wall_s = wall, rep.pass_cpu_s = pass_cpu, rep.threads = static_cast<int>(threads);
}

}  // namespace

std::vector<SystemReport> verify_spider(const std::vector<spider::Run>& runs, const std::vector<std::string>& systems,
                                        const Options& opt) {
  // The search reads SQL's clock where the runs did (their --now; core/clock.hpp).
  const sql_clock::ClockScope clock(runs.empty() ? std::string() : runs[0].opt.now, "--now");
  std::vector<SystemReport> reps(runs.size());
  std::vector<std::vector<Pending>> pend(runs.size());
  Peers peers;
  for (size_t s = 0; s < runs.size(); ++s) {
    const spider::Run& run = runs[s];
    if (run.opt.compat != spider::Compat::TestSuite)
      throw InputError("--verify", "verification follows the test-suite rule; use --compat test-suite");
    reps[s].system = s < systems.size() ? systems[s] : run.opt.pred;
    reps[s].benchmark = "spider";
    for (const spider::Example& e : run.examples) {
      if (!e.gold_ok || !e.exec) continue;
      ++reps[s].total;
      Pending p;  // the queries as the test-suite evaluator executes them (spider::benchmark())
      spider::benchmark().search_item({e.gold_sql, e.pred_sql, run.opt.keep_distinct}, p.item);
      auto& peer = peers[std::to_string(e.index)];
      peer.resize(runs.size());
      peer[s] = p.item.pred_sql;
      if (!e.exec->match()) continue;
      ++reps[s].ex;
      p.item.id = std::to_string(e.index);
      p.item.db_path = spider::benchmark().database(run.opt.db_dir, e.db_id);
      if (run.opt.plug_value) p.skip_reason = "--plug_value matches are not searched (the matching candidate is not kept)";
      pend[s].push_back(std::move(p));
    }
  }
  search_all(reps, pend, opt, peers);
  return reps;
}

std::vector<SystemReport> verify_bird(const std::vector<bird::Run>& runs, const std::vector<std::string>& systems,
                                      const Options& opt) {
  // The search reads SQL's clock where the runs did (their --now; core/clock.hpp).
  const sql_clock::ClockScope clock(runs.empty() ? std::string() : runs[0].opt.now, "--now");
  std::vector<SystemReport> reps(runs.size());
  std::vector<std::vector<Pending>> pend(runs.size());
  Peers peers;
  for (size_t s = 0; s < runs.size(); ++s) {
    const bird::Run& run = runs[s];
    reps[s].system = s < systems.size() ? systems[s] : run.opt.pred;
    reps[s].benchmark = "bird";
    for (const bird::Instance& it : run.items) {
      ++reps[s].total;
      const std::string id = it.id.empty() ? std::to_string(it.index) : it.id;  // the run record's id (bird/record.cpp)
      auto& peer = peers[id];
      peer.resize(runs.size());
      peer[s] = it.pred_sql;
      if (!it.outcome.match()) continue;
      ++reps[s].ex;
      Pending p;
      p.item.id = id;
      p.item.db_path = bird::benchmark().database(run.opt.db_dir, it.db_id);
      bird::benchmark().search_item({it.gold_sql, it.pred_sql}, p.item);
      pend[s].push_back(std::move(p));
    }
  }
  search_all(reps, pend, opt, peers);
  return reps;
}

namespace {
// A Spider 2.0-Lite match can be searched only with the public gold SQL (<gold_dir>/sql/<id>.sql),
// and only when that SQL and the prediction agree on the local database (the gold CSV decided the
// official match; the rebuilt databases do not reproduce every CSV).
Pending spider2_pending(const spider2::Run& run, const spider2::Instance& it, const std::map<std::string, spider2::EvalEntry>& entries,
                        const std::vector<std::string>& listing) {
  const spider2::Options& o = run.opt;
  Pending p;
  p.item.id = it.instance_id;
  p.item.pred_sql = it.pred_sql.value_or("");
  const std::string db_dir = o.db_dir.empty() ? spider2::default_db_dir(o) : o.db_dir;
  p.item.db_path = spider2::benchmark().database(db_dir, it.db.value_or("?"));
  const fs::path gold_sql = fs::path(o.gold_dir) / "sql" / (it.instance_id + ".sql");
  std::error_code ec;
  if (!fs::is_regular_file(gold_sql, ec)) return p.skip_reason = "no public gold SQL (" + gold_sql.string() + ")", p;
  p.item.gold_sql = answer::spider2_sql_block(read_file(gold_sql));
  auto e = entries.find(it.instance_id);
  if (e == entries.end()) return p.skip_reason = "no eval entry", p;
  auto files = spider2::resolve_gold_files((fs::path(o.gold_dir) / "exec_result").string(), it.instance_id, listing);
  nlohmann::json cc = e->second.condition_cols;
  if (!files.single) {
    auto resolved = spider2::resolve_condition_cols(cc, std::max<size_t>(files.paths.size(), 1));
    if (resolved.empty() || !resolved[0]) return p.skip_reason = "condition_cols cannot be resolved", p;
    cc = *resolved[0];
  }
  p.item.rule = {Rule::Spider2Columns, false, cc, e->second.ignore_order};
  try {
    SqliteDb db(p.item.db_path);
    Limits lim{o.timeout_s, 1'000'000, 512u << 20};
    ExecResult g = db.execute(p.item.gold_sql, lim), q = db.execute(p.item.pred_sql, lim);
    if (!g.ok() || !q.ok() || !same_result(p.item.rule, g.table, q.table))
      p.skip_reason = "the public gold SQL and the prediction differ on the local database (the gold CSV decided the match)";
  } catch (const std::exception& ex) {
    p.skip_reason = std::string("database: ") + first_line(ex.what());
  }
  return p;
}
}  // namespace

std::vector<SystemReport> verify_spider2(const std::vector<spider2::Run>& runs, const Options& opt) {
  // The search reads SQL's clock where the runs did (their --now; core/clock.hpp).
  const sql_clock::ClockScope clock(runs.empty() ? std::string() : runs[0].opt.now, "--now");
  std::vector<SystemReport> reps(runs.size());
  std::vector<std::vector<Pending>> pend(runs.size());
  Peers peers;
  for (size_t s = 0; s < runs.size(); ++s) {
    const spider2::Run& run = runs[s];
    if (run.opt.mode != spider2::Mode::Sql) throw InputError("--verify", "verification needs --mode sql");
    reps[s].system = run.opt.result_dir;
    reps[s].benchmark = "spider2";
    const auto entries = spider2::load_eval_jsonl((fs::path(run.opt.gold_dir) / "spider2lite_eval.jsonl").string());
    const auto listing = spider2::sorted_listing((fs::path(run.opt.gold_dir) / "exec_result").string(), "gold exec_result");
    for (const spider2::Instance& it : run.items) {
      ++reps[s].total;
      auto& peer = peers[it.instance_id];
      peer.resize(runs.size());
      peer[s] = it.pred_sql.value_or("");
      if (!it.outcome.match()) continue;
      ++reps[s].ex;
      pend[s].push_back(spider2_pending(run, it, entries, listing));
    }
  }
  search_all(reps, pend, opt, peers);
  return reps;
}

void check_verifiable(const spider::Options& opt, bool both_modes) {
  if (opt.etype == spider::Etype::Match || both_modes || opt.compat != spider::Compat::TestSuite)
    throw InputError("--verify", "needs execution under the test-suite rule (--etype exec or all, --compat test-suite)");
}

void check_verifiable(const bird::Options& opt) {
  if (opt.metric != bird::Metric::Ex) throw InputError("--verify", "needs --metric ex");
  if (opt.sql_dialect != "SQLite")
    throw InputError("--verify", "the counterexample search builds SQLite databases: it is not available with "
                                 "--sql_dialect " + opt.sql_dialect + " (grade without --verify; docs/verify.md)");
}

void check_verifiable(const spider2::Options& opt) {
  if (opt.mode != spider2::Mode::Sql) throw InputError("--verify", "needs --mode sql");
}

}  // namespace sqlgrade::verify
