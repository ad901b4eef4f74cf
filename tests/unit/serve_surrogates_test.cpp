// Lone surrogates in request bodies (issue 19, finding 14; src/sqlgrade/verdict/surrogates.hpp): model
// output keeps them as WTF-8 for the verdict, every other field is a 400 naming it, and a SQL that
// is not valid UTF-8 is never run.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "sqlgrade/serve/server.hpp"
#include "sqlgrade/verdict/surrogates.hpp"
#include "sqlgrade/serve/wire.hpp"

using namespace sqlgrade::serve;
using namespace sqlgrade::verdicts;
using json = nlohmann::json;

namespace {

const std::string kD83D = "\xED\xA0\xBD";  // U+D83D as WTF-8
const std::string kDE00 = "\xED\xB8\x80";  // U+DE00

std::string bad_request(const std::string& body) {
  try {
    parse_body(body);
  } catch (const RewardServer::BadRequest& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(ServeSurrogates, UnicodeProblemNamesTheFirstBadSequence) {
  EXPECT_EQ(unicode_problem("SELECT 'é😀'"), "");
  EXPECT_EQ(unicode_problem("ab" + kD83D + "c"), "a lone surrogate (U+D83D) at byte 2");
  EXPECT_EQ(unicode_problem("é" + kDE00), "a lone surrogate (U+DE00) at byte 2");
  EXPECT_EQ(unicode_problem("x\xFFy"), "the byte 0xFF at byte 1, which is not UTF-8");
  EXPECT_EQ(unicode_problem("x\xE2\x82"), "the byte 0xE2 at byte 1, which is not UTF-8");  // cut short
  EXPECT_EQ(sql_not_unicode("SELECT 1"), "");
  EXPECT_EQ(sql_not_unicode("SELECT 1 -- " + kD83D).rfind("the SQL is not valid Unicode: it holds a lone surrogate (U+D83D) at byte 12", 0), 0u);
}

TEST(ServeSurrogates, ModelOutputKeepsItsLoneSurrogatesAsWtf8) {
  json j = parse_body(R"({"model_output": "a\ud83db \uD83D\uDE00 \ude00", "db_id": "shop"})");
  EXPECT_EQ(j["model_output"], "a" + kD83D + "b \xF0\x9F\x98\x80 " + kDE00);  // the pair is one character
  EXPECT_EQ(j["db_id"], "shop");
  j = parse_body(R"({"sql": "\ud83d", "response": {"output": [{"content": [{"text": "x\udc00"}]}]}})");
  EXPECT_EQ(j["sql"], kD83D);
  EXPECT_EQ(j["response"]["output"][0]["content"][0]["text"], "x\xED\xB0\x80");
  j = parse_body(R"({"query": ["fine", "\ud83d\ud83d\ude00"], "labels": [{"gold_sql": "SELECT 1"}]})");
  EXPECT_EQ(j["query"][1], kD83D + "\xF0\x9F\x98\x80");  // a lone high half, then a pair
}

TEST(ServeSurrogates, AnyOtherFieldIsABadRequestNamingIt) {
  EXPECT_EQ(bad_request(R"({"gold_sql": "SELECT '\ud83d'", "model_output": "x"})"),
            "`gold_sql`: not valid Unicode: a lone surrogate (U+D83D); only the model output may hold one");
  EXPECT_EQ(bad_request(R"({"labels": [{"db_id": "a"}, {"gold_sql": "\uDE00"}]})").substr(0, 50),
            "`labels[1].gold_sql`: not valid Unicode: a lone su");
  EXPECT_EQ(bad_request(R"({"prompts": ["\ud800"]})").substr(0, 13), "`prompts[0]`:");
  EXPECT_EQ(bad_request(R"({"model_output": "x", "a\ud83d": 1})"), "a field name holds a lone surrogate: not valid Unicode");
  EXPECT_EQ(bad_request(R"("\ud83d")").substr(0, 9), "the body:");
}

TEST(ServeSurrogates, OnlyRealEscapesCountAndTheMarkNeverCollides) {
  // An escaped backslash before "ud83d" is text, not an escape: the body parses as it is.
  EXPECT_EQ(parse_body(R"({"gold_sql": "\\ud83d"})")["gold_sql"], "\\ud83d");
  // U+FDD0 and U+FDD1 (raw and escaped) are in the body: they stay what they are.
  json j = parse_body("{\"model_output\": \"\xEF\xB7\x90 \\ufdd1 \\ud83d\", \"gold_sql\": \"\xEF\xB7\x90\"}");
  EXPECT_EQ(j["model_output"], "\xEF\xB7\x90 \xEF\xB7\x91 " + kD83D);
  EXPECT_EQ(j["gold_sql"], "\xEF\xB7\x90");
  std::string all;
  for (unsigned b = 0x90; b <= 0xAF; ++b) all += std::string("\xEF\xB7") + static_cast<char>(b);
  EXPECT_EQ(bad_request("{\"model_output\": \"" + all + "\\ud83d\"}").substr(0, 36), "the body holds lone surrogates and a");
  // A body that is bad for another reason too: the parser's own error.
  EXPECT_THROW(parse_body(R"({"model_output": "\ud83d",})"), json::parse_error);
  EXPECT_THROW(parse_body(R"({"model_output": "\ud83"})"), json::parse_error);
  EXPECT_FALSE(parse_with_lone_surrogates(R"({"model_output": "\ud83d\ude00"})"));  // nothing lone
}
