// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the drain-reason grammar (wire/drain_reason.h): what the writer makes, the reader
// finds again.
#include "wire/drain_reason.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railguard::wire {
namespace wire_drain_reason_test {

TEST(DrainReasonGrammar, WritesThePrefixTheFirstFindingAndHowManyMore) {
  EXPECT_EQ(FormatDrainReason("rail3 mlx5_5 rate 200 < 400 Gb/s", 0),
            "railcheck: rail3 mlx5_5 rate 200 < 400 Gb/s");
  EXPECT_EQ(FormatDrainReason("rail3 mlx5_5 port DOWN", 2),
            "railcheck: rail3 mlx5_5 port DOWN (+2 more)");
  const std::string cut = FormatDrainReason(std::string(300, 'x'), 1);
  EXPECT_EQ(cut.size(), kMaxReasonChars);
  EXPECT_EQ(cut.substr(cut.size() - 13), "... (+1 more)");
}

TEST(DrainReasonGrammar, WhatIsWrittenReadsBack) {
  const std::string reason = FormatDrainReason("rail3 mlx5_5 port DOWN, rail10 mlx5_9", 1);
  EXPECT_TRUE(IsRailcheckReason(reason));
  EXPECT_EQ(RailsInReason(reason, 16), (std::vector<int>{3, 10}));
  EXPECT_EQ(RailsInReason(reason, 8), (std::vector<int>{3}));
}

TEST(DrainReasonGrammar, TheHeadlineIsTheReasonWithoutItsCountOfOthers) {
  EXPECT_EQ(ReasonHeadline("railcheck: rail3 mlx5_5 width 2X < 4X (+2 more)"),
            "railcheck: rail3 mlx5_5 width 2X < 4X");
  EXPECT_EQ(ReasonHeadline("railcheck: rail3 mlx5_5 width 2X < 4X"),
            "railcheck: rail3 mlx5_5 width 2X < 4X");
  EXPECT_EQ(ReasonHeadline("admin: see (+x more)"), "admin: see (+x more)");
  EXPECT_EQ(ReasonHeadline(" (+ more)"), " (+ more)");
  EXPECT_EQ(ReasonHeadline("more)"), "more)");
  EXPECT_EQ(ReasonHeadline(""), "");
}

TEST(DrainReasonGrammar, OnlyWholeRailWordsCountAndOnlyRailchecksPrefix) {
  EXPECT_FALSE(IsRailcheckReason("admin: bad DIMM"));
  EXPECT_FALSE(IsRailcheckReason("railcheck"));
  EXPECT_TRUE(IsRailcheckReason("railcheck:"));
  EXPECT_TRUE(RailsInReason("railcheck: guardrail3 rail3x rail12345 rail", 8).empty());
  EXPECT_EQ(RailsInReason("railcheck: rail2 rail2 (rail1)", 8), (std::vector<int>{2, 1}));
}

}  // namespace wire_drain_reason_test
}  // namespace railguard::wire
