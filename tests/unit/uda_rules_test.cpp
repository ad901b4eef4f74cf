// UDA-Bench: statement splitting, query shape, cleaning and normalisation rules, and the matching /
// scoring rule on small hand-made tables with hand-computed expected scores.
#include <gtest/gtest.h>

#include <cmath>

#include "sqlgrade/uda/compare.hpp"
#include "sqlgrade/engine/duckdb.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda/judge/judge.hpp"
#include "sqlgrade/uda/query_shape.hpp"
#include "sqlgrade/uda/statements.hpp"
#include "uda_test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::uda;

using sqlgrade::test::col;
using sqlgrade::test::make;

TEST(UdaStatements, SplitsWithCommentsEscapesAndMultilineLiterals) {
  std::string text =
      "-- Category 1 : binary_join\n"
      "-- Query 1: binary_join (player, team)\n"
      "SELECT a FROM t WHERE x = 'it''s; fine';\n\n"
      "/* Query 2: filter1 (t) */\n"
      "SELECT b\nFROM t WHERE y = 'line1\nline2';\n"
      "-- trailing comment only\n";
  auto st = split_sql_statements(text, "q.sql");
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].index, 1);
  EXPECT_EQ(st[0].sql, "SELECT a FROM t WHERE x = 'it''s; fine'");
  EXPECT_EQ(st[0].label_number.value(), 1);
  EXPECT_EQ(st[0].category, "binary_join");
  EXPECT_EQ(st[0].group, "binary_join");
  EXPECT_EQ(st[0].line, 3);
  EXPECT_EQ(st[1].sql, "SELECT b\nFROM t WHERE y = 'line1\nline2'");
  EXPECT_EQ(st[1].label, "Query 2: filter1 (t)");
  EXPECT_EQ(st[1].category, "filter1");
  EXPECT_EQ(st[1].line, 6);
  try {
    split_sql_statements("SELECT 1;\nSELECT 'open", "bad.sql");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
  }
}

TEST(UdaQueryShape, TablesItemsAggregatesGroupByJoinKeysLiterals) {
  DuckDb db;
  auto c = db.connect();
  auto s = parse_query_shape(*c,
                             "SELECT team.championships AS c, COUNT(*) AS n, AVG(player.age), player.name "
                             "FROM player JOIN team ON player.team = team.team_name "
                             "WHERE player.nationality = 'French  ' GROUP BY team.championships, player.name");
  ASSERT_EQ(s.tables.size(), 2u);
  EXPECT_EQ(s.tables[0].name, "player");
  EXPECT_EQ(s.type, QueryType::Aggregation);
  ASSERT_EQ(s.select.size(), 4u);
  EXPECT_EQ(s.select[0].output_name, "c");
  EXPECT_EQ(s.select[0].column->qualified(), "team.championships");
  EXPECT_TRUE(s.select[1].is_agg);
  EXPECT_EQ(s.select[1].agg, "COUNT");
  EXPECT_EQ(s.select[2].agg, "AVG");
  EXPECT_EQ(s.select[2].output_name, "AVG(player.age)");
  EXPECT_EQ(s.select[3].output_name, "name");
  EXPECT_FALSE(s.select[3].is_agg);
  ASSERT_EQ(s.group_by.size(), 2u);
  ASSERT_EQ(s.join_keys.size(), 1u);
  EXPECT_EQ(s.join_keys[0].first.qualified(), "player.team");
  ASSERT_EQ(s.literals.size(), 1u);
  EXPECT_EQ(s.literals[0].value, "French  ");
  std::string rewritten = rewrite_literals(std::string("SELECT team.championships AS c, COUNT(*) AS n, AVG(player.age), player.name "
                                                        "FROM player JOIN team ON player.team = team.team_name "
                                                        "WHERE player.nationality = 'French  ' GROUP BY team.championships, player.name"),
                                            s, [](const std::string& v) { return judge::clean_cell(v); });
  EXPECT_NE(rewritten.find("= 'French' GROUP"), std::string::npos);

  auto j = parse_query_shape(*c, "SELECT a.x, b.y FROM a JOIN b ON a.k = b.k WHERE a.z <> 'q'");
  EXPECT_EQ(j.type, QueryType::Join);
  auto f = parse_query_shape(*c, "SELECT x FROM a WHERE y = 1");
  EXPECT_EQ(f.type, QueryType::SelectFilter);
  EXPECT_THROW(parse_query_shape(*c, "SELEC x FROM"), std::runtime_error);
  EXPECT_THROW(parse_query_shape(*c, "DELETE FROM a"), std::runtime_error);
}

