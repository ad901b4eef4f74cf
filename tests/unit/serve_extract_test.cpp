// SQL extraction (NeMo Gym spider2_lite order, spec §6.1) and `sqlgrade extract-sql`.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "sqlgrade/answer/extract.hpp"
#include "sqlgrade/py/str.hpp"
#include "sqlgrade/serve/server.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::answer;
using namespace sqlgrade::test;

namespace {
std::optional<std::string> ex(std::string_view t, ExtractOptions o = {}) { return extract_sql(t, o).sql; }
ExtractOptions strict() {
  ExtractOptions o;
  o.tags_and_json = false;
  return o;
}
}  // namespace

TEST(ServeExtract, EmptyTextIsNoSql) {
  EXPECT_FALSE(ex(""));
  EXPECT_FALSE(ex("I do not know."));
  EXPECT_EQ(extract_sql("").source, ExtractSource::None);
}

TEST(ServeExtract, LastSqlBlockWins) {  // spec §6.1 verified case: two sql blocks -> the second
  std::string t = "first\n```sql\nSELECT 1;\n```\nthen\n```SQL\n  SELECT 2 FROM t;  \n```\nend";
  auto e = extract_sql(t);
  ASSERT_TRUE(e.sql);
  EXPECT_EQ(*e.sql, "SELECT 2 FROM t;");
  EXPECT_EQ(e.source, ExtractSource::SqlBlock);
}

TEST(ServeExtract, SqlBlockBeatsLaterGenericBlock) {
  EXPECT_EQ(*ex("```sql\nSELECT a FROM t\n```\n```\nSELECT b FROM u\n```"), "SELECT a FROM t");
}

TEST(ServeExtract, SqliteFenceQuirkKept) {
  // NeMo's pattern "```sql\s*" also opens on "```sqlite", leaving "ite" in front of the query.
  EXPECT_EQ(*ex("```sqlite\nSELECT 1\n```"), "ite\nSELECT 1");
}

TEST(ServeExtract, EmptySqlBlockMeansNoSqlWithoutFallback) {
  // matches[-1].strip() == "" is returned, and the caller treats "" as no SQL (no raw fallback).
  auto e = extract_sql("```sql\n```\nSELECT a FROM t;");
  EXPECT_FALSE(e.sql);
}

TEST(ServeExtract, UnclosedSqlBlockFallsThrough) {
  EXPECT_EQ(*ex("```sql\nSELECT a FROM t"), "SELECT a FROM t;");  // raw-text fallback
}

TEST(ServeExtract, GenericBlockNeedsKeywordAndWhitespace) {
  EXPECT_EQ(*ex("```\nWITH x AS (SELECT 1) SELECT * FROM x\n```"), "WITH x AS (SELECT 1) SELECT * FROM x");
  // the last qualifying generic block, skipping a later non-SQL block
  EXPECT_EQ(*ex("```\nselect 1\n```\n```\nprint(2)\n```"), "select 1");
  // a language tag stays in the content, so ```python never qualifies (spec: -> None)
  EXPECT_FALSE(ex("```python\nprint('hi')\n```", strict()));
  // "SELECT*" has no whitespace after the keyword: the block does not qualify; raw text needs "SELECT "
  EXPECT_FALSE(ex("```\nSELECT*FROM t\n```", strict()));
}

TEST(ServeExtract, RawTextHasNoWordBoundary) {
  // spec §6.1 verified case
  EXPECT_EQ(*ex("Let me explain. We select the rows where... SELECT a FROM t"),
            "select the rows where... SELECT a FROM t;");
  // "start with the table": WITH inside prose triggers it too
  EXPECT_EQ(*ex("start with the table"), "with the table;");
  // the last ';' of the whole text ends it; trailing ';' are collapsed into one
  EXPECT_EQ(*ex("Answer: SELECT a FROM t;; done; ok"), "SELECT a FROM t;; done;");
  EXPECT_EQ(*ex("SELECT a FROM t ;;;"), "SELECT a FROM t ;");
  // a ';' before the start is ignored
  EXPECT_EQ(*ex("note; then SELECT x FROM y"), "SELECT x FROM y;");
  // no boundary: "deselect " matches inside the word
  EXPECT_EQ(*ex("we deselect them"), "select them;");
}

