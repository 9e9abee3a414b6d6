// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for railcheck's JSON in Slurm's Extra field (wire/extra_json.h): the strict reader,
// the lenient one, and the writer's output read back.
#include "wire/extra_json.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace railguard::wire {
namespace wire_extra_json_test {

std::string ErrorOf(const std::string& extra) {
  RailcheckExtra e;
  std::string err;
  switch (ReadExtra(extra, ExtraReadMode::kStrict, &e, &err)) {
    case ExtraStatus::kNone:
      return "none";
    case ExtraStatus::kOk:
      return "ok";
    case ExtraStatus::kError:
      return err;
  }
  return "?";
}

TEST(ExtraField, ReadsWhatRailcheckWrites) {
  RailcheckExtra e;
  std::string err;
  ASSERT_EQ(ReadExtra(
                "{\"site\":{\"rack\":7},\"railcheck\":{\"time\":1714559700,\"verdict\":\"drain\","
                "\"rails\":[\"ok\",\"degraded\",\"down\"],\"failed\":[\"rail1:port.rate\","
                "\"rail2:port.state\",\"node:gpu.count\"]}}",
                ExtraReadMode::kStrict, &e, &err),
            ExtraStatus::kOk)
      << err;
  EXPECT_EQ(e.time, 1714559700);
  EXPECT_EQ(e.verdict, "drain");
  ASSERT_EQ(e.rails.size(), 3u);
  EXPECT_EQ(e.rails[1], RailState::kDegraded);
  EXPECT_EQ(e.rails[2], RailState::kDown);
  ASSERT_EQ(e.failed.size(), 3u);
  EXPECT_EQ(e.failed[0].rail, 1);
  EXPECT_EQ(e.failed[0].check, "port.rate");
  EXPECT_EQ(e.failed[2].rail, -1);
  EXPECT_EQ(e.failed[2].check, "gpu.count");
}

TEST(ExtraField, NothingThereOrSomeoneElsesObjectIsNoReport) {
  EXPECT_EQ(ErrorOf(""), "none");
  EXPECT_EQ(ErrorOf("  \n"), "none");
  EXPECT_EQ(ErrorOf("{\"owner\":\"site-inventory\"}"), "none");
}

TEST(ExtraField, MalformedValuesSayWhereAndTheExpectedForm) {
  const std::string form =
      "expected {\"railcheck\":{\"time\":T,\"verdict\":\"drain|restrict|warn|ok\","
      "\"rails\":[\"ok|degraded|down\",...],\"failed\":[\"railN:check\",...]}}";
  EXPECT_EQ(ErrorOf("rack 7, row 3"), "column 1: unexpected 'r'; expected a JSON value; " + form);
  EXPECT_EQ(ErrorOf("{\"railcheck\":{\"time\":1,"),
            "column 24: unexpected end of input; expected '\"' (a key); " + form);
  EXPECT_EQ(ErrorOf("[1]"), "column 1: Extra is an array; " + form);
  EXPECT_EQ(ErrorOf("{\"railcheck\":\"ok\"}"), "column 14: \"railcheck\" is a string; " + form);
  EXPECT_EQ(ErrorOf("{\"railcheck\":{\"time\":\"soon\"}}"),
            "column 22: \"time\" is a string; expected seconds since the epoch; " + form);
  EXPECT_EQ(ErrorOf("{\"railcheck\":{\"time\":1,\"verdict\":\"panic\",\"rails\":[]}}"),
            "column 34: \"verdict\" is \"panic\"; expected \"drain\", \"restrict\", \"warn\" or "
            "\"ok\"");
  EXPECT_EQ(ErrorOf("{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[\"ok\",\"meh\"]}}"),
            "column 53: rail 1 is \"meh\"; expected \"ok\", \"degraded\" or \"down\"");
  EXPECT_EQ(ErrorOf("{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[\"ok\"],"
                    "\"failed\":[\"rail7:port.rate\"]}}"),
            "column 64: failed entry \"rail7:port.rate\"; expected \"railN:check\" with N < 1 "
            "(the rails listed) or \"node:check\", check names in a-z 0-9 . _");
}

TEST(ExtraField, HostileValuesAreRefusedNotFollowed) {
  // Deep nesting, a huge rails array, a huge value, control characters in a check name.
  EXPECT_EQ(ErrorOf("{\"railcheck\":" + std::string(5000, '[')),
            "column 21: nested deeper than 8 levels; expected {\"railcheck\":{\"time\":T,"
            "\"verdict\":\"drain|restrict|warn|ok\",\"rails\":[\"ok|degraded|down\",...],"
            "\"failed\":[\"railN:check\",...]}}");
  std::string many = "{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[";
  for (int i = 0; i < 65; ++i) many += std::string(i ? "," : "") + "\"ok\"";
  EXPECT_EQ(ErrorOf(many + "]}}"),
            "column 47: \"rails\" has 65 entries; expected an array of at most 64 rail states "
            "(\"ok\", \"degraded\" or \"down\")");
  EXPECT_EQ(ErrorOf(std::string(70000, ' ') + "{}"),
            "Extra is 70002 bytes; expected at most 65536");
  EXPECT_NE(ErrorOf("{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[\"ok\"],"
                    "\"failed\":[\"rail0:\\u001b[31m\"]}}")
                .find("failed entry"),
            std::string::npos);
}

TEST(ExtraField, WhatIsWrittenReadsBackAndKeepsOtherKeys) {
  RailcheckExtra mine;
  mine.time = 1714559700.9;
  mine.verdict = "restrict";
  mine.rails = {RailState::kOk, RailState::kDegraded, RailState::kDown};
  mine.failed = {{1, "link.errors"}, {-1, "gpu.count"}, {1, "link.errors"}};
  const std::optional<std::string> text = WriteExtra(mine, "{\"site\":{\"rack\":7,\"u\":1.5}}");
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text,
            "{\"railcheck\":{\"failed\":[\"rail1:link.errors\",\"node:gpu.count\"],\"rails\":"
            "[\"ok\",\"degraded\",\"down\"],\"time\":1714559700,\"verdict\":\"restrict\"},"
            "\"site\":{\"rack\":7,\"u\":1.5}}");
  RailcheckExtra back;
  std::string err;
  ASSERT_EQ(ReadExtra(*text, ExtraReadMode::kStrict, &back, &err), ExtraStatus::kOk) << err;
  EXPECT_EQ(back.time, 1714559700);
  EXPECT_EQ(back.verdict, "restrict");
  EXPECT_EQ(back.rails, mine.rails);
  ASSERT_EQ(back.failed.size(), 2u);
  EXPECT_EQ(back.failed[0].rail, 1);
  EXPECT_EQ(back.failed[0].check, "link.errors");
  EXPECT_EQ(back.failed[1].rail, -1);
  // Rewritten over itself, the text stays the same.
  EXPECT_EQ(WriteExtra(back, *text), text);
  EXPECT_FALSE(WriteExtra(mine, "rack 7").has_value());
  EXPECT_FALSE(WriteExtra(mine, "[1]").has_value());
}