// Constant sizes DuckDB would build in one step outside its memory limit (docs/safety.md).
TEST(UdaQueryShape, OversizedValuesFromConstantArguments) {
  DuckDb db;
  auto c = db.connect();
  auto flagged = [&](const std::string& sql) { return parse_query_shape(*c, sql).oversized_values; };
  for (const char* sql : {"SELECT repeat('ab', 1000000000)", "SELECT lpad(x, 1e9, 'y') FROM t",
                          "SELECT rpad('x', 900000000)", "SELECT bar(x, 0, 10, 1000000000) FROM t",
                          "SELECT printf('%.*f', 2147483647, 1.5)", "SELECT printf('%2000000000d', 1)",
                          "SELECT printf('%-0900000000.2f', 1.5)", "SELECT format('{:>900000000}', 1)",
                          "SELECT format('{:.{}f}', 1.5, 2000000000)",
                          "SELECT x FROM t WHERE y IN (SELECT repeat(z, 100000000) FROM u)"}) {
    auto v = flagged(sql);
    EXPECT_EQ(v.size(), 1u) << sql;
  }
  EXPECT_EQ(flagged("SELECT repeat('ab', 1000000000)").at(0), "repeat(..., 1000000000)");
  // Big numbers that are not sizes, and sizes below the cap, are not flagged.
  for (const char* sql : {"SELECT repeat('x', 1000)", "SELECT printf('%d rows', 1000000000)",
                          "SELECT printf('%5.2f of 100000000000', 2.5)", "SELECT format('{} {}', 1000000000, 2)",
                          "SELECT format('{:>10} {{900000000}}', 1)", "SELECT bar(x, 0, 100000000000, 20) FROM t",
                          "SELECT lpad(name, 20, ' ') FROM t", "SELECT x FROM t WHERE id = 3000000000"}) {
    EXPECT_TRUE(flagged(sql).empty()) << sql << ": " << (flagged(sql).empty() ? "" : flagged(sql)[0]);
  }
}

TEST(UdaRules, CleaningAndNormalisation) {
  EXPECT_EQ(judge::clean_cell("  a||b \n c "), "a || b c");
  EXPECT_EQ(judge::split_multi("red|| small ||||x"), (std::vector<std::string>{"red", "small", "x"}));
  EXPECT_EQ(judge::lenient_number("1,200").value(), 1200);
  EXPECT_EQ(judge::lenient_number("$12.5").value(), 12.5);
  EXPECT_EQ(judge::lenient_number("12%").value(), 12);
  EXPECT_FALSE(judge::lenient_number("12,34").has_value());
  EXPECT_EQ(judge::canonical_date("1994/2/2").value(), "1994-02-02");
  EXPECT_EQ(judge::normalize_for_compare("1994-02-02"), judge::normalize_for_compare("1994/2/2"));
  EXPECT_EQ(judge::normalize_for_compare("Los Angeles  Lakers."), "los angeles lakers");
  EXPECT_EQ(judge::normalize_for_compare("2008.0"), judge::normalize_for_compare("2008"));
  EXPECT_NE(judge::normalize_for_compare("3.5"), judge::normalize_for_compare("35"));
  EXPECT_EQ(key_text(Value::text("0001.txt"), true), "1");
  EXPECT_EQ(key_text(Value::integer(1), true), "1");
  EXPECT_EQ(key_text(Value::real(1.0), true), "1");
  EXPECT_EQ(key_text(Value::text("docs/2401.01511v1_x.pdf"), true), "2401.01511v1_x");
  EXPECT_EQ(key_text(Value::text("12.5"), true), "12.5");
}

TEST(UdaRules, CellScores) {
  auto s = [](CellKind k, Value p, Value g, double tol = 1e-4) { return rule_cell_score(k, p, g, tol); };
  EXPECT_EQ(s(CellKind::Int, Value::text("1,200"), Value::integer(1200)).value(), 1.0);
  EXPECT_EQ(s(CellKind::Int, Value::text("1201"), Value::integer(1200)).value(), 0.0);
  EXPECT_EQ(s(CellKind::Float, Value::text("2.50001"), Value::real(2.5)).value(), 1.0);
  EXPECT_EQ(s(CellKind::Float, Value::text("2.6"), Value::real(2.5)).value(), 0.0);
  EXPECT_EQ(s(CellKind::Float, Value::text("2.6"), Value::real(2.5), 0.05).value(), 1.0);
  EXPECT_EQ(s(CellKind::Str, Value::null(), Value::text("")).value(), 1.0);
  EXPECT_EQ(s(CellKind::Str, Value::null(), Value::text("x")).value(), 0.0);
  EXPECT_EQ(s(CellKind::Str, Value::text("LeBron  James"), Value::text("lebron james")).value(), 1.0);
  EXPECT_FALSE(s(CellKind::Str, Value::text("LBJ"), Value::text("LeBron James")).has_value());  // → judge
  // aggregate: 1/(1+|x-g|/|g|): 110 vs 100 → 1/1.1; gold 0: 1/(1+|x|)
  EXPECT_NEAR(s(CellKind::Aggregate, Value::text("110"), Value::integer(100)).value(), 1 / 1.1, 1e-12);
  EXPECT_NEAR(s(CellKind::Aggregate, Value::text("0.5"), Value::integer(0)).value(), 1 / 1.5, 1e-12);
  EXPECT_EQ(s(CellKind::Aggregate, Value::null(), Value::null()).value(), 1.0);
  EXPECT_EQ(s(CellKind::Aggregate, Value::null(), Value::integer(3)).value(), 0.0);
}


