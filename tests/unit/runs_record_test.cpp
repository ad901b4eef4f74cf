// Run records: writer/reader round trip, validation errors (one line naming the file and the JSON
// path), SHA-256 (FIPS 180-2 vectors, coreutils for folders), base64 (RFC 4648), ids and shards.
#include <gtest/gtest.h>

#include <cstdlib>

#include "runs_support.hpp"
#include "sqlgrade/errors.hpp"
#include "sqlgrade/core/digest.hpp"
#include "sqlgrade/runs/ids.hpp"
#include "sqlgrade/runs/record.hpp"
#include "sqlgrade/core/text.hpp"

using namespace sqlgrade;
using namespace sqlgrade::runs;
using namespace sqlgrade::test;

namespace {

RunRecord sample() {
  RunRecord r = base_run("alpha");
  r.instances = {inst("2", 1, 0.9, "easy"), inst("10", 0, 0.25, "hard")};
  r.instances[0].question = "How many?";
  r.instances[0].rows = Json{{"gold", Json::array({Json::array({1, "x", nullptr})})}, {"pred", Json::array()}, {"truncated", false}};
  r.instances[1].columns = Json{{"name", {{"precision", 0.5}, {"recall", 1.0}, {"f1", 0.6666}}}};
  r.instances[1].detail = Json{{"components", {{"select", 1}}}};
  r.summary = Json{{"all", {{"count", 2}}}};
  r.summary_text = "table\n";
  r.shard = Shard{2, 3};
  r.warnings = {"w1"};
  return r;
}

std::string error_of(const std::string& text) {
  try {
    parse_run_record(text, "run.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The sample as JSON, changed by f, then read: the error message ("" when accepted).
template <class F>
std::string error_after(F f) {
  Json j = to_json(sample());
  f(j);
  return error_of(j.dump());
}

}  // namespace

TEST(RunsRecord, RoundTripKeepsEveryField) {
  const RunRecord a = sample();
  const RunRecord b = parse_run_record(render_run_record(a), "x.json");
  EXPECT_EQ(to_json(a), to_json(b));
  EXPECT_EQ(b.system, "alpha");
  EXPECT_EQ(b.instances.size(), 2u);
  EXPECT_EQ(*b.instances[0].question, "How many?");
  EXPECT_EQ(*b.instances[1].score("f1"), 0.25);
  EXPECT_EQ(*b.instances[1].category_of("hardness"), "hard");
  EXPECT_EQ(b.shard, (Shard{2, 3}));
  EXPECT_EQ(b.metric("f1")->kind, MetricKind::Continuous);
  EXPECT_FALSE(b.tool_version.empty());
  EXPECT_FALSE(b.machine.host.empty());
  EXPECT_GT(b.machine.cores, 0u);
  EXPECT_EQ(b.started_at.size(), 20u);  // 2025-01-31T12:00:00Z
}

TEST(RunsRecord, InvalidUtf8IsReplacedNotFatal) {
  RunRecord r = sample();
  r.instances[0].question = std::string("caf\xC3\xA9 \xFF\xFE end");
  r.instances[0].pred_sql = std::string("SELECT '\x80'");
  const std::string text = render_run_record(r);
  EXPECT_TRUE(is_valid_utf8(text));
  const RunRecord b = parse_run_record(text, "x.json");
  EXPECT_EQ(*b.instances[0].question, "caf\xC3\xA9 \xEF\xBF\xBD\xEF\xBF\xBD end");
}

TEST(RunsRecord, ValidationErrorsNameFileAndPath) {
  struct Case {
    const char* expect;
    std::function<void(Json&)> change;
  };
  const std::vector<Case> cases = {
      {"run.json: missing required field \"instances\"", [](Json& j) { j.erase("instances"); }},
      {"run.json: schema: not a sqlgrade run record", [](Json& j) { j["schema"] = "other"; }},
      {"run.json: schema_version: 2 is not supported", [](Json& j) { j["schema_version"] = 2; }},
      {"run.json: instances[1].scores.exec: binary metric must be 0 or 1", [](Json& j) { j["instances"][1]["scores"]["exec"] = 0.5; }},
      {"run.json: instances[0].scores.bleu: metric not declared", [](Json& j) { j["instances"][0]["scores"]["bleu"] = 1; }},
      {"run.json: instances[1].id: duplicate id \"2\"", [](Json& j) { j["instances"][1]["id"] = "2"; }},
      {"run.json: instances[0].id: must not be empty", [](Json& j) { j["instances"][0]["id"] = ""; }},
      {"run.json: instances[0].id: expected a string", [](Json& j) { j["instances"][0]["id"] = 2; }},
      {"run.json: primary_metric: \"em\" is not one of", [](Json& j) { j["primary_metric"] = "em"; }},
      {"run.json: inputs[0].sha256: expected 64 lowercase hex", [](Json& j) { j["inputs"][0]["sha256"] = "ABC"; }},
      {"run.json: inputs[1].side: expected", [](Json& j) { j["inputs"][1]["side"] = "both"; }},
      {"run.json: unknown field \"instance\"", [](Json& j) { j["instance"] = Json::array(); }},
      {"run.json: instances[0]: unknown field \"score\"", [](Json& j) { j["instances"][0]["score"] = 1; }},
      {"run.json: instances[0].rows.gold[0]: a cell must be", [](Json& j) { j["instances"][0]["rows"]["gold"][0][0] = Json::array(); }},
      {"run.json: instances[1].columns.name.f1: expected a number", [](Json& j) { j["instances"][1]["columns"]["name"]["f1"] = "x"; }},
      {"run.json: shard.index: must be between 1 and count", [](Json& j) { j["shard"]["index"] = 4; }},
      {"run.json: metrics[1].name: metric \"exec\" declared twice", [](Json& j) { j["metrics"][1]["name"] = "exec"; }},
      {"run.json: metrics[0].kind: expected \"binary\" or \"continuous\"", [](Json& j) { j["metrics"][0]["kind"] = "ordinal"; }},
      {"run.json: wall_s: must be >= 0", [](Json& j) { j["wall_s"] = -1; }},
      {"run.json: instances[0].detail: expected an object", [](Json& j) { j["instances"][0]["detail"] = 3; }},
  };
  for (const auto& c : cases) {
    const std::string err = error_after(c.change);
    EXPECT_EQ(err.rfind(c.expect, 0), 0u) << "expected prefix: " << c.expect << "\n got: " << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
  EXPECT_EQ(error_after([](Json&) {}), "");
  EXPECT_EQ(error_of("{\"schema\": "), error_of("{\"schema\": "));
  EXPECT_EQ(error_of("{\"schema\": ").rfind("run.json: not valid JSON: parse error at line 1", 0), 0u) << error_of("{\"schema\": ");
  EXPECT_EQ(error_of("[]"), "run.json: expected an object");
  // Found by fuzz_run_record: a number beyond double is nlohmann's out_of_range, not a parse error.
  EXPECT_EQ(error_of("{\"wall_s\": 88888888880e888888888}"), "run.json: not valid JSON: number overflow parsing '88888888880e888888888'");
}

TEST(RunsRecord, CliReportsABadRecordOnOneLineWithExitCode2) {
  TempDir t;
  std::string good = write_run(t, "good.json", sample());
  Json j = to_json(sample());
  j["instances"][0]["scores"]["exec"] = 7;
  spit(t / "bad.json", j.dump());
  for (const std::string cmd : {"diff", "report", "merge"}) {
    std::vector<std::string> args{cmd, (t / "bad.json").string(), good};
    if (cmd != "diff") args.insert(args.end(), {"-o", (t / "out").string()});
    CliResult r = run_cli(args);
    EXPECT_EQ(r.rc, 2) << cmd << ": " << r.err;
    EXPECT_EQ(r.err, "sqlgrade: " + (t / "bad.json").string() + ": instances[0].scores.exec: binary metric must be 0 or 1\n") << cmd;
    EXPECT_FALSE(fs::exists(t / "out")) << cmd;
  }
}

TEST(RunsRecord, SourceDateEpochPinsTheTimestamp) {
  // reproducible-builds.org's SOURCE_DATE_EPOCH: a whole number of seconds replaces "now"; anything else
  // is ignored (the real clock: this year, not 1970)
  const char* old = std::getenv("SOURCE_DATE_EPOCH");
  const std::string saved = old ? old : "";
  ::setenv("SOURCE_DATE_EPOCH", "1767225600", 1);
  EXPECT_EQ(runs::utc_now_iso8601(), "2026-01-01T00:00:00Z");
  ::setenv("SOURCE_DATE_EPOCH", "0", 1);
  EXPECT_EQ(runs::utc_now_iso8601(), "1970-01-01T00:00:00Z");
  for (const char* bad : {"", "12x", "-5", "1e9", " 7"}) {
    ::setenv("SOURCE_DATE_EPOCH", bad, 1);
    EXPECT_NE(runs::utc_now_iso8601().substr(0, 4), "1970") << bad;
  }
  if (old) ::setenv("SOURCE_DATE_EPOCH", saved.c_str(), 1); else ::unsetenv("SOURCE_DATE_EPOCH");
}

TEST(RunsDigest, Sha256KnownVectors) {
  // FIPS 180-2, appendix B.1 and B.2.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  TempDir t;
  spit(t / "f", "abc");
  EXPECT_EQ(sha256_file((t / "f").string()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_THROW(sha256_file((t / "missing").string()), InputError);
}

TEST(RunsDigest, FolderHashEqualsCoreutilsListing) {
  TempDir t;
  spit(t / "d" / "b.txt", "second");
  spit(t / "d" / "a" / "z.csv", "1,2\n");
  spit(t / "d" / "A.sql", "SELECT 1");
  // The documented definition, computed by coreutils: sorted relative paths, sha256sum lines.
  const std::string cmd = "cd " + shell_quote((t / "d").string()) +
                          " && find . -type f | sed 's|^\\./||' | LC_ALL=C sort | xargs sha256sum | sha256sum > " +
                          shell_quote((t / "expected").string());
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string expected = slurp(t / "expected").substr(0, 64);
  EXPECT_EQ(sha256_path((t / "d").string()), expected);
  EXPECT_EQ(sha256_path((t / "d" / "b.txt").string()), sha256_hex("second"));
}

TEST(RunsDigest, Base64Rfc4648Vectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
}

TEST(RunsIds, NaturalOrder) {
  std::vector<std::string> ids{"10", "2", "local10", "local009", "b", "a", "1", "01", "Player/Agg/q/10", "Player/Agg/q/9", ""};
  std::sort(ids.begin(), ids.end(), [](const std::string& x, const std::string& y) { return id_less(x, y); });
  const std::vector<std::string> expected{"", "01", "1", "2", "10", "Player/Agg/q/9", "Player/Agg/q/10", "a", "b", "local009", "local10"};
  EXPECT_EQ(ids, expected);
  EXPECT_FALSE(id_less("5", "5"));
}

TEST(RunsIds, ShardOfMatchesPythonHashlib) {
  // Expected values from: python3 -c 'import hashlib; print(int.from_bytes(hashlib.sha256(ID.encode()).digest()[:8], "big") % N)'
  EXPECT_EQ(shard_of("0", 4), 0u);
  EXPECT_EQ(shard_of("1", 4), 1u);
  EXPECT_EQ(shard_of("1033", 4), 3u);
  EXPECT_EQ(shard_of("local001", 8), 7u);
  EXPECT_EQ(shard_of("Player/Agg/agg_queries/1", 3), 2u);
  EXPECT_EQ(shard_of("", 2), 0u);
  EXPECT_TRUE(in_shard(Shard{4, 4}, "1033", "concert_singer"));
  EXPECT_FALSE(in_shard(Shard{1, 4}, "1033", "concert_singer"));
  // --shard-by db: the key is the database (shard_of("concert_singer", 4) == 1, from the python3 line above).
  EXPECT_TRUE(in_shard(Shard{2, 4, ShardBy::Db}, "1033", "concert_singer"));
  EXPECT_FALSE(in_shard(Shard{3, 4, ShardBy::Db}, "1033", "concert_singer"));
  // Spider dev's 1034 question indices over 4 shards: every shard gets 258 ± 40.
  std::vector<int> count(4);
  for (int i = 0; i < 1034; ++i) ++count[shard_of(std::to_string(i), 4)];
  for (int c : count) EXPECT_NEAR(c, 258.5, 40);
}

TEST(RunsIds, ParseShard) {
  EXPECT_EQ(parse_shard("2/8"), (Shard{2, 8}));
  EXPECT_EQ(parse_shard("1/1"), (Shard{1, 1}));
  for (const char* bad : {"0/4", "5/4", "1/0", "a/b", "1", "1/", "/4", "-1/4", "1/99999999", "1/4/2"}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--shard: expected i/n"), std::string::npos) << e.what();
    }
  }
}
