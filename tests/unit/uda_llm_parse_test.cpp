// LLM judge, offline parts: reply parsing, prompt rendering, the chat-completions wire format, the
// persistent SQLite cache.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <thread>

#include "sqlgrade/errors.hpp"
#include "sqlgrade/uda/judge/llm_cache.hpp"
#include "sqlgrade/uda/judge/llm_client.hpp"
#include "sqlgrade/uda/judge/llm_judge.hpp"
#include "sqlgrade/uda/judge/llm_parse.hpp"
#include "sqlgrade/uda/judge/prompts.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::uda::judge;
using namespace sqlgrade::test;

TEST(UdaLlmParse, YesNoInTheShapesModelsWrite) {
  for (const char* yes : {"Yes", "YES", "yes.", "**YES**", "\"Yes\"", "Answer: YES", " yes\n", "True", "`YES`",
                          "<think>they differ? no, same</think>YES", "Yes, they are the same."})
    EXPECT_EQ(parse_yes_no(yes), std::optional<bool>(true)) << yes;
  for (const char* no : {"No", "NO", "no.", "**NO**", "No, different players.", "false", "Answer:\nNO"})
    EXPECT_EQ(parse_yes_no(no), std::optional<bool>(false)) << no;
  EXPECT_EQ(parse_yes_no("\xE6\x98\xAF"), std::optional<bool>(true));                  // 是
  EXPECT_EQ(parse_yes_no("**\xE5\x90\xA6**"), std::optional<bool>(false));             // **否**
  EXPECT_EQ(parse_yes_no("\xE4\xB8\x8D\xE6\x98\xAF"), std::optional<bool>(false));  // 不是
  for (const char* bad : {"", "maybe", "I cannot tell", "Not the same", "<think>yes", "Y", "nope", "yesterday",
                          "\xE7\x9B\xB8"})
    EXPECT_FALSE(parse_yes_no(bad).has_value()) << bad;
}

TEST(UdaLlmParse, CountFindsTheNumberAndClamps) {
  EXPECT_EQ(parse_count("2", 5), std::optional<size_t>(2));
  EXPECT_EQ(parse_count("There are 2 matches.", 5), std::optional<size_t>(2));
  EXPECT_EQ(parse_count("**3**", 5), std::optional<size_t>(3));
  EXPECT_EQ(parse_count("Count: 0", 5), std::optional<size_t>(0));
  EXPECT_EQ(parse_count("7", 4), std::optional<size_t>(4));  // clamped to min(|pred|, |gold|)
  EXPECT_EQ(parse_count("99999999999999", 3), std::optional<size_t>(3));
  EXPECT_EQ(parse_count("two", 5), std::optional<size_t>(2));
  EXPECT_EQ(parse_count("None of them", 5), std::optional<size_t>(0));
  EXPECT_EQ(parse_count("<think>maybe 4</think> 1", 5), std::optional<size_t>(1));
  EXPECT_FALSE(parse_count("-1", 5).has_value());
  EXPECT_FALSE(parse_count("1.5", 5).has_value());
  EXPECT_FALSE(parse_count("several", 5).has_value());
  EXPECT_FALSE(parse_count("", 5).has_value());
}

TEST(UdaLlmPrompts, CellPromptCarriesColumnDescriptionAndBothValues) {
  Question q;
  q.kind = QuestionKind::Cell;
  q.column = "team";
  q.description = "The  team the player\nplays for";
  q.pred = {"LA Lakers"};
  q.gold = {"Los Angeles Lakers"};
  Prompt p = render_prompt(q);
  EXPECT_NE(p.user.find("Attribute: team\n"), std::string::npos) << p.user;
  EXPECT_NE(p.user.find("The team the player plays for"), std::string::npos);
  EXPECT_NE(p.user.find("Reference value: Los Angeles Lakers\n"), std::string::npos);
  EXPECT_NE(p.user.find("Extracted value: LA Lakers\n"), std::string::npos);
  EXPECT_NE(p.system.find("YES or NO"), std::string::npos);
  EXPECT_FALSE(p.wants_count);
  EXPECT_LE(p.max_tokens, 16);
  q.pred = {""};
  q.description.clear();
  p = render_prompt(q);
  EXPECT_NE(p.user.find("Extracted value: (empty)"), std::string::npos);
  EXPECT_NE(p.user.find("(no description given)"), std::string::npos);
}

