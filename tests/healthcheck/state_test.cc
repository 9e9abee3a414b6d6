// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for railcheck's state files (healthcheck/state.h, state_file.h, state_syntax.h): JSON
// round trips, syntax errors worded as they always were,
// corrupt files as clear errors with a recovery path, atomic replacement that survives a
// crash, no symlinks followed, safe modes, and the lock between concurrent runs.
#include "healthcheck/state.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "healthcheck/state_file.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace healthcheck_state_test {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

RunState SampleState() {
  RunState s;
  s.node = "n001";
  s.time = 1700000123.5;
  s.runs = 7;
  s.drains = 1;
  s.resumes = 1;
  s.clean_streak = 2;
  s.drain_free_streak = 3;
  s.feature_held = true;
  s.baseline_time = 1690000000;
  PortRecord& p = s.ports["mlx5_3"];
  p.state = "ACTIVE";
  p.last.counters = {{"symbol_error", 12}, {"port_xmit_wait", 4294967295u}};
  p.last.hw_counters = {{"out_of_buffer", 3}};
  p.since_baseline = {{"symbol_error", 10}};
  p.flaps = {1700000000, 1700000100.25};
  s.pcie["0000:40:00.0"].last.fatal = 0;
  s.pcie["0000:40:00.0"].last.correctable = 4;
  s.pcie["0000:40:00.0"].since_baseline.correctable = 2;
  s.boot_id = "0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b";
  s.published_health = R"({"railcheck":{"verdict":"ok"}})";
  s.published_time = 1699999700.5;
  p.recent["symbol_error"] = {{1699990000, 1699990300, 1500}, {1700000000, 1700000123.5, 2}};
  s.pcie["0000:40:00.0"].recent["correctable"] = {{1700000000, 1700000100, 4}};
  return s;
}

TEST(RunState, RoundTripsThroughJson) {
  const RunState s = SampleState();
  RunState back;
  std::string err;
  ASSERT_TRUE(RunStateFromJson(RunStateToJson(s), "state.json", &back, &err)) << err;
  EXPECT_EQ(RunStateToJson(back), RunStateToJson(s));
  EXPECT_EQ(back.ports.at("mlx5_3").last.counters.at("port_xmit_wait"), 4294967295u);
  EXPECT_EQ(back.ports.at("mlx5_3").flaps.size(), 2u);
  EXPECT_FALSE(back.pcie.at("0000:40:00.0").last.nonfatal.has_value());
}

TEST(RunState, KeepsTheRateWindowsAndTheBootId) {
  const RunState s = SampleState();
  RunState back;
  std::string err;
  ASSERT_TRUE(RunStateFromJson(RunStateToJson(s), "state.json", &back, &err)) << err;
  EXPECT_EQ(back.boot_id, "0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b");
  EXPECT_EQ(back.published_health, R"({"railcheck":{"verdict":"ok"}})");
  EXPECT_EQ(back.published_time, 1699999700.5);
  const RateHistory& h = back.ports.at("mlx5_3").recent.at("symbol_error");
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].from, 1699990000);
  EXPECT_EQ(h[0].to, 1699990300);
  EXPECT_EQ(h[0].count, 1500u);
  EXPECT_EQ(h[1].to, 1700000123.5);
  EXPECT_EQ(back.pcie.at("0000:40:00.0").recent.at("correctable")[0].count, 4u);
}