TEST(ServeExtract, WordBoundaryOption) {
  ExtractOptions o;
  o.word_boundary = true;
  EXPECT_EQ(*ex("we deselect them, then SELECT a FROM t", o), "SELECT a FROM t;");
  EXPECT_FALSE(ex("forwith x", o));
  EXPECT_EQ(*ex("forwith x"), "with x;");
  EXPECT_EQ(*ex("(SELECT 1)", o), "SELECT 1);");
}

TEST(ServeExtract, UnicodeWhitespaceLikePython) {
  // U+00A0 after the keyword counts as \s; U+3000 around a block is stripped like str.strip()
  EXPECT_EQ(*ex("SELECT\xc2\xa0" "1"), "SELECT\xc2\xa0" "1;");
  EXPECT_EQ(*ex("```sql\xe3\x80\x80SELECT 1\xe3\x80\x80```"), "SELECT 1");
  EXPECT_EQ(py::strip("\xe2\x80\x83 x \xc2\x85"), "x");
}

TEST(ServeExtract, TagsAndJsonAnswer) {
  auto e = extract_sql("reasoning...<answer>\nSELECT a FROM t\n</answer>");
  ASSERT_TRUE(e.sql);
  EXPECT_EQ(*e.sql, "SELECT a FROM t");
  EXPECT_EQ(e.source, ExtractSource::Tag);
  // NeMo-strict: the raw fallback keeps the closing tag (what NeMo would execute)
  EXPECT_EQ(*ex("<answer>SELECT a FROM t</answer>", strict()), "SELECT a FROM t</answer>;");
  // the last non-empty pair, <solution> or <answer>
  EXPECT_EQ(*ex("<solution>SELECT 1</solution> <ANSWER>SELECT 2</ANSWER> <answer> </answer>"), "SELECT 2");
  // fenced blocks take precedence over tags
  EXPECT_EQ(*ex("<answer>```sql\nSELECT 3\n```</answer>"), "SELECT 3");
  auto j = extract_sql("Final: {\"reasoning\": \"use {t}\", \"answer\": \"SELECT \\\"a\\\" FROM t\"}");
  ASSERT_TRUE(j.sql);
  EXPECT_EQ(*j.sql, "SELECT \"a\" FROM t");
  EXPECT_EQ(j.source, ExtractSource::JsonAnswer);
  EXPECT_EQ(*ex("```json\n{\"answer\": \"SELECT 4\"}\n```"), "SELECT 4");
  // not an answer string -> falls through to raw text
  EXPECT_EQ(*ex("{\"answer\": 5} select x from y"), "select x from y;");
}

TEST(ServeExtract, NoRawFallbackOption) {
  ExtractOptions o;
  o.raw_fallback = false;
  EXPECT_FALSE(ex("SELECT a FROM t", o));
  EXPECT_EQ(*ex("```\nSELECT a FROM t\n```", o), "SELECT a FROM t");
}

// Reasoning models (issue 21): by default only the text after the last </think> is read; an unclosed
// <think> is no SQL; after_think = false keeps the old reading of the whole text.
TEST(ServeExtract, ReasoningIsNotGraded) {
  const std::string gold_in_thought = "<think>Maybe ```sql\nSELECT gold FROM t\n``` fits.</think> I could not find the answer.";
  EXPECT_FALSE(ex(gold_in_thought));
  EXPECT_EQ(extract_sql(gold_in_thought).source, ExtractSource::None);
  EXPECT_FALSE(ex("<think>The query is SELECT a FROM t</think>"));  // was "SELECT a FROM t</think>;"
  auto open = extract_sql("<think>So the query is SELECT a FROM t; let me check");
  EXPECT_FALSE(open.sql);
  EXPECT_EQ(open.source, ExtractSource::UnclosedThink);
  EXPECT_STREQ(to_string(open.source), "unclosed_think");
  // Qwen3 / DeepSeek-R1: the template opens the block, the output holds only the closing tag.
  EXPECT_EQ(*ex("SELECT wrong FROM t is tempting.\n</think>\n```sql\nSELECT a FROM t\n```"), "SELECT a FROM t");
  // The last </think> counts; an answer that opens a new block and never closes it is no SQL.
  EXPECT_EQ(*ex("<think>a</think>SELECT x FROM t;<think>b</think>\nSELECT a FROM t"), "SELECT a FROM t;");
  EXPECT_EQ(extract_sql("<think>a</think>```sql\nSELECT 1\n```<think>more").source, ExtractSource::UnclosedThink);
  EXPECT_EQ(*ex("no reasoning at all: ```sql\nSELECT 1\n```"), "SELECT 1");
  EXPECT_EQ(*answer_after_think("x</think>y</think>z"), "z");
  EXPECT_FALSE(answer_after_think("<think>"));
  ExtractOptions keep;
  keep.after_think = false;  // the whole text, as before
  EXPECT_EQ(*ex(gold_in_thought, keep), "SELECT gold FROM t");
  EXPECT_EQ(*ex("<think>The query is SELECT a FROM t</think>", keep), "SELECT a FROM t</think>;");
  EXPECT_EQ(*ex("<think>So the query is SELECT a FROM t; let me check", keep), "SELECT a FROM t;");
}

