// The works_cycles subset: CPython-compatible shuffle, filter/split, schema prompt, answer format,
// and EM+F1 grading on a small stand-in database (works_cycles itself is not available).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/bird/subset.hpp"
#include "test_support.hpp"
#include "record_views.hpp"

using namespace sqlgrade;
using namespace sqlgrade::bird;
using namespace sqlgrade::test;

namespace {

// A stand-in for works_cycles: AUTOINCREMENT (so sqlite_sequence exists), a table named "order",
// non-ASCII text, NULL, floats and a blob.
const char* kStandIn = R"SQL(
CREATE TABLE Person (BusinessEntityID INTEGER PRIMARY KEY AUTOINCREMENT, FirstName TEXT NOT NULL, LastName TEXT, Rate REAL);
INSERT INTO Person (FirstName, LastName, Rate) VALUES ('Ken', 'Sánchez', 125.5), ('Terri', NULL, 63.0), ('Roberto', 'Tamburello', 1e-05);
CREATE TABLE "order" (id INTEGER, amount REAL, note TEXT);
INSERT INTO "order" VALUES (1, 10.25, 'first'), (2, 3.0, NULL);
CREATE TABLE Product(ProductID INTEGER, Name TEXT, Photo BLOB);
INSERT INTO Product VALUES (7, 'Chainring', x'00ff41');
)SQL";

// bird --answer-json reads the answer object this way.
std::optional<std::string> extract_answer(std::string_view text) {
  return answer::json_answer(text, answer::JsonAnswerRule::WholeFencedOrLastObject);
}

std::string fmt_total(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string train_json() {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (int i = 0; i < 30; ++i)
    a.push_back({{"db_id", i % 3 ? "works_cycles" : "other"},
                 {"question", "q" + std::to_string(i)},
                 {"evidence", ""},
                 {"SQL", "SELECT " + std::to_string(i)}});
  return a.dump();
}

}  // namespace

TEST(BirdSubset, FilterShuffleSplitLikeRandomShuffle) {
  TempDir t;
  spit(t / "train.json", train_json());
  SubsetOptions o;
  o.data_path = (t / "train.json").string();
  o.train = 5;
  o.valid = 5;
  Subset s = build_subset(o);
  EXPECT_EQ(s.matched, 20u);
  std::vector<size_t> tr, va;
  for (auto& i : s.train) tr.push_back(i.source_index);
  for (auto& i : s.valid) va.push_back(i.source_index);
  // CPython: random.seed(1); random.shuffle(filtered) -> q17 q8 q26 q29 q14 | q1 q25 q2 q23 q10
  EXPECT_EQ(tr, (std::vector<size_t>{17, 8, 26, 29, 14}));
  EXPECT_EQ(va, (std::vector<size_t>{1, 25, 2, 23, 10}));
  auto item = nlohmann::json::parse(s.train[0].json);
  EXPECT_EQ(item["answer"], "{\"answer\": \"SELECT 17\"}");
  EXPECT_EQ(item["question"], "q17");

  // The printed and the written forms (the CLI only prints / writes them).
  auto both = nlohmann::json::parse(render_subset_json(s));
  ASSERT_EQ(both["train"].size(), 5u);
  EXPECT_EQ(both["valid"][4]["source_index"], 10);
  auto files = subset_files(s);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].first, "train.json");
  EXPECT_EQ(nlohmann::json::parse(files[0].second), both["train"]);
  EXPECT_EQ(files[3].first, "valid_gold.sql");
  EXPECT_EQ(files[3].second.substr(0, 22), "SELECT 1\tworks_cycles\n");
}

