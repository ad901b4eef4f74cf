// `sqlgrade audit`: gold queries that fail, golds whose result depends on scan order (ties at an
// ORDER BY ... LIMIT boundary, a subquery's too, LIMIT without ORDER BY, unordered GROUP BY picks), the predictions
// graded against them, and the scoreable-vs-nominal denominators (docs/verify.md "Audit").
// Nondeterminism is detected by running the gold on its database twice, the second time with unordered
// scans reversed (PRAGMA reverse_unordered_selects, which only the engine itself may set on a read-only
// connection: ReversedScans), and comparing the two results with the benchmark's rule. The database is
// read through the engine's pooled read-only connection, never copied (issue 31: a whole in-memory copy
// per database and thread cost 4 x 121 MiB -> 1,072 MiB with --jobs 2).
#include <filesystem>
#include <cstring>
#include <map>
#include <optional>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/core/clock.hpp"
#include "sqlgrade/core/fs.hpp"
#include "sqlgrade/core/parallel.hpp"
#include "sqlgrade/core/text.hpp"
#include "sqlgrade/engine/sqlite.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider/sqlparse.hpp"
#include "sqlgrade/spider/test_suite.hpp"
#include "sqlgrade/bird/inputs.hpp"
#include "sqlgrade/spider/inputs.hpp"
#include "sqlgrade/bird/bench.hpp"
#include "sqlgrade/spider/bench.hpp"
#include "sqlgrade/spider2/bench.hpp"
#include "sqlgrade/spider2/run.hpp"
#include "sqlgrade/verify.hpp"
#include "sqlgrade/verify/audit_clock.hpp"
#include "sqlgrade/verify/ties.hpp"
#include "sqlgrade/verify/witness.hpp"
#include "sqlgrade/verify/verify.hpp"
#include "sqlgrade/verify/witness.hpp"
#include "sqlgrade/py/number.hpp"

