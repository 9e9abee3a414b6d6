// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of report/text_util.h: joined lists and rates per hour as the report shows them.
#include "report/text_util.h"

#include <gtest/gtest.h>

namespace railguard::report {
namespace report_text_util_test {

TEST(ReportText, JoinsWithoutALeadingSeparator) {
  EXPECT_EQ(JoinStrings({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(JoinStrings({"", "a", "b"}, " "), "a b");
  EXPECT_EQ(JoinStrings({}), "");
}

TEST(ReportText, RatesHaveOneDecimalBelowTen) {
  EXPECT_EQ(RatePerHour(0.5), "0.5/h");
  EXPECT_EQ(RatePerHour(9.94), "9.9/h");
  EXPECT_EQ(RatePerHour(12.4), "12/h");
}

}  // namespace report_text_util_test
}  // namespace railguard::report