// state.json as railcheck wrote it before it kept rate windows and the boot id: it loads,
// with no history and no boot id (the first run then counts from its counters).
TEST(RunState, AFileWithoutTheWindowsOrTheBootIdLoads) {
  const std::string old_file =
      "{\n \"format\": \"railcheck-state\",\n \"version\": 1,\n \"node\": \"n001\",\n"
      " \"time\": 1700000000.0,\n \"runs\": 3,\n \"drains\": 0,\n \"resumes\": 0,\n"
      " \"clean_streak\": 3,\n \"drain_free_streak\": 3,\n \"feature_held\": false,\n"
      " \"baseline_time\": 0.0,\n \"ports\": {\n  \"mlx5_0\": {\n   \"state\": \"ACTIVE\",\n"
      "   \"counters\": {\n    \"symbol_error\": 1500\n   },\n   \"hw_counters\": {},\n"
      "   \"since_baseline\": {},\n   \"flaps\": []\n  }\n },\n \"pcie\": {\n"
      "  \"0000:18:00.0\": {\n   \"last\": {\n    \"nonfatal\": 1\n   },\n"
      "   \"since_baseline\": {}\n  }\n }\n}\n";
  RunState s;
  std::string err;
  ASSERT_TRUE(RunStateFromJson(old_file, "state.json", &s, &err)) << err;
  EXPECT_EQ(s.boot_id, "");
  EXPECT_EQ(s.published_health, "");  // not known: the next run asks slurmctld
  EXPECT_EQ(s.published_time, 0);
  EXPECT_TRUE(s.ports.at("mlx5_0").recent.empty());
  EXPECT_EQ(s.ports.at("mlx5_0").last.counters.at("symbol_error"), 1500u);
  EXPECT_TRUE(s.pcie.at("0000:18:00.0").recent.empty());
  EXPECT_EQ(*s.pcie.at("0000:18:00.0").last.nonfatal, 1u);
}

TEST(RunState, ABadRateSampleNamesItsPlace) {
  const std::string text = RunStateToJson(SampleState());
  RunState s;
  std::string err;
  // The first sample of symbol_error, [1699990000, 1699990300, 1500], made to end before it
  // begins, then given a negative count.
  std::string bad = text;
  ASSERT_NE(bad.find("1699990300.0"), std::string::npos) << text;
  bad.replace(bad.find("1699990300.0"), 12, "1699980000.0");
  EXPECT_FALSE(RunStateFromJson(bad, "/st/state.json", &s, &err));
  EXPECT_EQ(err,
            "/st/state.json: /ports/mlx5_3/recent/symbol_error/0: got "
            "[1699990000.0,1699980000.0,1500]; expected from <= to");
  bad = text;
  ASSERT_NE(bad.find("1500\n"), std::string::npos);
  bad.replace(bad.find("1500\n"), 4, "-3");
  EXPECT_FALSE(RunStateFromJson(bad, "/st/state.json", &s, &err));
  EXPECT_EQ(err,
            "/st/state.json: /ports/mlx5_3/recent/symbol_error/0/2: got -3; expected a "
            "non-negative integer");
}

TEST(NodeBaseline, RoundTripsThroughJson) {
  NodeBaseline b;
  b.node = "n002";
  b.time = 1690000000;
  b.ports["mlx5_0"].counters = {{"symbol_error", 0}, {"link_downed", 1}};
  b.pcie["0000:18:00.0"].fatal = 0;
  b.boot_id = "0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b";
  NodeBaseline back;
  std::string err;
  ASSERT_TRUE(BaselineFromJson(BaselineToJson(b), "baseline.json", &back, &err)) << err;
  EXPECT_EQ(BaselineToJson(back), BaselineToJson(b));
  EXPECT_EQ(back.boot_id, b.boot_id);
  // A baseline written before railcheck kept the boot id loads without one.
  ASSERT_TRUE(BaselineFromJson(
      "{\"format\": \"railcheck-baseline\", \"version\": 1, \"node\": \"n002\", \"time\": 1.0, "
      "\"ports\": {}, \"pcie\": {}}",
      "baseline.json", &back, &err))
      << err;
  EXPECT_EQ(back.boot_id, "");
}

TEST(RunState, SyntaxErrorsNameLineAndColumn) {
  RunState s;
  std::string err;
  EXPECT_FALSE(RunStateFromJson("{\n \"format\": \"railcheck-state\",\n \"version\" 1\n}",
                                "/st/state.json", &s, &err));
  EXPECT_EQ(err,
            "/st/state.json:3:12: syntax error while parsing object separator - "
            "unexpected number literal; expected ':'; expected the JSON railcheck writes");
}