// The five NeMo Gym example rollouts carry the extracted_sql NeMo produced from model_output.
TEST(ServeExtract, MatchesNemoGymRollouts) {
  SQLGRADE_REQUIRE_DATA("preds/spider2lite_local/qwen3-30b-a3b-thinking_nemo-gym/example_rollouts.jsonl");
  std::ifstream in(DATA + "/preds/spider2lite_local/qwen3-30b-a3b-thinking_nemo-gym/example_rollouts.jsonl");
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    std::string text = verdicts::model_text(j);
    EXPECT_EQ(text, j["model_output"].get<std::string>());
    auto got = extract_sql(text, strict());
    ASSERT_TRUE(got.sql) << j["instance_id"];
    EXPECT_EQ(*got.sql, j["extracted_sql"].get<std::string>()) << j["instance_id"];
    // the default (tags/JSON on) gives the same answers on these
    EXPECT_EQ(*ex(text), j["extracted_sql"].get<std::string>());
    ++n;
  }
  EXPECT_EQ(n, 5);
}

TEST(ServeExtractCli, StdinToStdout) {
  auto r = run_cli({"extract-sql"}, "Sure:\n```sql\nSELECT name FROM singer\n```\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "SELECT name FROM singer\n");
  r = run_cli({"extract-sql"}, "no query here");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("no SQL"), std::string::npos);
  r = run_cli({"extract-sql", "--word-boundary"}, "we deselect; SELECT 1");
  EXPECT_EQ(r.out, "SELECT 1;\n");
  r = run_cli({"extract-sql", "--nemo-strict"}, "<answer>SELECT 1</answer>");
  EXPECT_EQ(r.out, "SELECT 1</answer>;\n");
  // reasoning: only the answer after </think> by default; --keep-think (and --nemo-strict) read it all
  const std::string thought = "<think>```sql\nSELECT 1\n```</think> I could not find the answer.";
  r = run_cli({"extract-sql"}, thought);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  for (const char* flag : {"--keep-think", "--nemo-strict"}) {
    r = run_cli({"extract-sql", flag}, thought);
    EXPECT_EQ(r.rc, 0) << flag;
    EXPECT_EQ(r.out, "SELECT 1\n") << flag;
  }
  r = run_cli({"extract-sql", "--jsonl"}, "\"<think>SELECT 1\"\n");
  EXPECT_EQ(r.out, "{\"extracted_sql\":null,\"source\":\"unclosed_think\"}\n");
}

TEST(ServeExtractCli, Jsonl) {
  std::string in = "\"```sql\\nSELECT 1\\n```\"\n"
                   "{\"instance_id\": \"x1\", \"response\": {\"output\": [{\"type\": \"reasoning\"}, "
                   "{\"type\": \"message\", \"content\": [{\"type\": \"output_text\", \"text\": \"SELECT \"}, "
                   "{\"type\": \"output_text\", \"text\": \"2 FROM t\"}]}]}}\n"
                   "\"nothing\"\n";
  auto r = run_cli({"extract-sql", "--jsonl"}, in);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"extracted_sql\":\"SELECT 1\",\"source\":\"sql_block\"}\n"
            "{\"extracted_sql\":\"SELECT 2 FROM t;\",\"instance_id\":\"x1\",\"source\":\"raw_text\"}\n"
            "{\"extracted_sql\":null,\"source\":\"none\"}\n");
  r = run_cli({"extract-sql", "--jsonl"}, "\"ok\"\n{broken\n");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("<stdin>:2:"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}
