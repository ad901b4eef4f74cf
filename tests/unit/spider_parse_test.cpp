// Parser conformance: every `sql` field of Spider's dev.json is reproduced from its query + db_id
// with the tables.json schema (the dataset's own preprocessing), plus the verified outcomes of the
// spec's table 1.6 on a small fixture schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider.hpp"
#include "sqlgrade/spider/parser.hpp"
#include "sqlgrade/spider/schema.hpp"
#include "sqlgrade/spider/sql_json.hpp"
#include "test_support.hpp"

using namespace sqlgrade::spider;

namespace {

SpiderSchema concert_schema() {
  return schema_from_catalogue({
      {"stadium", {"Stadium_ID", "Location", "Name", "Capacity", "Highest", "Lowest", "Average"}},
      {"singer", {"Singer_ID", "Name", "Country", "Song_Name", "Song_release_year", "Age", "Is_male"}},
      {"concert", {"concert_ID", "concert_Name", "Theme", "Stadium_ID", "Year"}},
      {"singer_in_concert", {"concert_ID", "Singer_ID"}},
  });
}

bool parses(const std::string& sql) {
  static SpiderSchema s = concert_schema();
  try {
    parse_sql(s, sql);
    return true;
  } catch (const ParseError&) {
    return false;
  }
}

}  // namespace

TEST(SpiderParse, DevJsonSqlFieldsReproducedExactly) {
  SQLGRADE_REQUIRE_DATA("spider/dev.json");
  auto tables = load_tables_json(DATA + "/spider/tables.json");
  auto dev = nlohmann::json::parse(sqlgrade::test::slurp(DATA + "/spider/dev.json"));
  ASSERT_EQ(dev.size(), 1034u);
  std::unordered_map<std::string, SpiderSchema> schemas;
  size_t ok = 0;
  std::vector<std::string> bad;
  for (const auto& ex : dev) {
    std::string db = ex["db_id"].get<std::string>();
    if (!schemas.count(db)) schemas.emplace(db, dataset_schema(tables.at(db)));
    try {
      auto sql = parse_sql(schemas.at(db), ex["query"].get<std::string>());
      nlohmann::json got = nlohmann::json::parse(sql_to_json(*sql).dump());
      if (got == ex["sql"]) ++ok;
      else if (bad.size() < 5) bad.push_back(ex["query"].get<std::string>() + "\n got " + got.dump() + "\n want " + ex["sql"].dump());
    } catch (const ParseError& e) {
      if (bad.size() < 5) bad.push_back(ex["query"].get<std::string>() + " → " + e.what());
    }
  }
  for (auto& b : bad) ADD_FAILURE() << b;
  EXPECT_EQ(ok, 1034u);
}

TEST(SpiderParse, VerifiedOutcomesOfSpecTable) {
  EXPECT_TRUE(parses("SELECT name FROM singer WHERE age > 20"));
  EXPECT_FALSE(parses("SELECT name FROM singer WHERE age=20"));
  EXPECT_FALSE(parses("SELECT name FROM singer WHERE age <> 20"));
  EXPECT_FALSE(parses("SELECT name FROM singer WHERE age IS NULL"));
  EXPECT_FALSE(parses("SELECT name FROM singer WHERE age IN (1, 2)"));
  EXPECT_FALSE(parses("SELECT name AS n FROM singer"));
  EXPECT_FALSE(parses("SELECT name FROM singer LEFT JOIN concert ON singer.singer_id = concert.concert_id"));
  EXPECT_FALSE(parses("SELECT name FROM singer, concert"));
  EXPECT_FALSE(parses("SELECT name FROM singer s"));
  EXPECT_FALSE(parses("SELECT name FROM singer UNION ALL SELECT name FROM singer"));
  EXPECT_TRUE(parses("SELECT name FROM singer WHERE age != 20"));
  EXPECT_FALSE(parses("SELECT name FROM singer WHERE age!=20"));
  EXPECT_TRUE(parses("SELECT name FROM singer WHERE age >= 20"));
  EXPECT_FALSE(parses("SELECT name FROM singer WHERE name = \"O'Brien\""));  // odd quote count
  EXPECT_TRUE(parses("SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id"));
  EXPECT_FALSE(parses("SELECT name FROM singer LIMIT"));
  EXPECT_TRUE(parses("SELECT name FROM singer WHERE age IN (SELECT age FROM singer)"));
}