TEST(UdaMatch, SelectFilterById) {
  // gold 4 rows, result 3 rows (one wrong value, one extra row, one missing gold row).
  Table gold = make({"id", "name", "stock"}, {{"1", "Widget", "10"}, {"2", "Gadget", "1200"}, {"3", "Doo", "0"}, {"4", "Thing", "5"}});
  Table pred = make({"file_name", "name", "stock"}, {{"1.txt", "widget", "10"}, {"0002.txt", "Gadget", "12"}, {"9.txt", "X", "1"}});
  std::vector<KeySpec> keys{{"id", 0, 0, true}};
  std::vector<ColumnSpec> cols{col("name", CellKind::Str, 1, 1), col("stock", CellKind::Int, 2, 2)};
  judge::RulesJudge rules;
  auto r = evaluate_match(gold, pred, keys, cols, MatchOptions{}, rules);
  ASSERT_EQ(r.pairs.size(), 2u);
  EXPECT_EQ(r.pairs[0], (std::pair<size_t, size_t>{0, 0}));
  EXPECT_EQ(r.pairs[1], (std::pair<size_t, size_t>{1, 1}));
  // name: 2 correct cells; P = 2/3, R = 2/4
  EXPECT_NEAR(r.columns[0].precision, 2.0 / 3, 1e-12);
  EXPECT_NEAR(r.columns[0].recall, 0.5, 1e-12);
  EXPECT_NEAR(r.columns[0].f1, 2 * (2.0 / 3) * 0.5 / (2.0 / 3 + 0.5), 1e-12);
  // stock: 1 correct cell; P = 1/3, R = 1/4
  EXPECT_NEAR(r.columns[1].precision, 1.0 / 3, 1e-12);
  EXPECT_NEAR(r.columns[1].recall, 0.25, 1e-12);
  EXPECT_NEAR(r.macro_precision, (2.0 / 3 + 1.0 / 3) / 2, 1e-12);
  EXPECT_NEAR(r.macro_f1, (r.columns[0].f1 + r.columns[1].f1) / 2, 1e-12);
  EXPECT_NEAR(r.row_precision, 2.0 / 3, 1e-12);
}

TEST(UdaMatch, MultiValueCells) {
  Table gold = make({"id", "tags"}, {{"1", "red || small"}, {"2", "blue || large || new"}, {"3", "<null>"}});
  Table pred = make({"id", "tags"}, {{"1", "small||red"}, {"2", "Blue||huge"}, {"3", ""}});
  std::vector<KeySpec> keys{{"id", 0, 0, true}};
  std::vector<ColumnSpec> cols{col("tags", CellKind::Multi, 1, 1)};
  judge::RulesJudge rules;
  auto r = evaluate_match(gold, pred, keys, cols, MatchOptions{}, rules);
  // cells: (1,1), (1/2, 1/3), both empty (1,1) → P = 2.5/3, R = (2+1/3)/3
  EXPECT_NEAR(r.columns[0].precision, 2.5 / 3, 1e-12);
  EXPECT_NEAR(r.columns[0].recall, (2 + 1.0 / 3) / 3, 1e-12);
  EXPECT_EQ(r.judge_questions, 1u);  // the undecided remainder (new, large) vs (huge)
}