// The strict reader (base/json_reader.h) reads the files; a syntax error keeps the words and
// the place nlohmann-json gave it before (healthcheck/state_syntax.h).
TEST(RunState, SyntaxErrorsKeepTheirWording) {
  struct Case {
    std::string text;
    std::string err;
  };
  const Case kCases[] = {
      {"",
       "1:1: syntax error while parsing value - unexpected end of input; expected '[', '{', "
       "or a literal"},
      {"{}x",
       "1:3: syntax error while parsing value - invalid literal; last read: '{}x'; "
       "expected end of input"},
      {"[1,]",
       "1:4: syntax error while parsing value - unexpected ']'; expected '[', '{', or a "
       "literal"},
      {"{\"a\" \"b\"}",
       "1:8: syntax error while parsing object separator - unexpected string "
       "literal; expected ':'"},
      {"{\"a\":tru}",
       "1:9: syntax error while parsing value - invalid literal; last read: "
       "'\"a\":tru}'"},
      {"{\"a\":01}",
       "1:7: syntax error while parsing object - unexpected number literal; "
       "expected '}'"},
      {"{\"abc",
       "1:6: syntax error while parsing object key - invalid string: missing closing "
       "quote; last read: '\"abc'; expected string literal"},
      {"{\"a\":\"x\ny\"}",
       "1:8: syntax error while parsing value - invalid string: control "
       "character U+000A (LF) must be escaped to \\u000A or \\n; last read: "
       "'\"x<U+000A>'"},
      {"{\"a\":\"\\u12g4\"}",
       "1:11: syntax error while parsing value - invalid string: '\\u' "
       "must be followed by 4 hex digits; last read: '\"\\u12g'"},
      {"{\"a\":\"\\ud800x\"}",
       "1:13: syntax error while parsing value - invalid string: "
       "surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF; "
       "last read: '\"\\ud800x'"},
      {"[\"\xc3(\"]",
       "1:4: syntax error while parsing value - invalid string: ill-formed UTF-8 "
       "byte; last read: '\"\xc3('"},
      {"{\"a\": 123abc}",
       "1:10: syntax error while parsing object - invalid literal; last "
       "read: '123a'; expected '}'"},
      {"{\"a\":1e+}",
       "1:9: syntax error while parsing value - invalid number; expected digit "
       "after exponent sign; last read: '1e+}'"},
      // Stricter than before: a key twice was read as its last value.
      {"{\"a\":1,\"a\":2}", "1:8: duplicate key \"a\" (first at line 1); expected each key once"},
  };
  for (const Case& c : kCases) {
    RunState s;
    std::string err;
    EXPECT_FALSE(RunStateFromJson(c.text, "s.json", &s, &err)) << c.text;
    EXPECT_EQ(err, "s.json:" + c.err + "; expected the JSON railcheck writes") << c.text;
  }
}

TEST(RunState, WrongValuesNameTheirPlaceAndTheExpectedForm) {
  std::string text = RunStateToJson(SampleState());
  RunState s;
  std::string err;
  std::string bad = text;
  bad.replace(bad.find("\"symbol_error\": 12"), 18, "\"symbol_error\": -4");
  EXPECT_FALSE(RunStateFromJson(bad, "state.json", &s, &err));
  EXPECT_EQ(err,
            "state.json: /ports/mlx5_3/counters/symbol_error: got -4; expected a "
            "non-negative integer");
  bad = text;
  bad.replace(bad.find("\"feature_held\": true"), 20, "\"feature_held\": \"yes\"");
  EXPECT_FALSE(RunStateFromJson(bad, "state.json", &s, &err));
  EXPECT_EQ(err, "state.json: /feature_held: got \"yes\"; expected true or false");
  bad = text;
  bad.replace(bad.find("\"published_time\": 1699999700.5"), 30, "\"published_time\": \"soon\"");
  EXPECT_FALSE(RunStateFromJson(bad, "state.json", &s, &err));
  EXPECT_EQ(err.substr(0, 34), "state.json: /published_time: got \"");
  EXPECT_FALSE(RunStateFromJson("[]", "state.json", &s, &err));
  EXPECT_EQ(err, "state.json: /: got array; expected an object");
  EXPECT_FALSE(RunStateFromJson("{\"format\": \"railcheck-baseline\"}", "state.json", &s, &err));
  EXPECT_EQ(err, "state.json: /format: got 'railcheck-baseline'; expected 'railcheck-state'");
  bad = text;
  bad.replace(bad.find("\"version\": 1"), 12, "\"version\": 2");
  EXPECT_FALSE(RunStateFromJson(bad, "state.json", &s, &err));
  EXPECT_EQ(err, "state.json: /version: got 2; expected an integer from 1 to 1");
}