TEST(SpiderParse, LimitHandlingDiffersByCompat) {
  SpiderSchema s = concert_schema();
  EXPECT_THROW(parse_sql(s, "SELECT name FROM singer LIMIT value"), ParseError);
  auto t = parse_sql(s, "SELECT name FROM singer LIMIT value", ParseOptions{true});
  EXPECT_TRUE(t->has_limit);
  EXPECT_EQ(t->limit, 1);
  auto o = parse_sql(s, "SELECT name FROM singer LIMIT 5");
  EXPECT_EQ(o->limit, 5);
}

TEST(SpiderParse, OutOfOrderClausesAreDropped) {
  SpiderSchema s = concert_schema();
  auto q = parse_sql(s, "SELECT name FROM singer GROUP BY name WHERE age > 1 ORDER BY age");
  EXPECT_EQ(q->group_by.size(), 1u);
  EXPECT_TRUE(q->where.empty());
  EXPECT_FALSE(q->has_order);
}

TEST(SpiderParse, GlobalAliasMapLastDefinitionWins) {
  SpiderSchema s = concert_schema();
  // outer T1 = singer, inner T1 = stadium: the outer T1.age resolves against stadium and fails.
  EXPECT_THROW(parse_sql(s, "SELECT T1.age FROM singer AS T1 WHERE T1.age > (SELECT avg(T1.capacity) FROM stadium AS T1)"),
               ParseError);
}

TEST(SpiderParse, FirstFromQuirkAndValues) {
  SpiderSchema s = concert_schema();
  auto q = parse_sql(s, "SELECT name FROM singer WHERE age > 1e5 AND name = 'Joe'");
  ASSERT_EQ(q->where.size(), 3u);
  EXPECT_EQ(q->where[0].v1.kind, Val::Num);
  EXPECT_DOUBLE_EQ(q->where[0].v1.num, 100000.0);
  EXPECT_TRUE(q->where[1].is_conn);
  EXPECT_EQ(q->where[2].v1.kind, Val::Str);
  EXPECT_EQ(q->where[2].v1.str, "\"Joe\"");
  // Column right-hand side
  auto c = parse_sql(s, "SELECT name FROM singer WHERE age > song_release_year");
  EXPECT_EQ(c->where[0].v1.kind, Val::Col);
}

TEST(SpiderParse, DeepNestingFailsCleanly) {
  SpiderSchema s = concert_schema();
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += "SELECT age FROM singer WHERE age IN (";
  deep += "SELECT age FROM singer";
  for (int i = 0; i < 5000; ++i) deep += ")";
  EXPECT_THROW(parse_sql(s, deep), ParseError);
  std::string ok;
  for (int i = 0; i < 50; ++i) ok += "SELECT age FROM singer WHERE age IN (";
  ok += "SELECT age FROM singer";
  for (int i = 0; i < 50; ++i) ok += ")";
  EXPECT_NO_THROW(parse_sql(s, ok));
}

// The library entry of `sqlgrade spider parse`: a BOM, CRLF / CR / LF line ends and blank lines are
// read as the command reads them; line numbers count blank lines; failures are counted, not thrown.
TEST(SpiderParse, ParseToJsonReadsTextLikeTheCommand) {
  sqlgrade::test::TempDir t;
  sqlgrade::test::spit(t / "tables.json",
                       R"([{"db_id": "d", "table_names_original": ["singer"],
                            "column_names_original": [[-1, "*"], [0, "name"], [0, "age"]]}])");
  const std::string tables = (t / "tables.json").string();
  auto r = parse_to_json("\xEF\xBB\xBFSELECT name FROM singer\td\r\n\rSELECT nope(\td\rSELECT age FROM singer\td",
                         tables, false);
  EXPECT_EQ(r.n_errors, 1u);
  auto arr = nlohmann::json::parse(r.json);
  ASSERT_EQ(arr.size(), 3u);
  EXPECT_EQ(arr[0]["query"], "SELECT name FROM singer");
  EXPECT_FALSE(arr[0]["sql"].is_null());
  EXPECT_TRUE(arr[1]["sql"].is_null());
  EXPECT_TRUE(arr[1].contains("error"));
  EXPECT_EQ(arr[2]["query"], "SELECT age FROM singer");
  EXPECT_EQ(r.json.rfind("[\n  {", 0), 0u);
  EXPECT_EQ(r.json.substr(r.json.size() - 4), "}\n]\n");
  try {
    parse_to_json("SELECT 1\td\n\nno tab here\n", tables, false);
    FAIL() << "a line without TAB must be an input error";
  } catch (const sqlgrade::InputError& e) {
    EXPECT_EQ(e.line(), 3);  // the blank line counts
  }
}
