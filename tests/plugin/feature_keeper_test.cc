// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the feature keeper's per-node rule: the healthy feature follows the health
// railcheck published in Extra (wire/extra_json.h format), given back only after slurmctld
// reread slurm.conf, taken away whenever Extra says the node is not healthy.
#include "plugin/core/feature_keeper.h"

#include <gtest/gtest.h>

namespace railguard::plugin {
namespace plugin_feature_keeper_test {

const char kOk[] = R"({"railcheck":{"failed":[],"rails":["ok","ok"],"time":1,"verdict":"ok"}})";
const char kDegraded[] =
    R"({"railcheck":{"failed":["rail1:port.rate"],"rails":["ok","degraded"],"time":1,"verdict":"restrict"}})";

TEST(ExtraSaysHealthy, OnlyAnOkOrWarnReportWithEveryRailOk) {
  EXPECT_TRUE(ExtraSaysHealthy(kOk));
  EXPECT_TRUE(ExtraSaysHealthy(
      R"({"railcheck":{"failed":[],"rails":["ok"],"time":1,"verdict":"warn"}})"));
  EXPECT_FALSE(ExtraSaysHealthy(kDegraded));
  EXPECT_FALSE(ExtraSaysHealthy(
      R"({"railcheck":{"failed":[],"rails":["ok","down"],"time":1,"verdict":"ok"}})"));
  EXPECT_FALSE(ExtraSaysHealthy(""));                 // railcheck has not run yet
  EXPECT_FALSE(ExtraSaysHealthy("rack 12, slot 3"));  // someone else's text
  EXPECT_FALSE(ExtraSaysHealthy(R"({"railcheck":{"verdict":"ok"}})"));  // does not read
  // railcheck's own decision wins: the feature withheld for clean runs after a fault.
  EXPECT_FALSE(ExtraSaysHealthy(
      R"({"railcheck":{"failed":[],"healthy":false,"rails":["ok"],"time":1,"verdict":"ok"}})"));
  EXPECT_TRUE(ExtraSaysHealthy(
      R"({"railcheck":{"failed":[],"healthy":true,"rails":["ok"],"time":1,"verdict":"warn"}})"));
  // Judged in observe mode: kept in (a switch to enforce leaves the decision to railcheck's
  // next run, within the drain budget), as is a node over the budget (healthy true).
  EXPECT_TRUE(ExtraSaysHealthy(
      R"({"railcheck":{"failed":["rail1:port.rate"],"healthy":false,"rails":["ok","degraded"],"time":1,"verdict":"drain","would":["drain"]}})"));
  EXPECT_TRUE(ExtraSaysHealthy(
      R"({"railcheck":{"budget":"over","failed":["rail1:port.rate"],"healthy":true,"rails":["ok","degraded"],"time":1,"verdict":"drain"}})"));
}

TEST(FixFeatures, ADegradedNodeLosesTheFeatureWhateverSlurmConfSays) {
  auto fix =
      FixFeatures("gpu,rail_healthy,ib", "", ExtraSaysHealthy(kDegraded), "rail_healthy", false);
  ASSERT_TRUE(fix.has_value());
  EXPECT_EQ(fix->features, "gpu,ib");
  EXPECT_EQ(fix->features_act, "gpu,ib");
  EXPECT_FALSE(FixFeatures("gpu", "gpu", false, "rail_healthy", true).has_value());
}

TEST(FixFeatures, ANodeNeverCheckedIsNotHealthy) {
  auto fix =
      FixFeatures("rail_healthy", "rail_healthy", ExtraSaysHealthy(""), "rail_healthy", true);
  ASSERT_TRUE(fix.has_value());
  EXPECT_EQ(fix->features, "");
}

TEST(FixFeatures, AHealthyNodeGetsItBackOnlyWhenSlurmConfWasReread) {
  EXPECT_FALSE(FixFeatures("gpu", "gpu", true, "rail_healthy", false).has_value())
      << "between rereads railcheck decides when a node earns the feature back";
  auto fix = FixFeatures("gpu", "gpu", true, "rail_healthy", true);
  ASSERT_TRUE(fix.has_value());
  EXPECT_EQ(fix->features, "gpu,rail_healthy");
  EXPECT_EQ(fix->features_act, "gpu,rail_healthy");
  EXPECT_FALSE(FixFeatures("gpu,rail_healthy", "", true, "rail_healthy", true).has_value());
}

TEST(ExtraHealthCache, AnswersAsExtraSaysHealthyAndStaysBounded) {
  ExtraHealthCache cache;
  EXPECT_TRUE(cache.Healthy(kOk));
  EXPECT_FALSE(cache.Healthy(kDegraded));
  EXPECT_TRUE(cache.Healthy(kOk));  // from memory, same answer
  for (size_t i = 0; i < ExtraHealthCache::kMaxEntries + 10; ++i)
    EXPECT_FALSE(cache.Healthy("text " + std::to_string(i)));
  EXPECT_TRUE(cache.Healthy(kOk));
}

TEST(FixFeatures, AnActiveListOutOfStepIsRepaired) {
  auto fix = FixFeatures("gpu,rail_healthy", "gpu", true, "rail_healthy", true);
  ASSERT_TRUE(fix.has_value());
  EXPECT_EQ(fix->features_act, "gpu,rail_healthy");
}

}  // namespace plugin_feature_keeper_test
}  // namespace railguard::plugin