TEST(UdaLlmPrompts, NoPlaceholderLeftAndValuesAreNotReexpanded) {
  std::regex placeholder(R"(\{[a-z_]+\})");
  for (auto kind : {QuestionKind::Cell, QuestionKind::MultiCount, QuestionKind::Entity, QuestionKind::GroupKey}) {
    Question q;
    q.kind = kind;
    q.column = kind == QuestionKind::GroupKey ? "nationality, position" : "c";
    q.description = "d";
    q.query_type = "aggregation";
    q.pred = {"{gold}", "x"};
    q.gold = {"g1", "g2", "g3"};
    Prompt p = render_prompt(q);
    std::string rest = std::regex_replace(p.user, std::regex(R"(\{gold\})"), "");  // the value itself
    EXPECT_FALSE(std::regex_search(rest, placeholder)) << p.user;
    EXPECT_FALSE(std::regex_search(p.system, placeholder)) << p.system;
    EXPECT_NE(p.user.find("{gold}"), std::string::npos) << "the value must appear literally";
  }
}

TEST(UdaLlmPrompts, MultiCountListsItemsAndCarriesTheClamp) {
  Question q;
  q.kind = QuestionKind::MultiCount;
  q.column = "awards";
  q.pred = {"MVP", "ROY"};
  q.gold = {"Most Valuable Player", "All-Star", "Rookie of the Year"};
  Prompt p = render_prompt(q);
  EXPECT_TRUE(p.wants_count);
  EXPECT_EQ(p.max_count, 2u);
  EXPECT_NE(p.user.find("Extracted items (2):\n1. MVP\n2. ROY\n"), std::string::npos) << p.user;
  EXPECT_NE(p.user.find("Reference items (3):\n1. Most Valuable Player\n2. All-Star\n3. Rookie of the Year\n"),
            std::string::npos);
  EXPECT_NE(p.user.find("from 0 to 2"), std::string::npos);
}

TEST(UdaLlmPrompts, GroupKeyAndEntityPrompts) {
  Question g;
  g.kind = QuestionKind::GroupKey;
  g.column = "nationality, position";
  g.query_type = "aggregation";
  g.gold = {"France", "guard"};
  g.pred = {"French", ""};
  Prompt p = render_prompt(g);
  EXPECT_NE(p.user.find("Reference key:\n- nationality = France\n- position = guard\n"), std::string::npos) << p.user;
  EXPECT_NE(p.user.find("Extracted key:\n- nationality = French\n- position = (empty)\n"), std::string::npos);
  EXPECT_NE(p.user.find("Query type: aggregation"), std::string::npos);
  Question e;
  e.kind = QuestionKind::Entity;
  e.column = "name";
  e.gold = {"LeBron James"};
  e.pred = {"L. James"};
  p = render_prompt(e);
  EXPECT_NE(p.user.find("Reference entity: LeBron James"), std::string::npos);
  EXPECT_NE(p.user.find("Extracted entity: L. James"), std::string::npos);
  EXPECT_NE(p.system.find("same entity"), std::string::npos);
  // Distinct kinds give distinct prompts (so they never share a cache entry).
  Question c = e;
  c.kind = QuestionKind::Cell;
  EXPECT_NE(render_prompt(c).user, p.user);
}

