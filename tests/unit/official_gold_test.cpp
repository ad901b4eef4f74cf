// The official gold folder is read by its benchmark (issue 32 item 1: a benchmark's readers are members
// of its contract): Benchmark::official_gold gives the eval file's comparison options and each
// instance's gold CSVs as `sqlgrade spider2` finds them; the single-rollout verdict only asks it.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sqlgrade/bird/bench.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/spider2/bench.hpp"
#include "test_support.hpp"

using namespace sqlgrade;
using namespace sqlgrade::test;

namespace {

struct GoldFolder {
  TempDir tmp;
  std::string dir = (tmp / "gold").string();
  GoldFolder() {
    spit(tmp / "gold" / "spider2lite_eval.jsonl",
         "{\"instance_id\": \"local001\", \"condition_cols\": [0], \"ignore_order\": false}\n"
         "{\"instance_id\": \"local002\", \"condition_cols\": [[0], [1]], \"ignore_order\": true}\n"
         "{\"instance_id\": \"local003\", \"condition_cols\": [], \"ignore_order\": true}\n");
    spit(tmp / "gold" / "exec_result" / "local001.csv", "x\n1\n2\n");
    spit(tmp / "gold" / "exec_result" / "local002_a.csv", "x\n1\n");
    spit(tmp / "gold" / "exec_result" / "local002_b.csv", "x,y\n1,2\n");
    spit(tmp / "gold" / "exec_result" / "local003.csv", "x\n\"unterminated\n");
  }
};

}  // namespace

TEST(OfficialGold, ReadByItsBenchmark) {
  GoldFolder g;
  const Benchmark& b = spider2::benchmark();
  ASSERT_TRUE(b.has_official_gold());
  const auto gold = b.official_gold(g.dir);
  EXPECT_EQ(gold->size(), 3u);
  EXPECT_TRUE(gold->has("local001"));
  EXPECT_FALSE(gold->has("local999"));

  CheckItem item;
  gold->check_options("local001", item);
  EXPECT_FALSE(item.ignore_order);
  ASSERT_NE(item.condition_cols, nullptr);
  EXPECT_EQ(*item.condition_cols, nlohmann::json::array({0}));

  const OfficialGold::Read one = gold->read("local001");
  EXPECT_TRUE(one.error.empty()) << one.error;
  const auto& frames = static_cast<const spider2::FramesGold&>(*one.form);
  EXPECT_TRUE(frames.single_file);
  EXPECT_EQ(frames.frames.size(), 1u);

  const OfficialGold::Read two = gold->read("local002");  // <id>_a.csv, <id>_b.csv: two alternatives
  EXPECT_FALSE(static_cast<const spider2::FramesGold&>(*two.form).single_file);
  EXPECT_EQ(static_cast<const spider2::FramesGold&>(*two.form).frames.size(), 2u);

  const OfficialGold::Read bad = gold->read("local003");  // read again next time (an I/O error may pass)
  EXPECT_EQ(bad.error.rfind("gold CSV unreadable: ", 0), 0u) << bad.error;
  EXPECT_TRUE(bad.transient);

  const OfficialGold::Read none = gold->read("local999");
  EXPECT_EQ(none.error, "No matching gold file found for local999");
  EXPECT_FALSE(none.transient);
}

TEST(OfficialGold, AFolderWithoutItsEvalFileIsRefused) {
  TempDir tmp;
  try {
    spider2::benchmark().official_gold(tmp.path.string());
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("spider2lite_eval.jsonl"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(bird::benchmark().has_official_gold());
  EXPECT_THROW(bird::benchmark().official_gold(tmp.path.string()), std::logic_error);
}