TEST(LoadRunState, ACorruptFileIsAnErrorThatSaysHowToRecover) {
  TempDir tmp;
  WriteFile(tmp / "state.json", "{\"format\": \"railcheck-state\", \"version\": 1, \"node\": ");
  RunState s;
  std::string err;
  EXPECT_EQ(LoadRunState(tmp.path(), "n001", &s, &err), LoadStatus::kCorrupt);
  EXPECT_EQ(err, "corrupt run state: " + tmp.path() +
                     "/state.json:1:53: syntax "
                     "error while parsing value - unexpected end of input; expected '[', '{', or a "
                     "literal; expected the JSON railcheck writes (recover: delete " +
                     tmp.path() +
                     "/state.json; railcheck starts a new record at its next run: rates count "
                     "from then, and a node it drained needs its clean runs again)");
}

TEST(LoadBaseline, ACorruptBaselineSaysToRecordANewOne) {
  TempDir tmp;
  WriteFile(tmp / "baseline.json", "not json");
  NodeBaseline b;
  std::string err;
  EXPECT_EQ(LoadBaseline(tmp.path(), "n001", &b, &err), LoadStatus::kCorrupt);
  EXPECT_NE(err.find("corrupt baseline: " + tmp.path() + "/baseline.json:1:2: syntax error"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("(recover: record a new baseline with `railcheck baseline`, or delete " +
                     tmp.path() + "/baseline.json"),
            std::string::npos)
      << err;
}

TEST(LoadRunState, AnotherNodesStateMeansTheStateDirIsShared) {
  TempDir tmp;
  RunState s = SampleState();
  std::string err;
  ASSERT_TRUE(SaveRunState(tmp.path(), s, &err)) << err;
  EXPECT_EQ(LoadRunState(tmp.path(), "n002", &s, &err), LoadStatus::kError);
  EXPECT_EQ(err, tmp.path() +
                     "/state.json is the run state of node 'n001', not 'n002'; "
                     "expected every node its own state_dir (put %n in health.state_dir)");
}

TEST(LoadRunState, MissingIsNotAnError) {
  TempDir tmp;
  RunState s;
  std::string err;
  EXPECT_EQ(LoadRunState(tmp.path(), "n001", &s, &err), LoadStatus::kMissing);
}

TEST(ReadStateFile, ASymlinkIsNeverFollowed) {
  TempDir tmp;
  WriteFile(tmp / "elsewhere", "{}");
  ASSERT_EQ(symlink((tmp / "elsewhere").c_str(), (tmp / "state.json").c_str()), 0);
  std::string text, err;
  EXPECT_EQ(ReadStateFile(tmp / "state.json", &text, &err), ReadStatus::kError);
  EXPECT_EQ(err, tmp.path() +
                     "/state.json is a symbolic link; expected a regular file written "
                     "by railcheck");
}

TEST(ReadStateFile, AFifoIsRefusedWithoutBlocking) {
  TempDir tmp;
  ASSERT_EQ(mkfifo((tmp / "state.json").c_str(), 0600), 0);
  std::string text, err;
  EXPECT_EQ(ReadStateFile(tmp / "state.json", &text, &err), ReadStatus::kError);
  EXPECT_EQ(err, tmp.path() +
                     "/state.json is not a regular file; expected one written by "
                     "railcheck");
}

TEST(WriteStateFileAtomic, ReplacesTheFileWithMode0644AndLeavesNoTemporary) {
  TempDir tmp;
  std::string err;
  ASSERT_TRUE(WriteStateFileAtomic(tmp / "state.json", "old\n", &err)) << err;
  ASSERT_TRUE(WriteStateFileAtomic(tmp / "state.json", "new\n", &err)) << err;
  EXPECT_EQ(ReadFile(tmp / "state.json"), "new\n");
  struct stat st;
  ASSERT_EQ(stat((tmp / "state.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  size_t entries = 0;
  for (const auto& e : testing::fs::directory_iterator(tmp.path())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);
}

TEST(WriteStateFileAtomic, ACrashMidWriteLeavesTheOldFileWholeAndTheLeftoverIsCleaned) {
  TempDir tmp;
  std::string err;
  ASSERT_TRUE(WriteStateFileAtomic(tmp / "state.json", RunStateToJson(SampleState()), &err));
  // What a run killed between create and rename leaves: a half-written temporary.
  WriteFile(tmp / ".state.json.tmp.99999", "{\"format\": \"railc");
  RunState s;
  ASSERT_EQ(LoadRunState(tmp.path(), "n001", &s, &err), LoadStatus::kOk) << err;
  EXPECT_EQ(s.runs, 7);
  ASSERT_TRUE(WriteStateFileAtomic(tmp / "state.json", "{}\n", &err));
  EXPECT_FALSE(testing::fs::exists(tmp / ".state.json.tmp.99999"));
}

TEST(WriteStateFileAtomic, AFailedWriteLeavesTheOldFile) {
  TempDir tmp;
  std::string err;
  ASSERT_TRUE(WriteStateFileAtomic(tmp / "state.json", "old\n", &err));
  // Something that is not a leftover file sits where the temporary file goes.
  const std::string blocker = tmp / (".state.json.tmp." + std::to_string(getpid()));
  testing::fs::create_directory(blocker);
  EXPECT_FALSE(WriteStateFileAtomic(tmp / "state.json", "new\n", &err));
  EXPECT_EQ(err, "cannot create " + blocker + ": File exists; " + tmp.path() +
                     "/state.json is left as it was");
  EXPECT_EQ(ReadFile(tmp / "state.json"), "old\n");
}

TEST(PrepareStateDir, CreatesTheFolderAndRefusesUnsafeOnes) {
  TempDir tmp;
  std::string err;
  ASSERT_TRUE(PrepareStateDir(tmp / "a/b/n001", &err)) << err;
  struct stat st;
  ASSERT_EQ(stat((tmp / "a/b/n001").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);

  chmod((tmp / "a/b/n001").c_str(), 0777);
  EXPECT_FALSE(PrepareStateDir(tmp / "a/b/n001", &err));
  EXPECT_EQ(err, "state_dir " + tmp.path() +
                     "/a/b/n001 has mode 0777 (writable by group or "
                     "others); expected 0755 or stricter");

  ASSERT_EQ(symlink((tmp / "a/b/n001").c_str(), (tmp / "link").c_str()), 0);
  EXPECT_FALSE(PrepareStateDir(tmp / "link", &err));
  EXPECT_EQ(err, "state_dir " + tmp.path() +
                     "/link is a symbolic link; expected a real folder "
                     "(railcheck does not follow links where it writes as root)");

  WriteFile(tmp / "file", "");
  EXPECT_FALSE(PrepareStateDir(tmp / "file", &err));
  EXPECT_EQ(err, "state_dir " + tmp.path() + "/file is not a folder");
}

TEST(StateLock, ASecondRunWaitsAndThenGivesUpWithAClearError) {
  TempDir tmp;
  StateLock first;
  std::string err;
  ASSERT_TRUE(first.Acquire(tmp.path(), 100, &err)) << err;
  StateLock second;
  EXPECT_FALSE(second.Acquire(tmp.path(), 50, &err));
  EXPECT_EQ(err, tmp.path() +
                     "/lock is held by another railcheck run of this node for more "
                     "than 50 ms");
}

}  // namespace healthcheck_state_test
}  // namespace railguard::health