namespace sqlgrade::verify {

namespace fs = std::filesystem;

namespace {

// The nondeterminism check's tolerance: reals equal to this many significant digits are the same.
constexpr int kAuditDigits = kFloatDigits;  // witness.hpp float_noise

struct Gold {
  std::string id, db_path, sql;
  RuleSpec rule;
  std::map<std::string, int> verdicts;  // system -> score of its prediction for this gold
};

// The gold's final `ORDER BY e1, e2 LIMIT n [OFFSET m]` (top level, no compound select): the query
// with the LIMIT dropped and the ORDER BY terms appended to the select list, and the boundary rows.
struct LimitProbe {
  std::string sql;
  size_t offset = 0, count = 0;
};
std::optional<LimitProbe> limit_probe(const std::string& sql) {
  using spider::sqlparse::TokType;
  const auto toks = spider::sqlparse::tokenize(sql);
  int depth = 0;
  size_t from = SIZE_MAX, order_end = SIZE_MAX, limit = SIZE_MAX;
  std::vector<size_t> commas;
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string t = to_lower(collapse_ws(std::string(toks[i].text())));
    const size_t at = static_cast<size_t>(toks[i].ptr - sql.data());
    if (t == "(") ++depth;
    if (t == ")") --depth;
    if (depth != 0) continue;
    if (t == "union" || t == "intersect" || t == "except" || t == "union all") return std::nullopt;
    if (t == "from" && from == SIZE_MAX) from = at;
    if (t == "order by") order_end = at + toks[i].len, commas.clear(), limit = SIZE_MAX;
    if (t == "," && order_end != SIZE_MAX && limit == SIZE_MAX) commas.push_back(at);
    if (t == "limit" && order_end != SIZE_MAX) limit = at;
  }
  if (from == SIZE_MAX || order_end == SIZE_MAX || limit == SIZE_MAX) return std::nullopt;
  std::vector<long long> nums;  // LIMIT n | LIMIT n OFFSET m | LIMIT m, n
  for (const auto& tk : toks)
    if (static_cast<size_t>(tk.ptr - sql.data()) > limit && tk.type == TokType::Number)
      if (auto v = py::parse_int(tk.text())) nums.push_back(*v);
  if (nums.empty() || nums.size() > 2) return std::nullopt;
  const bool comma_form = sql.find(',', limit) != std::string::npos;
  LimitProbe p;
  p.count = static_cast<size_t>(nums.size() == 2 && comma_form ? nums[1] : nums[0]);
  p.offset = static_cast<size_t>(nums.size() == 2 ? (comma_form ? nums[0] : nums[1]) : 0);
  std::string keys;
  size_t start = order_end;
  commas.push_back(limit);
  for (size_t c : commas) {
    std::string term = trim(sql.substr(start, c - start));
    for (const char* dir : {" asc", " desc"})
      if (term.size() > std::strlen(dir) && iequals(term.substr(term.size() - std::strlen(dir)), dir))
        term = trim(term.substr(0, term.size() - std::strlen(dir)));
    keys += ", " + term;
    start = c + 1;
  }
  p.sql = sql.substr(0, from) + keys + " " + sql.substr(from, limit - from);
  return p;
}

// Rows offset+count-1 and offset+count tie on every ORDER BY key: which rows LIMIT keeps is arbitrary.
bool ties_at_limit(const std::string& db_path, const std::string& sql, size_t width, const Limits& lim) {
  auto p = limit_probe(sql);
  if (!p || p->count == 0) return false;
  ExecResult r = SqlitePool::lease(db_path)->execute(p->sql, lim);
  const size_t last = p->offset + p->count - 1;
  if (!r.ok() || r.table.rows.size() <= last + 1 || r.table.width() <= width) return false;
  for (size_t c = width; c < r.table.width(); ++c)
    if (!(r.table.rows[last][c] == r.table.rows[last + 1][c])) return false;
  return true;
}

// Ties the top-level probe above does not see — a subquery's ORDER BY ... LIMIT cut, LIMIT without
// ORDER BY, tied rows a sorted result may give in another order — through the tie-break variants of
// ties.hpp on the benchmark database (the rule of the verifier's search, issue 30 item 1): "" or why.
std::string tie_dependence(const Gold& g, const Table& result, const Limits& lim) {
  auto db = SqlitePool::lease(g.db_path);
  const TieVariants v = tie_variants(g.sql, [&](const std::string& sql) { return db->execute(sql, lim); });
  auto moves = [&](const Table& a, const Table& b) { return !same_result(g.rule, a, b) && !float_noise(g.rule, a, b); };
  for (const auto& [asc, desc] : v.subqueries) {
    ExecResult a = db->execute(asc, lim), d = db->execute(desc, lim);
    if (a.ok() && d.ok() && !spider::result_eq(a.table, d.table, false))
      return "ties at a subquery's ORDER BY ... LIMIT cut: the rows it keeps are an arbitrary choice among equals";
  }
  for (const std::string* sql : {&v.asc, &v.desc}) {
    if (sql->empty()) continue;
    ExecResult r = db->execute(*sql, lim);
    if (r.ok() && moves(result, r.table))
      return "ties under ORDER BY (at a LIMIT cut, or rows tied on the sort keys whose order the benchmark's rule "
             "compares) or a LIMIT without ORDER BY: another tie-break gives a different result under the benchmark's rule";
  }
  return "";
}

// One gold: "" when fine, else the finding's kind with its detail.
std::pair<std::string, std::string> check_gold(const Gold& g, const AuditOptions& opt) {
  Limits lim{opt.timeout_s, opt.max_rows, opt.max_result_bytes};
  ExecResult r;
  const uint64_t clock_reads = sql_clock::reads();
  try {
    r = SqlitePool::lease(g.db_path)->execute(g.sql, lim);
  } catch (const std::exception& e) {
    return {"gold_fails", first_line(e.what())};
  }
  if (!r.ok()) return {"gold_fails", std::string(to_string(r.status)) + ": " + r.error};
  if (sql_clock::reads() != clock_reads)  // the gold read the clock: does its result depend on the day?
    if (std::string d = clock_dependence(g.db_path, g.sql, g.rule, lim); !d.empty()) return {"clock_dependent", d};
  if (ties_at_limit(g.db_path, g.sql, r.table.width(), lim))
    return {"nondeterministic", "ties at the ORDER BY ... LIMIT boundary: the rows kept are an arbitrary choice among equals"};
  ExecResult rev;
  {
    auto db = SqlitePool::lease(g.db_path);
    ReversedScans reversed(*db);
    rev = db->execute(g.sql, lim);
  }
  // Reals are compared to kAuditDigits significant digits: avg()/sum() over rows read in another order
  // may differ in the last bit (28.862318840579714 vs 28.86231884057971), which no rule should see.
  if (rev.ok() && !same_result(g.rule, r.table, rev.table) && !float_noise(g.rule, r.table, rev.table)) {
    std::string lower = to_lower(g.sql);
    std::string why = lower.find("limit") == std::string::npos ? "row order differs under reversed scans"
                      : lower.find("order by") == std::string::npos ? "LIMIT without ORDER BY"
                                                                     : "ties at the ORDER BY ... LIMIT boundary";
    return {"nondeterministic", why + ": another scan order gives a different result under the benchmark's rule"};
  }
  if (std::string why = tie_dependence(g, r.table, lim); !why.empty()) return {"nondeterministic", why};
  return {"", ""};
}

void run_checks(AuditReport& rep, std::vector<Gold>& golds, const AuditOptions& opt) {
  std::vector<std::pair<std::string, std::string>> res(golds.size());
  parallel_for(golds.size(), resolve_jobs(opt.jobs), [&](size_t i) { res[i] = check_gold(golds[i], opt); });
  rep.golds_checked = golds.size();
  size_t failing = 0;
  for (size_t i = 0; i < golds.size(); ++i) {
    if (res[i].first.empty()) continue;
    failing += res[i].first == "gold_fails";
    AuditFinding f{golds[i].id, golds[i].db_path, golds[i].sql, res[i].first, res[i].second, {}};
    for (const auto& [sys, score] : golds[i].verdicts)
      f.predictions.push_back(sys + (score < 0 ? ": not graded" : ": scored " + std::to_string(score)));
    rep.findings.push_back(std::move(f));
  }
  if (rep.scoreable == 0) rep.scoreable = rep.nominal - failing;
}

// --verify: the questions on which some system's refutation shows the gold's own bug (suspect.hpp),
// one finding each, with every verified system's status for it.
void add_gold_suspects(AuditReport& rep, const std::vector<Gold>& golds, const std::vector<SystemReport>& reps) {
  std::map<std::string, std::vector<std::string>> status;  // question id -> "<system>: <status>"
  std::map<std::string, std::string> why;
  for (const SystemReport& r : reps)
    for (const InstanceReport& i : r.instances) {
      status[i.id].push_back(r.system + ": " + i.status);
      if (i.status == "gold_suspect" && !why.count(i.id)) why[i.id] = i.reason;
    }
  size_t n = 0;
  for (const Gold& g : golds) {
    auto w = why.find(g.id);
    if (w == why.end()) continue;
    ++n;
    rep.findings.push_back({g.id, g.db_path, g.sql, "gold_suspect", w->second, status[g.id]});
  }
  rep.notes.push_back("verified " + std::to_string(reps.size()) + " system(s): " + std::to_string(n) +
                      " question(s) with a gold-suspect refutation (docs/verify.md, \"Gold-suspect refutations\")");
}

AuditReport audit_spider(const AuditOptions& opt) {
  spider::Options so;
  so.gold = opt.gold;
  so.db_dir = opt.db_dir;
  so.table = opt.table;
  so.etype = spider::Etype::Exec;
  so.jobs = opt.jobs;
  so.progress = 0;
  so.timeout_s = opt.timeout_s;
  so.max_rows = opt.max_rows;
  so.max_result_bytes = opt.max_result_bytes;
  so.now = opt.now;
  // Without predictions the gold file grades itself: its reader and its rewrites are the benchmark's.
  std::vector<std::string> preds = opt.preds.empty() ? std::vector<std::string>{opt.gold} : opt.preds;
  so.pred = preds[0];
  auto runs = spider::evaluate_many(so, preds);
  AuditReport rep;
  rep.benchmark = "spider";
  std::vector<Gold> golds;
  for (const auto& e : runs[0].examples) {
    ++rep.nominal;
    SearchItem q;  // the gold as the test-suite evaluator executes it (spider::benchmark())
    spider::benchmark().search_item({e.gold_sql, e.gold_sql}, q);
    Gold g{std::to_string(e.index), spider::benchmark().database(opt.db_dir, e.db_id), q.gold_sql, q.rule, {}};
    if (!opt.preds.empty())
      for (size_t s = 0; s < runs.size(); ++s) g.verdicts[preds[s]] = runs[s].examples[golds.size()].exec_score();
    golds.push_back(std::move(g));
  }
  run_checks(rep, golds, opt);
  rep.notes.push_back("nominal = questions in the gold file; scoreable = golds that execute on their database");
  if (opt.verify) add_gold_suspects(rep, golds, verify_spider(runs, preds, opt.verify_options));
  return rep;
}

AuditReport audit_bird(const AuditOptions& opt) {
  if (opt.preds.empty()) throw InputError("audit", "--pred (a BIRD prediction JSON) is needed for --benchmark bird");
  bird::Options bo;
  bo.pred = opt.preds[0];
  bo.gold = opt.bird_gold;
  bo.db_dir = opt.bird_db_root;
  bo.diff_json = opt.bird_diff;
  bo.jobs = opt.jobs;
  bo.progress = 0;
  bo.timeout_s = opt.timeout_s;
  bo.max_rows = opt.max_rows;
  bo.max_result_bytes = opt.max_result_bytes;
  bo.now = opt.now;
  auto runs = bird::evaluate_many(bo, opt.preds);
  AuditReport rep;
  rep.benchmark = "bird";
  std::vector<Gold> golds;
  for (size_t i = 0; i < runs[0].items.size(); ++i) {
    const auto& it = runs[0].items[i];
    ++rep.nominal;
    SearchItem q;
    bird::benchmark().search_item({it.gold_sql, it.gold_sql}, q);
    Gold g{it.id.empty() ? std::to_string(it.index) : it.id, bird::benchmark().database(opt.bird_db_root, it.db_id),
           q.gold_sql, q.rule, {}};
    for (size_t s = 0; s < runs.size(); ++s) g.verdicts[opt.preds[s]] = runs[s].items[i].outcome.match() ? 1 : 0;
    golds.push_back(std::move(g));
  }
  run_checks(rep, golds, opt);
  rep.notes.push_back("nominal = questions in the gold file; scoreable = golds that execute on their database");
  if (opt.verify) add_gold_suspects(rep, golds, verify_bird(runs, opt.preds, opt.verify_options));
  return rep;
}

AuditReport audit_spider2(const AuditOptions& opt) {
  AuditReport rep;
  rep.benchmark = "spider2";
  rep.nominal = static_cast<size_t>(spider2::kRealTotal);
  spider2::Options so;
  so.gold_dir = opt.spider2_gold_dir;
  so.db_dir = opt.spider2_db_dir;
  so.meta = opt.spider2_meta;
  const auto entries = spider2::load_eval_jsonl((fs::path(so.gold_dir) / "spider2lite_eval.jsonl").string());
  const auto dbs = spider2::load_db_map(so.meta.empty() ? spider2::default_meta_path(so) : so.meta);
  const std::string db_dir = so.db_dir.empty() ? spider2::default_db_dir(so) : so.db_dir;
  size_t local = 0, with_db = 0;
  std::vector<Gold> golds;
  for (const auto& [id, e] : entries) {
    if (!spider2::is_local(id)) continue;
    ++local;
    auto d = dbs.find(id);
    std::error_code ec;
    const std::string path = d == dbs.end() ? "" : spider2::benchmark().database(db_dir, d->second);
    if (path.empty() || !fs::is_regular_file(path, ec)) continue;
    ++with_db;
    const fs::path sql = fs::path(so.gold_dir) / "sql" / (id + ".sql");
    if (fs::is_regular_file(sql, ec))
      golds.push_back({id, path, answer::spider2_sql_block(read_file(sql)),
                       {Rule::Spider2Columns, false, e.condition_cols, e.ignore_order}, {}});
  }
  rep.scoreable = with_db;
  rep.notes.push_back("nominal = 547, the official 'Real score' denominator (hard-coded in evaluate.py)");
  rep.notes.push_back(std::to_string(entries.size()) + " ids in spider2lite_eval.jsonl, " + std::to_string(local) +
                      " local (SQLite) ids; bq*/ga*/sf* need BigQuery or Snowflake and cannot run here");
  rep.notes.push_back(std::to_string(with_db) + " local ids have their database here (scoreable in sql mode); " +
                      std::to_string(golds.size()) + " have a public gold SQL that the audit executes");
  run_checks(rep, golds, opt);
  rep.scoreable = with_db;
  return rep;
}

std::vector<IoPath> spider_inputs(const AuditOptions& opt) {
  spider::Options so;
  so.gold = opt.gold, so.db_dir = opt.db_dir, so.table = opt.table;
  return spider::run_inputs(so, opt.preds);
}

std::vector<IoPath> bird_inputs(const AuditOptions& opt) {
  bird::Options bo;
  bo.gold = opt.bird_gold, bo.db_dir = opt.bird_db_root, bo.diff_json = opt.bird_diff;
  return bird::run_inputs(bo, opt.preds);
}

std::vector<IoPath> spider2_inputs(const AuditOptions& opt) {
  spider2::Options so;
  so.gold_dir = opt.spider2_gold_dir, so.db_dir = opt.spider2_db_dir, so.meta = opt.spider2_meta;
  return spider2::run_inputs(so, opt.preds);
}

// The audit of each benchmark, found once by its Benchmark (no name compared anywhere else here).
struct Route {
  const Benchmark& bench;
  AuditReport (*audit)(const AuditOptions&);
  std::vector<IoPath> (*inputs)(const AuditOptions&);
  bool verifies;  // --verify searches its predictions
};

const Route& route_of(const std::string& name) {
  static const Route routes[] = {{spider::benchmark(), audit_spider, spider_inputs, true},
                                 {bird::benchmark(), audit_bird, bird_inputs, true},
                                 {spider2::benchmark(), audit_spider2, spider2_inputs, false}};
  for (const Route& r : routes)
    if (name == r.bench.name()) return r;
  throw InputError("--benchmark", "expected spider, bird or spider2, got '" + name + "'");
}

}  // namespace

