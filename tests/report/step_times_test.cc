// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for railguard's step-time file (report/step_times.h).
#include "report/step_times.h"

#include <gtest/gtest.h>

#include <string>

namespace railguard::report {
namespace report_step_times_test {

TEST(StepTimes, StepsWithCommentsBomAndCrlfGiveMedianP95AndTheSlowest) {
  std::string text = "\xEF\xBB\xBF# railguard step times\r\n\r\n";
  for (int i = 1; i <= 100; ++i)
    text += std::to_string(i) + (i % 2 ? " " : "\t") + (i == 37 ? "9.5" : i > 90 ? "2.0" : "1.0") +
            "\r\n";
  StepTimes t;
  Diags d;
  ASSERT_TRUE(ParseStepTimes(text, "steps.txt", &t, &d)) << FormatDiags(d);
  ASSERT_EQ(t.seconds.size(), 100u);
  EXPECT_DOUBLE_EQ(t.Median(), 1.0);
  EXPECT_DOUBLE_EQ(t.Percentile(0.95), 2.0);
  EXPECT_EQ(t.steps[t.Slowest()], 37u);
  EXPECT_TRUE(LooksLikeStepTimes(text));
}

TEST(StepTimes, BadLinesNameFileLineColumnAndTheForm) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"1 1.0\n2 fast\n", "steps.txt:2:3: time 'fast' is not a number of seconds > 0"},
      {"1 1.0\n2 0\n", "steps.txt:2:3: time '0'"},
      {"1 1.0\n-2 1.0\n", "steps.txt:2:1: step '-2' is not a whole number"},
      {"1 1.0 extra\n", "steps.txt:1:1: 3 or more words"},
      {"1\n", "steps.txt:1:1: 1 words"},
      {"# only a comment\n", "steps.txt: no step"},
      {"1 nan\n", "time 'nan'"},
      {"1 1e400\n", "time '1e400'"},
  };
  for (const Case& c : cases) {
    StepTimes t;
    Diags d;
    EXPECT_FALSE(ParseStepTimes(c.text, "steps.txt", &t, &d)) << c.text;
    EXPECT_NE(FormatDiags(d).find(c.want), std::string::npos) << c.text << "\n" << FormatDiags(d);
    EXPECT_NE(FormatDiags(d).find("; expected "), std::string::npos) << FormatDiags(d);
  }
}

TEST(StepTimes, NcclTestsRowsAreNotStepTimes) {
  EXPECT_FALSE(LooksLikeStepTimes("        8   2   float  sum  -1  135.8  0.00  0.00  0\n"));
  EXPECT_FALSE(LooksLikeStepTimes("# nothing\n"));
}

}  // namespace report_step_times_test
}  // namespace railguard::report
