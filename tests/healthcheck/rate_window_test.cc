// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for error rates over sliding windows (healthcheck/rate_window.h): how increases are
// kept (merged, bounded, dropped after the longest window) and judged per window.
#include "healthcheck/rate_window.h"

#include <gtest/gtest.h>

namespace railguard::health {
namespace healthcheck_rate_window_test {

constexpr double kT0 = 1700000000;

TEST(RateWindow, RunsCloseTogetherShareASampleAndOldOnesAreDropped) {
  HealthConfig cfg;  // windows of an hour and a day: samples span at most 360 s
  EXPECT_EQ(RateBucketSeconds(cfg), 360);
  RateHistory h;
  AddIncrease(&h, kT0, kT0 + 60, 5, cfg);
  AddIncrease(&h, kT0 + 60, kT0 + 300, 7, cfg);   // merged: spans 300 s
  AddIncrease(&h, kT0 + 300, kT0 + 400, 0, cfg);  // nothing new
  AddIncrease(&h, kT0 + 400, kT0 + 500, 1, cfg);  // 500 s: a new sample
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].from, kT0);
  EXPECT_EQ(h[0].to, kT0 + 300);
  EXPECT_EQ(h[0].count, 12u);
  EXPECT_EQ(h[1].count, 1u);
  AddIncrease(&h, kT0 + 500, kT0 + 300 + 86400, 0, cfg);
  ASSERT_EQ(h.size(), 1u) << "the first ended a day ago";
  AddIncrease(&h, kT0 + 86400, kT0 + 500 + 86400, 0, cfg);
  EXPECT_TRUE(h.empty());
}

// A counter that rises at every run, runs every 10 s for two days: the history stays small.
TEST(RateWindow, AHistoryStaysBounded) {
  HealthConfig cfg;
  RateHistory h;
  size_t most = 0;
  for (int i = 1; i <= 2 * 8640; ++i) {
    AddIncrease(&h, kT0 + 10.0 * (i - 1), kT0 + 10.0 * i, 1, cfg);
    most = std::max(most, h.size());
  }
  EXPECT_LE(most, 2 * 86400 / 360 + 2);
  uint64_t total = 0;
  for (const RateSample& r : h) total += r.count;
  EXPECT_GE(total, 8600u) << "a day's increases are all still there";
  // A history read from a file may hold more than a run ever makes: cut to the cap by
  // merging the oldest, so that no increase is lost.
  RateHistory big;
  for (int i = 0; i < 600; ++i) big.push_back(RateSample{kT0 + i, kT0 + i, 1});
  AddIncrease(&big, kT0 + 600, kT0 + 600, 0, cfg);
  EXPECT_EQ(big.size(), kMaxRateSamples);
  total = 0;
  for (const RateSample& r : big) total += r.count;
  EXPECT_EQ(total, 600u);
  EXPECT_EQ(big[0].from, kT0);
}

TEST(RateWindow, TheFirstWindowAboveTheLimitIsReported) {
  HealthConfig cfg;
  RateHistory h = {{kT0, kT0 + 300, 200}};
  std::optional<WindowRise> w = OverLimit(h, kT0 + 600, 120, cfg);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->window, 3600);
  EXPECT_EQ(w->count, 200u);
  EXPECT_EQ(w->seconds, 3600);
  EXPECT_EQ(WindowRiseText(*w, 120), " +200 in the last 60 min (200/h) > limit 120/h");
  EXPECT_FALSE(OverLimit(h, kT0 + 300 + 3600, 120, cfg).has_value())
      << "out of the hour, and 200 in a day is below 120/h";
  EXPECT_FALSE(OverLimit(h, kT0 + 600, 200, cfg).has_value()) << "at the limit is not above";
  EXPECT_FALSE(OverLimit(RateHistory(), kT0, 0, cfg).has_value());
}

TEST(RateWindow, AnyIncreaseIsJudgedInTheShortestWindowOnly) {
  HealthConfig cfg;
  RateHistory h = {{kT0, kT0 + 300, 1}};
  EXPECT_TRUE(OverLimit(h, kT0 + 3000, 0, cfg).has_value());
  EXPECT_FALSE(OverLimit(h, kT0 + 300 + 3600, 0, cfg).has_value());
}

}  // namespace healthcheck_rate_window_test
}  // namespace railguard::health
