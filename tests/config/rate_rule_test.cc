// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of config/rate_rule.h: the averaging time and the over-limit test that railcheck's
// windows and the fabric sweep's windows share.
#include "config/rate_rule.h"

#include <gtest/gtest.h>

namespace railguard {
namespace config_rate_rule_test {

TEST(AveragingSeconds, IsTheLongestOfWindowMinimumIntervalAndSpan) {
  HealthConfig h;
  h.min_rate_interval_seconds = 3600;
  EXPECT_EQ(AveragingSeconds(h, 600, 60), 3600);     // one error a minute after the baseline
  EXPECT_EQ(AveragingSeconds(h, 86400, 60), 86400);  // the day window
  EXPECT_EQ(AveragingSeconds(h, 3600, 7200), 7200);  // runs two hours apart
  h.min_rate_interval_seconds = 0;
  EXPECT_EQ(AveragingSeconds(h, 300, 60), 300);
}

TEST(RateOverLimit, ZeroLimitIsAnyIncreaseAndNoIncreaseIsNeverOver) {
  EXPECT_TRUE(RateOverLimit(1, 1, 0));
  EXPECT_FALSE(RateOverLimit(0, 0, 0));
  EXPECT_FALSE(RateOverLimit(0, 500, 120));  // no increase, whatever the average says
  EXPECT_FALSE(RateOverLimit(120, 120, 120));  // at the limit is not over it
  EXPECT_TRUE(RateOverLimit(121, 121, 120));
}

}  // namespace config_rate_rule_test
}  // namespace railguard