TEST(UdaMatch, MultiEntityAndDuplicatesUsePrimaryKeyInsideEachId) {
  // Document 7 holds two drugs; the result lists them in the other order plus a third one.
  Table gold = make({"id", "drug", "dose"}, {{"7", "Aspirin", "100"}, {"7", "Ibuprofen", "200"}, {"8", "Xanax", "1"}});
  Table pred = make({"id", "drug", "dose"}, {{"7", "ibuprofen", "200"}, {"7", "Aspirin", "150"}, {"7", "Tylenol", "5"}, {"8", "Xanax", "1"}});
  std::vector<KeySpec> keys{{"id", 0, 0, true}};
  std::vector<ColumnSpec> cols{col("drug", CellKind::Str, 1, 1), col("dose", CellKind::Int, 2, 2)};
  MatchOptions mo;
  mo.primary_gold_col = 1;
  mo.primary_pred_col = 1;
  mo.primary_name = "drug";
  judge::RulesJudge rules;
  auto r = evaluate_match(gold, pred, keys, cols, mo, rules);
  EXPECT_TRUE(r.multi_entity);
  ASSERT_EQ(r.pairs.size(), 3u);
  EXPECT_EQ(r.pairs[0], (std::pair<size_t, size_t>{0, 1}));  // Aspirin ↔ Aspirin
  EXPECT_EQ(r.pairs[1], (std::pair<size_t, size_t>{1, 0}));  // Ibuprofen ↔ ibuprofen
  EXPECT_EQ(r.pairs[2], (std::pair<size_t, size_t>{2, 3}));
  // dose: 2 correct of 4 result rows and 3 gold rows
  EXPECT_NEAR(r.columns[1].precision, 0.5, 1e-12);
  EXPECT_NEAR(r.columns[1].recall, 2.0 / 3, 1e-12);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("gold has 1 key value(s) with several rows: (7)"), std::string::npos) << r.warnings[0];

  // Without a primary key, rows of one id pair in order.
  MatchOptions plain;
  auto r2 = evaluate_match(gold, pred, keys, cols, plain, rules);
  ASSERT_EQ(r2.pairs.size(), 3u);
  EXPECT_EQ(r2.pairs[0], (std::pair<size_t, size_t>{0, 0}));
}

TEST(UdaMatch, JoinCompositeKeys) {
  Table gold = make({"player.id", "team.id", "age"}, {{"1", "10", "30"}, {"1", "11", "31"}, {"2", "10", "25"}});
  Table pred = make({"player.file_name", "team.file_name", "age"}, {{"1.txt", "11.txt", "31"}, {"2.txt", "10.txt", "26"}});
  std::vector<KeySpec> keys{{"player.id", 0, 0, true}, {"team.id", 1, 1, true}};
  std::vector<ColumnSpec> cols{col("age", CellKind::Int, 2, 2)};
  judge::RulesJudge rules;
  auto r = evaluate_match(gold, pred, keys, cols, MatchOptions{}, rules);
  ASSERT_EQ(r.pairs.size(), 2u);
  EXPECT_EQ(r.pairs[0], (std::pair<size_t, size_t>{1, 0}));
  EXPECT_NEAR(r.columns[0].precision, 0.5, 1e-12);
  EXPECT_NEAR(r.columns[0].recall, 1.0 / 3, 1e-12);
}

TEST(UdaMatch, AggregationByGroupKeysWithRelativeError) {
  Table gold = make({"maker", "avg_price"}, {{"Acme", "1.625"}, {"Globex", "10"}, {"Initech", "0"}});
  Table pred = make({"maker", "avg_price"}, {{"ACME", "1.625"}, {"Globex Inc.", "12"}, {"initech", "1"}});
  std::vector<KeySpec> keys{{"maker", 0, 0, false}};
  std::vector<ColumnSpec> cols{col("avg_price", CellKind::Aggregate, 1, 1)};
  MatchOptions mo;
  mo.group_keys_semantic = true;
  judge::RulesJudge rules;
  auto r = evaluate_match(gold, pred, keys, cols, mo, rules);
  // "Globex Inc." is not decided by the rules → unmatched. Cells: 1, (gold 0, pred 1) 1/2.
  ASSERT_EQ(r.pairs.size(), 2u);
  EXPECT_NEAR(r.columns[0].precision, 1.5 / 3, 1e-12);
  EXPECT_NEAR(r.columns[0].recall, 1.5 / 3, 1e-12);
}

TEST(UdaMatch, EmptyTablesAndMissingColumns) {
  Table gold = make({"id", "name"}, {});
  Table pred = make({"id", "name"}, {});
  std::vector<KeySpec> keys{{"id", 0, 0, true}};
  judge::RulesJudge rules;
  auto r = evaluate_match(gold, pred, keys, {col("name", CellKind::Str, 1, 1)}, MatchOptions{}, rules);
  EXPECT_EQ(r.macro_f1, 1.0);
  EXPECT_EQ(r.columns[0].precision, 1.0);
  Table g2 = make({"id", "name"}, {{"1", "a"}});
  Table p2 = make({"id"}, {{"1"}});
  auto r2 = evaluate_match(g2, p2, keys, {col("name", CellKind::Str, 1, -1)}, MatchOptions{}, rules);
  EXPECT_EQ(r2.macro_f1, 0.0);
  EXPECT_EQ(r2.row_f1, 1.0);
  auto r3 = evaluate_match(g2, pred, keys, {col("name", CellKind::Str, 1, 1)}, MatchOptions{}, rules);
  EXPECT_EQ(r3.macro_f1, 0.0);
}
