// The registry of benchmarks (verdict/registry.hpp): its lookup rule and its export to Python
// (registry_table(), read by python/sqlgrade/_tables.py; python/tests/test_tables.py checks that side).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/runs/summary.hpp"
#include "sqlgrade/verdict/registry.hpp"
#include "sqlgrade/verdict/request.hpp"

using namespace sqlgrade;

TEST(VerdictRegistry, NamesAreStrippedAndCaseFolded) {
  // One rule with the Python package: whitespace around the name (str.strip()) is ignored, any case.
  EXPECT_STREQ(verdicts::benchmark_named(" Bird\n").name(), "bird");
  EXPECT_STREQ(verdicts::benchmark_named("\tSPIDER2-lite ").name(), "spider2");
  EXPECT_STREQ(verdicts::benchmark_named("test-suite").name(), "spider");
  try {
    verdicts::benchmark_named(" spider 2 ");
    FAIL() << "accepted";
  } catch (const verdicts::BadRequest& e) {
    EXPECT_STREQ(e.what(), "unknown benchmark 'spider 2' (expected spider2, spider or bird)");
  }
}

TEST(VerdictRegistry, TheTableIsEveryBenchmarkWithItsNamesAndLayout) {
  const nlohmann::json t = verdicts::registry_table();
  EXPECT_EQ(t["default"], "spider2");
  ASSERT_EQ(t["benchmarks"].size(), verdicts::benchmarks().size());
  for (size_t i = 0; i < verdicts::benchmarks().size(); ++i) {
    const Benchmark& b = *verdicts::benchmarks()[i];
    const nlohmann::json& row = t["benchmarks"][i];
    EXPECT_EQ(row["name"], b.name());
    EXPECT_EQ(row["aliases"].get<std::vector<std::string>>(), b.aliases());
    EXPECT_EQ(row["database"], b.database("<root>", "<id>"));
    EXPECT_EQ(row["layout"], b.layout() == DbLayout::Nested ? "nested" : "flat");
    for (const auto& a : row["aliases"]) EXPECT_EQ(&verdicts::benchmark_named(a.get<std::string>()), &b);
  }
  EXPECT_EQ(t["benchmarks"][1]["grades_folders"], true);   // spider: a test-suite folder
  EXPECT_EQ(t["benchmarks"][2]["grades_servers"], true);   // bird: PostgreSQL / MySQL
  // the request tables Python reads with it
  EXPECT_EQ(t["label_keys"].get<std::vector<std::string>>(), verdicts::label_keys());
  EXPECT_EQ(t["extract_keys"], nlohmann::json({"word_boundary", "tags_and_json", "raw_fallback", "after_think"}));
  EXPECT_EQ(t["extract_presets"], nlohmann::json({"sqlgrade", "gym-bird-0.4", "gym-bird-0.7"}));
}

TEST(VerdictRegistry, ExtractSwitchesAreReadByTheirTable) {
  for (const auto& [key, field] : verdicts::extract_switches()) {
    const ExtractOptions defaults;
    VerdictRequest r = verdicts::parse_request(
        {{"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}, {"db_id", "x"}, {"extract", {{key, !(defaults.*field)}}}});
    ASSERT_TRUE(r.extract.has_value()) << key;
    EXPECT_EQ((*r.extract).*field, !(defaults.*field)) << key;
  }
}

TEST(VerdictRegistry, AnUnknownPresetNamesEveryPreset) {
  // the CLI's --extract-preset, the request parser and Python read one list (answer::preset_names())
  try {
    verdicts::parse_request({{"sql", "SELECT 1"}, {"gold_sql", "SELECT 1"}, {"db_id", "x"}, {"extract", "gym-bird-9"}});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "`extract.preset` must be \"sqlgrade\", \"gym-bird-0.4\" or \"gym-bird-0.7\"; got \"gym-bird-9\"");
  }
}

TEST(VerdictRegistry, ShapingFieldsAreReadByTheirTable) {
  // the parser, its messages and the registry (Python's Shaping) read one list
  const nlohmann::json t = verdicts::registry_table();
  ASSERT_EQ(t["shaping_fields"].size(), verdicts::shaping_fields().size());
  const RewardShaping defaults;
  for (size_t i = 0; i < verdicts::shaping_fields().size(); ++i) {
    const verdicts::ShapingField& f = verdicts::shaping_fields()[i];
    EXPECT_EQ(t["shaping_fields"][i]["name"], f.name);
    EXPECT_EQ(t["shaping_fields"][i]["default"].get<double>(), defaults.*f.member);
    auto s = verdicts::parse_shaping({{"shaping", {{f.name, 0.5}}}});
    ASSERT_TRUE(s.has_value()) << f.name;
    EXPECT_EQ((*s).*f.member, 0.5) << f.name;
  }
  try {
    verdicts::parse_shaping({{"shaping", {{"bonus", 1}}}});
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(), "`shaping`: unknown option 'bonus' (correct, wrong_result, error, no_sql, gold_error)");
  }
  // a server database's schemes, each with its dialect's word
  EXPECT_EQ(t["uri_schemes"], nlohmann::json({{"postgresql", "postgresql"}, {"postgres", "postgresql"},
                                              {"mysql", "mysql"}, {"mariadb", "mysql"}}));
  EXPECT_TRUE(verdicts::is_server_uri("MariaDB://r@h/BIRD"));
  EXPECT_TRUE(verdicts::is_server_uri("postgres://r@h/bird"));
  EXPECT_FALSE(verdicts::is_server_uri("sqlite://x.db"));
  EXPECT_FALSE(verdicts::is_server_uri("/data/postgresql://x"));
  EXPECT_EQ(verdicts::dialect_of("MariaDB"), "mysql");
  EXPECT_EQ(verdicts::dialect_of("postgres"), "postgresql");
  EXPECT_EQ(verdicts::dialect_of(""), "sqlite");
  EXPECT_THROW(verdicts::dialect_of("oracle"), std::exception);
}

TEST(VerdictRegistry, EveryBenchmarkRegistersItsRunSummarizer) {
  // merge (the CLI's and the binding's) registers the summarizers through the registry, not by name
  verdicts::register_run_summarizers();
  for (const Benchmark* b : verdicts::benchmarks()) EXPECT_TRUE(runs::has_summarizer(b->name())) << b->name();
}