TEST(BirdSubset, CliWritesSplitsAndGoldFiles) {
  TempDir t;
  spit(t / "train.json", train_json());
  make_sqlite(t / "wc.sqlite", kStandIn);
  auto r = run_cli({"bird", "subset", "--data", (t / "train.json").string(), "--db-id", "works_cycles", "--seed", "1",
                    "--train", "5", "--valid", "5", "--out", (t / "out").string(), "--db", (t / "wc.sqlite").string()});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(slurp(t / "out" / "valid_gold.sql"),
            "SELECT 1\tworks_cycles\nSELECT 25\tworks_cycles\nSELECT 2\tworks_cycles\nSELECT 23\tworks_cycles\n"
            "SELECT 10\tworks_cycles\n");
  auto train = nlohmann::json::parse(slurp(t / "out" / "train.json"));
  ASSERT_EQ(train.size(), 5u);
  EXPECT_EQ(train[0]["schema_prompt"].get<std::string>().rfind("CREATE TABLE Person", 0), 0u);
  auto bad = run_cli({"bird", "subset", "--data", (t / "nope.json").string()});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("nope.json"), std::string::npos);
}

// Expected strings produced by running the recipe's generate_schema_prompt_sqlite (with the skip
// test working) under CPython 3.11 on the same stand-in database.
TEST(BirdSubset, SchemaPromptWithExampleRows) {
  TempDir t;
  make_sqlite(t / "wc.sqlite", kStandIn);
  std::string want =
      "CREATE TABLE Person (BusinessEntityID INTEGER PRIMARY KEY AUTOINCREMENT, FirstName TEXT NOT NULL, LastName "
      "TEXT, Rate REAL) \n /* \n 2 example rows: \n SELECT * FROM Person LIMIT 2; \n BusinessEntityID FirstName "
      "LastName  Rate \n               1       Ken  S\u00e1nchez 125.5 \n               2     Terri     None  63.0  \n */"
      "\n\nCREATE TABLE \"order\" (id INTEGER, amount REAL, note TEXT) \n /* \n 2 example rows: \n SELECT * FROM "
      "`order` LIMIT 2; \n id amount  note \n 1  10.25 first \n 2    3.0  None  \n */\n\nCREATE TABLE "
      "Product(ProductID INTEGER, Name TEXT, Photo BLOB) \n /* \n 2 example rows: \n SELECT * FROM Product LIMIT 2; \n"
      " ProductID      Name        Photo \n        7 Chainring b'\\x00\\xffA'  \n */";
  EXPECT_EQ(schema_prompt((t / "wc.sqlite").string(), 2), want);
  auto r = run_cli({"bird", "schema-prompt", "--db", (t / "wc.sqlite").string(), "--rows", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, want + "\n");
}

TEST(BirdSubset, SchemaPromptSkipsSqliteSequenceUnlessAsked) {
  TempDir t;
  make_sqlite(t / "wc.sqlite", kStandIn);
  std::string db = (t / "wc.sqlite").string();
  std::string plain = schema_prompt(db, 0);
  EXPECT_EQ(plain.find("sqlite_sequence"), std::string::npos);
  EXPECT_EQ(schema_prompt(db, 0, true),
            "CREATE TABLE Person (BusinessEntityID INTEGER PRIMARY KEY AUTOINCREMENT, FirstName TEXT NOT NULL, "
            "LastName TEXT, Rate REAL)\n\nCREATE TABLE sqlite_sequence(name,seq)\n\nCREATE TABLE \"order\" (id INTEGER, "
            "amount REAL, note TEXT)\n\nCREATE TABLE Product(ProductID INTEGER, Name TEXT, Photo BLOB)");
  std::string before = file_hash(t / "wc.sqlite");
  schema_prompt(db, 3);
  EXPECT_EQ(file_hash(t / "wc.sqlite"), before);
}

TEST(BirdSubset, NiceLookTableAlignsRight) {
  EXPECT_EQ(nice_look_table({"a", "long"}, {{"123", "x"}, {"4", "yy"}}), "  a long \n123    x \n  4   yy ");
  EXPECT_EQ(nice_look_table({"a"}, {}), "a \n");
}

TEST(BirdSubset, AnswerFormatRoundTrip) {
  // json.dumps({"answer": ...}) escapes non-ASCII and control characters.
  EXPECT_EQ(answer_json("SELECT \"\xc3\xa9\"\n\t\x7f"), "{\"answer\": \"SELECT \\\"\\u00e9\\\"\\n\\t\\u007f\"}");
  EXPECT_EQ(extract_answer("{\"answer\": \"SELECT 1\"}"), "SELECT 1");
  EXPECT_EQ(extract_answer("Sure!\n```json\n{\"answer\": \"SELECT a FROM t\"}\n```\nDone."), "SELECT a FROM t");
  EXPECT_EQ(extract_answer("first {\"answer\": \"SELECT 1\"} then {\"answer\": \"SELECT {2}\"}"), "SELECT {2}");
  EXPECT_EQ(extract_answer("{\"other\": 1}"), std::nullopt);
  EXPECT_EQ(extract_answer("SELECT 1"), std::nullopt);
  EXPECT_EQ(extract_answer("{\"answer\": 5}"), std::nullopt);
  EXPECT_EQ(extract_answer(answer_json("SELECT '\xc3\xa9'")), "SELECT '\xc3\xa9'");
}

// EM+F1 end to end on the stand-in: model outputs with {"answer": ...}, paired by key.
TEST(BirdSubset, EmF1GradingWithAnswerFormat) {
  TempDir t;
  make_sqlite(t / "db" / "works_cycles" / "works_cycles.sqlite", kStandIn);
  spit(t / "gold.sql",
       "SELECT FirstName FROM Person ORDER BY BusinessEntityID\tworks_cycles\n"
       "SELECT id, amount FROM \"order\"\tworks_cycles\n"
       "SELECT Name FROM Product\tworks_cycles\n"
       "SELECT FirstName, LastName FROM Person WHERE LastName IS NOT NULL\tworks_cycles\n");
  nlohmann::json preds = {
      // exact: EM 1, F1 1
      {"0", "{\"answer\": \"SELECT FirstName FROM Person ORDER BY BusinessEntityID DESC\"}\t----- bird -----\tworks_cycles"},
      // one of two rows: EM 0, F1 2/3
      {"1", "```json\n{\"answer\": \"SELECT id, amount FROM \\\"order\\\" WHERE id = 1\"}\n```"},
      // no answer object: 0
      {"2", "SELECT Name FROM Product"},
      // columns swapped: EM 0, F1 1
      {"3", "{\"answer\": \"SELECT LastName, FirstName FROM Person WHERE LastName IS NOT NULL\"}"}};
  spit(t / "pred.json", preds.dump());
  std::string js = (t / "out.json").string();
  auto r = run_cli({"bird", "--metric", "em-f1", "--answer-json", "--predicted_sql_path", (t / "pred.json").string(),
                    "--ground_truth_path", (t / "gold.sql").string(), "--db_root_path", (t / "db").string(), "--json",
                    js});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(js));
  auto res = sqlgrade::test::bird_results(j);
  // Item 0: reversed order: EM 1, positional F1 over 3 distinct rows: only the middle row pairs -> tp 1.
  double tp = 1, fp = 2, fn = 2, p = tp / (tp + fp), rc = tp / (tp + fn);
  EXPECT_NEAR(res[0]["score"].get<double>(), (1 + 2 * p * rc / (p + rc)) / 2, 1e-12);
  EXPECT_NEAR(res[1]["score"].get<double>(), (0 + 2.0 / 3) / 2, 1e-12);
  EXPECT_EQ(res[2]["status"], "no_answer");
  EXPECT_EQ(res[2]["score"].get<double>(), 0.0);
  EXPECT_NEAR(res[3]["score"].get<double>(), 0.5, 1e-12);
  double total = (res[0]["score"].get<double>() + res[1]["score"].get<double>() + 0 + 0.5) / 4 * 100;
  EXPECT_NEAR(j["summary"]["total"]["score"].get<double>(), total, 1e-9);
  EXPECT_NE(r.out.find("EM+F1"), std::string::npos);
  EXPECT_NE(r.out.find(fmt_total(total)), std::string::npos) << r.out;
}