AuditReport audit(const AuditOptions& opt) {
  const sql_clock::ClockScope clock(opt.now, "--now");
  const Route& route = route_of(opt.benchmark);
  if (opt.verify && (opt.preds.empty() || !route.verifies))
    throw InputError("--verify", "audit verifies the predictions given with --pred (spider, bird)");
  return route.audit(opt);
}

std::vector<IoPath> audit_inputs(const AuditOptions& opt) { return route_of(opt.benchmark).inputs(opt); }

std::string render_audit_text(const AuditReport& r) {
  std::string out = "gold audit (" + r.benchmark + "): " + std::to_string(r.golds_checked) + " gold queries checked\n";
  out += "  denominators  nominal " + std::to_string(r.nominal) + ", scoreable here " + std::to_string(r.scoreable) + "\n";
  for (const auto& n : r.notes) out += "  note          " + n + "\n";
  out += "  note          nondeterministic: the gold's result under reversed scans differs under the benchmark's rule "
         "with reals compared to " + std::to_string(kAuditDigits) + " significant digits\n";
  std::map<std::string, size_t> n;
  for (const auto& f : r.findings) ++n[f.kind];
  out += "  gold fails    " + std::to_string(n["gold_fails"]) + "\n  nondeterministic " + std::to_string(n["nondeterministic"]) + "\n";
  out += "  clock-dependent " + std::to_string(n["clock_dependent"]) + "\n";
  if (n.count("gold_suspect")) out += "  gold suspect  " + std::to_string(n["gold_suspect"]) + "\n";
  for (const auto& f : r.findings) {
    out += "  [" + f.kind + "] " + f.id + " (" + fs::path(f.db).filename().string() + "): " + f.detail + "\n";
    out += "      gold: " + collapse_ws(f.gold_sql) + "\n";
    for (const auto& p : f.predictions) out += "      " + p + "\n";
  }
  return out;
}

std::string render_audit_json(const AuditReport& r) {
  nlohmann::json f = nlohmann::json::array();
  for (const auto& x : r.findings)
    f.push_back({{"id", x.id}, {"db", x.db}, {"gold_sql", x.gold_sql}, {"kind", x.kind}, {"detail", x.detail},
                 {"predictions", x.predictions}});
  nlohmann::json j{{"benchmark", r.benchmark}, {"nominal", r.nominal}, {"scoreable", r.scoreable},
                   {"notes", r.notes}, {"golds_checked", r.golds_checked}, {"float_digits", kAuditDigits}, {"findings", f}};
  return j.dump(2) + "\n";
}

}  // namespace sqlgrade::verify