TEST(UdaLlmPrompts, LongValuesAreCutOnAUtf8Boundary) {
  std::string v;
  for (int i = 0; i < 1000; ++i) v += "\xC3\xA9";  // 2000 bytes of 'é'
  std::string s = show_value(v);
  EXPECT_LT(s.size(), 1510u);
  EXPECT_TRUE(s.size() >= 4 && s.compare(s.size() - 4, 4, " \xE2\x80\xA6") == 0);
  std::string body = s.substr(0, s.size() - 4);
  EXPECT_EQ(body.size() % 2, 0u) << "cut inside a UTF-8 sequence";
}

TEST(UdaLlmWire, RequestBodyIsAGreedyShortChatCompletion) {
  auto j = nlohmann::json::parse(chat_request_body("m1", "sys", "usr \xff", 8));
  EXPECT_EQ(j["model"], "m1");
  EXPECT_EQ(j["temperature"], 0);
  EXPECT_EQ(j["max_tokens"], 8);
  EXPECT_EQ(j["stream"], false);
  ASSERT_EQ(j["messages"].size(), 2u);
  EXPECT_EQ(j["messages"][0]["role"], "system");
  EXPECT_EQ(j["messages"][1]["role"], "user");
  EXPECT_EQ(j["messages"][1]["content"].get<std::string>().substr(0, 4), "usr ");  // bad UTF-8 replaced, no throw
}

TEST(UdaLlmWire, ResponseParsing) {
  std::string c, e;
  EXPECT_TRUE(parse_chat_response(R"({"choices":[{"message":{"role":"assistant","content":"YES"}}]})", c, e));
  EXPECT_EQ(c, "YES");
  EXPECT_TRUE(parse_chat_response(R"({"choices":[{"message":{"role":"assistant","content":null}}]})", c, e));
  EXPECT_EQ(c, "");
  EXPECT_FALSE(parse_chat_response(R"({"error":{"message":"model not found"}})", c, e));
  EXPECT_NE(e.find("model not found"), std::string::npos);
  EXPECT_FALSE(parse_chat_response("<html>bad gateway</html>", c, e));
  EXPECT_FALSE(parse_chat_response(R"({"choices":[]})", c, e));
}

TEST(UdaLlmCache, PersistsAcrossOpensKeyedByModelAndPrompt) {
  TempDir t;
  fs::path f = t / "sub" / "cache.sqlite";
  {
    LlmCache c(f);
    EXPECT_FALSE(c.get("m", "k1").has_value());
    c.put("m", "k1", "YES");
    c.put("m", "k1", "NO");  // replace
    c.put("m", "k2", std::string("a\0b", 3));
  }
  LlmCache c(f);
  EXPECT_EQ(c.get("m", "k1"), std::optional<std::string>("NO"));
  EXPECT_EQ(c.get("m", "k2"), std::optional<std::string>(std::string("a\0b", 3)));
  EXPECT_FALSE(c.get("other-model", "k1").has_value());
  EXPECT_EQ(c.size(), 2u);
}

TEST(UdaLlmCache, ConcurrentWritersAndABadFile) {
  TempDir t;
  LlmCache c(t / "c.sqlite");
  std::vector<std::thread> th;
  for (int i = 0; i < 8; ++i)
    th.emplace_back([&, i] {
      for (int k = 0; k < 50; ++k) c.put("m", std::to_string(i) + "/" + std::to_string(k), "v");
    });
  for (auto& x : th) x.join();
  EXPECT_EQ(c.size(), 400u);
  spit(t / "junk.sqlite", std::string(4096, 'x'));
  EXPECT_THROW(LlmCache(t / "junk.sqlite"), InputError);
}

TEST(UdaLlmJudge, MissingEndpointOrModelIsAnInputError) {
  LlmJudgeOptions o;
  o.client.model = "m";
  EXPECT_THROW(LlmJudge{o}, InputError);
  o.client.base_url = "http://127.0.0.1:9/v1";
  o.client.model = "";
  EXPECT_THROW(LlmJudge{o}, InputError);
}