// Observe mode's "would" and the drain budget's "budget":"over" (issue 23).
TEST(ExtraField, WouldAndBudgetReadBackAndBadValuesAreRefused) {
  RailcheckExtra mine;
  mine.time = 1;
  mine.verdict = "drain";
  mine.rails = {RailState::kOk, RailState::kDown};
  mine.would = std::vector<std::string>{"drain", "requeue"};
  mine.over_budget = true;
  const std::optional<std::string> text = WriteExtra(mine, "");
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text,
            "{\"railcheck\":{\"budget\":\"over\",\"failed\":[],\"rails\":[\"ok\",\"down\"],"
            "\"time\":1,\"verdict\":\"drain\",\"would\":[\"drain\",\"requeue\"]}}");
  RailcheckExtra back;
  std::string err;
  ASSERT_EQ(ReadExtra(*text, ExtraReadMode::kStrict, &back, &err), ExtraStatus::kOk) << err;
  ASSERT_TRUE(back.would);
  EXPECT_EQ(*back.would, *mine.would);
  EXPECT_TRUE(back.over_budget);
  // Without them: enforce mode, within the budget.
  mine.would.reset();
  mine.over_budget = false;
  ASSERT_EQ(ReadExtra(*WriteExtra(mine, ""), ExtraReadMode::kStrict, &back, &err),
            ExtraStatus::kOk);
  EXPECT_FALSE(back.would);
  EXPECT_FALSE(back.over_budget);
  EXPECT_EQ(ErrorOf("{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[],"
                    "\"would\":[\"reboot\"]}}"),
            "column 59: \"would\" entry \"reboot\"; expected an array of \"drain\", "
            "\"restrict\", \"requeue\", \"resume\"");
  EXPECT_EQ(ErrorOf("{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[],"
                    "\"budget\":\"under\"}}"),
            "column 59: \"budget\" is \"under\"; expected \"over\"");
}

TEST(ExtraField, TheLenientReaderTakesOnlyTheRailsAndNeverErrs) {
  RailcheckExtra e;
  std::string err;
  EXPECT_EQ(ReadExtra("{\"railcheck\":{\"rails\":[\"down\",\"meh\",7,\"degraded\"]}}",
                      ExtraReadMode::kLenient, &e, &err),
            ExtraStatus::kOk);
  EXPECT_EQ(e.rails, (std::vector<RailState>{RailState::kDown, RailState::kOk, RailState::kOk,
                                              RailState::kDegraded}));
  EXPECT_TRUE(e.verdict.empty());
  for (const std::string& other :
       {std::string(""), std::string("rack 7"), std::string("[1]"), std::string("{\"a\":1}"),
        std::string("{\"railcheck\":\"ok\"}"), std::string("{\"railcheck\":{\"rails\":1}}")}) {
    EXPECT_EQ(ReadExtra(other, ExtraReadMode::kLenient, &e, &err), ExtraStatus::kNone) << other;
    EXPECT_TRUE(e.rails.empty());
  }
}

TEST(ExtraField, RailStatesHaveTheirWords) {
  EXPECT_STREQ(RailStateName(RailState::kOk), "ok");
  EXPECT_STREQ(RailStateName(RailState::kDegraded), "degraded");
  EXPECT_STREQ(RailStateName(RailState::kDown), "down");
  EXPECT_STREQ(RailStateName(RailState::kUnknown), "unknown");
}

}  // namespace wire_extra_json_test
}  // namespace railguard::wire
