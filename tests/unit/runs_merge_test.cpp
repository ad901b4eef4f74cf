// Shards and `sqlgrade merge`: a run split with shard_of and merged back has the summary of the
// whole run (generic summarizer and a registered one); every inconsistency is refused.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "runs_support.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/merge.hpp"
#include "sqlgrade/runs/summary.hpp"

using namespace sqlgrade;
using namespace sqlgrade::runs;
using namespace sqlgrade::test;

namespace {

RunRecord full_run(size_t n = 301) {
  RunRecord r = base_run("sys");
  std::mt19937 g(11);
  const char* h[] = {"easy", "medium", "hard"};
  for (size_t i = 0; i < n; ++i) {
    Instance in = inst("q" + std::to_string(i), g() % 3 ? 1 : 0, (g() % 1000) / 1000.0, h[g() % 3]);
    if (i % 7 == 0) in.scores.pop_back();  // some instances not graded on f1
    r.instances.push_back(std::move(in));
  }
  std::sort(r.instances.begin(), r.instances.end(), [](const Instance& a, const Instance& b) { return id_less(a.id, b.id); });
  SummaryOut s = summarize(r);
  r.summary = s.summary;
  r.summary_text = s.text;
  return r;
}

std::vector<MergeInput> split(const RunRecord& r, int n) {
  std::vector<MergeInput> parts;
  for (int i = 1; i <= n; ++i) parts.push_back(MergeInput{"part" + std::to_string(i) + ".json", shard_subset(r, Shard{i, n}), ""});
  return parts;
}

std::string error_of(const std::vector<MergeInput>& parts) {
  try {
    merge_runs(parts, {"sqlgrade", "merge"});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(RunsMerge, GenericSummaryOfMergedShardsEqualsTheWholeRun) {
  const RunRecord whole = full_run();
  EXPECT_EQ(whole.summary["generic"], true);
  EXPECT_EQ(whole.summary["count"], 301);
  // Means checked by hand-rolled sums, not by the summarizer itself.
  double sum = 0;
  size_t n = 0;
  for (const auto& in : whole.instances)
    if (const double* v = in.score("f1")) sum += *v, ++n;
  EXPECT_EQ(whole.summary["metrics"]["f1"]["n"], n);
  EXPECT_DOUBLE_EQ(whole.summary["metrics"]["f1"]["mean"].get<double>(), sum / static_cast<double>(n));
  EXPECT_LT(n, 301u);

  auto parts = split(whole, 4);
  size_t total = 0;
  for (const auto& p : parts) {
    EXPECT_GT(p.run.instances.size(), 40u);
    EXPECT_NE(p.run.summary, whole.summary);
    total += p.run.instances.size();
  }
  EXPECT_EQ(total, whole.instances.size());
  std::swap(parts[0], parts[2]);  // order of the parts does not matter
  RunRecord merged = merge_runs(parts, {"sqlgrade", "merge"});
  EXPECT_EQ(merged.summary, whole.summary);
  EXPECT_EQ(merged.summary_text, whole.summary_text);
  ASSERT_EQ(merged.instances.size(), whole.instances.size());
  for (size_t i = 0; i < merged.instances.size(); ++i) EXPECT_EQ(merged.instances[i].id, whole.instances[i].id);
  EXPECT_FALSE(merged.shard);
  ASSERT_EQ(merged.merged_from.size(), 4u);
  EXPECT_EQ(merged.merged_from[0].shard, (Shard{1, 4}));
  EXPECT_DOUBLE_EQ(merged.wall_s, 4 * whole.wall_s);
  EXPECT_EQ(merged.command, (std::vector<std::string>{"sqlgrade", "merge"}));
}

TEST(RunsMerge, RegisteredSummarizerIsUsed) {
  register_summarizer("toy-count", [](const RunRecord& r) {
    SummaryOut s;
    size_t right = 0;
    for (const auto& in : r.instances) right += in.score("exec") && *in.score("exec") == 1;
    s.summary = Json{{"right", right}, {"of", r.instances.size()}};
    s.text = std::to_string(right) + "/" + std::to_string(r.instances.size()) + "\n";
    return s;
  });
  EXPECT_TRUE(has_summarizer("toy-count"));
  RunRecord whole = full_run(120);
  whole.benchmark = "toy-count";
  size_t right = 0;
  for (const auto& in : whole.instances) right += *in.score("exec") == 1;
  RunRecord merged = merge_runs(split(whole, 3), {"m"});
  EXPECT_EQ(merged.summary, (Json{{"right", right}, {"of", 120}}));
  EXPECT_EQ(*merged.summary_text, std::to_string(right) + "/120\n");
}

TEST(RunsMerge, RefusesInconsistentParts) {
  const RunRecord whole = full_run(60);
  {
    auto parts = split(whole, 3);
    parts.pop_back();
    EXPECT_EQ(error_of(parts), "merge: shard(s) missing: 3/3 (2 of 3 given)");
  }
  {
    auto parts = split(whole, 3);
    parts[2] = parts[1];
    parts[2].file = "again.json";
    EXPECT_EQ(error_of(parts), "again.json: shard 2/3 is also part2.json");
  }
  {
    auto parts = split(whole, 3);
    parts[1].run.options["compat"] = "other";
    EXPECT_EQ(error_of(parts), "part2.json: the options differs from part1.json's; merge combines shards of one run");
  }
  {
    auto parts = split(whole, 3);
    parts[1].run.inputs[0].sha256 = std::string(64, 'f');
    EXPECT_EQ(error_of(parts), "part2.json: gold input \"gold\" differs from part1.json's; merge combines shards of one run");
  }
  {
    auto parts = split(whole, 3);
    parts[1].run.inputs[1].sha256 = std::string(64, 'f');  // each shard may have its own prediction file
    EXPECT_EQ(error_of(parts), "");
  }
  {
    auto parts = split(whole, 3);
    parts[0].run.instances.push_back(parts[1].run.instances.front());
    const std::string id = parts[1].run.instances.front().id;
    EXPECT_EQ(error_of(parts), "part1.json: instance \"" + id + "\" belongs to shard 2/3, not 1/3");
  }
  {
    auto parts = split(whole, 3);
    parts[1].run.shard.reset();
    EXPECT_EQ(error_of(parts), "part2.json: has no \"shard\"; merge combines the parts of one run graded with --shard i/n");
  }
  {
    auto parts = split(whole, 3);
    parts[2].run.shard = Shard{3, 4};
    EXPECT_EQ(error_of(parts), "part3.json: is shard 3/4 but part1.json is one of 3");
  }
  {
    auto parts = split(whole, 3);
    parts[0].run.metrics[1].kind = MetricKind::Binary;
    EXPECT_EQ(error_of(parts), "part2.json: the metrics differs from part1.json's; merge combines shards of one run");
  }
}

TEST(RunsMerge, CliWritesAValidRecord) {
  TempDir t;
  const RunRecord whole = full_run(80);
  std::vector<std::string> args{"merge"};
  for (const auto& p : split(whole, 2)) args.push_back(write_run(t, p.file, p.run));
  args.insert(args.end(), {"-o", (t / "merged.json").string()});
  CliResult r = run_cli(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, *whole.summary_text);
  EXPECT_NE(r.err.find("merged 2 shards, 80 instances"), std::string::npos);
  RunRecord m = read_run_record((t / "merged.json").string());
  EXPECT_EQ(m.summary, whole.summary);
  EXPECT_EQ(m.merged_from.size(), 2u);
  EXPECT_EQ(m.merged_from[0].sha256.size(), 64u);
  EXPECT_EQ(m.command.front(), SQLGRADE_CLI);
  EXPECT_EQ(m.command[1], "merge");

  CliResult bad = run_cli({"merge", (t / "part1.json").string(), "-o", (t / "x.json").string()});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(bad.err, "sqlgrade: merge: shard(s) missing: 2/2 (1 of 2 given)\n");
  EXPECT_FALSE(fs::exists(t / "x.json"));
}

// --shard-by db: a shard holds whole databases (instances of 12 databases, "db" category); merge checks
// each instance against its database's shard and recomputes the summary of the whole run.
TEST(RunsMerge, DbShardsMergeToTheWholeRunAndAreChecked) {
  RunRecord whole = full_run(240);
  for (size_t i = 0; i < whole.instances.size(); ++i) whole.instances[i].category.emplace_back("db", "db" + std::to_string(i % 12));
  SummaryOut sum = summarize(whole);  // with the db category
  whole.summary = sum.summary, whole.summary_text = sum.text;
  auto parts = std::vector<MergeInput>{};
  std::map<std::string, int> shard_of_db;
  for (int i = 1; i <= 3; ++i) {
    parts.push_back(MergeInput{"part" + std::to_string(i) + ".json", shard_subset(whole, Shard{i, 3, ShardBy::Db}), ""});
    for (const auto& in : parts.back().run.instances) {
      auto [it, fresh] = shard_of_db.emplace(*in.category_of("db"), i);
      EXPECT_EQ(it->second, i) << *in.category_of("db") << " is in two shards";
    }
  }
  EXPECT_EQ(shard_of_db.size(), 12u);
  // The database, not the id, places an instance: shard_of("db0", 3) computed independently (python3, ids.hpp).
  EXPECT_EQ(shard_of_db["db0"], static_cast<int>(shard_of("db0", 3)) + 1);
  RunRecord merged = merge_runs(parts, {"sqlgrade", "merge"});
  EXPECT_EQ(merged.summary, whole.summary);
  EXPECT_EQ(merged.instances.size(), whole.instances.size());
  EXPECT_EQ(merged.merged_from[0].shard.by, ShardBy::Db);
  {
    auto bad = parts;  // an instance of a database of shard 2 in shard 1
    Instance moved = bad[1].run.instances.front();
    moved.id = "moved";
    bad[0].run.instances.push_back(moved);
    EXPECT_EQ(error_of(bad), "part1.json: instance \"moved\" of database \"" + *moved.category_of("db") +
                                 "\" belongs to shard 2/3 by db, not 1/3 by db");
  }
  {
    auto bad = parts;  // id shards and db shards of one run do not mix
    bad[2] = split(whole, 3)[2];
    EXPECT_EQ(error_of(bad), "part3.json: is split by id but part1.json by db (--shard-by)");
  }
  // The record keeps "by" (only for db shards: id shards' records are as before).
  const RunRecord back = parse_run_record(render_run_record(parts[0].run), "p.json");
  EXPECT_EQ(back.shard, (Shard{1, 3, ShardBy::Db}));
  EXPECT_EQ(to_json(parts[0].run)["shard"], (Json{{"index", 1}, {"count", 3}, {"by", "db"}}));
  EXPECT_EQ(to_json(split(whole, 3)[0].run)["shard"], (Json{{"index", 1}, {"count", 3}}));
  try {
    std::string text = render_run_record(parts[0].run);
    text.replace(text.find("\"by\": \"db\""), 10, "\"by\": \"xx\"");
    parse_run_record(text, "p.json");
    ADD_FAILURE() << "a shard split by xx was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "p.json: shard.by: must be \"id\" or \"db\"");
  }
}
