// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the feature keeper's per-node rule: the healthy feature is active as the health
// railcheck published in Extra (wire/extra_json.h format) says, given back only after
// slurmctld reread slurm.conf, taken away whenever Extra says the node is not healthy, and
// available on every rail node from a reread on.
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

TEST(FixFeatures, ADegradedNodeLosesTheActiveFeatureWhateverSlurmConfSays) {
  auto fix = FixFeatures("gpu,rail_healthy,ib", "", ExtraSaysHealthy(kDegraded), "rail_healthy",
                         false, true);
  ASSERT_TRUE(fix.has_value());
  EXPECT_EQ(fix->features, "gpu,rail_healthy,ib") << "available: kept, no config record split";
  EXPECT_EQ(fix->features_act, "gpu,ib");
  EXPECT_FALSE(FixFeatures("gpu", "gpu", false, "rail_healthy", false, true).has_value());
}

TEST(FixFeatures, ANodeNeverCheckedIsNotHealthy) {
  auto fix =
      FixFeatures("rail_healthy", "rail_healthy", ExtraSaysHealthy(""), "rail_healthy", true, true);
  ASSERT_TRUE(fix.has_value());
  EXPECT_EQ(fix->features_act, "");
}

TEST(FixFeatures, AHealthyNodeGetsItBackOnlyWhenSlurmConfWasReread) {
  EXPECT_FALSE(FixFeatures("gpu", "gpu", true, "rail_healthy", false, true).has_value())
      << "between rereads railcheck decides when a node earns the feature back";
  auto fix = FixFeatures("gpu", "gpu", true, "rail_healthy", true, true);
  ASSERT_TRUE(fix.has_value());
  EXPECT_EQ(fix->features, "gpu,rail_healthy");
  EXPECT_EQ(fix->features_act, "gpu,rail_healthy");
  EXPECT_FALSE(FixFeatures("gpu,rail_healthy", "", true, "rail_healthy", true, true).has_value());
}

TEST(FixFeatures, EveryRailNodeHasItAvailableAfterARereadHealthyOrNot) {
  // Not healthy (or never checked): available only, so that the node keeps sharing Slurm's
  // config record with its neighbours and railcheck later changes only its active list.
  auto fix = FixFeatures("su1", "", false, "rail_healthy", true, true);
  ASSERT_TRUE(fix.has_value());
  EXPECT_EQ(fix->features, "su1,rail_healthy");
  EXPECT_EQ(fix->features_act, "su1");
  // A node outside the rail topology (a login or CPU node) is left as it is.
  EXPECT_FALSE(FixFeatures("cpu", "", false, "rail_healthy", true, false).has_value());
  EXPECT_FALSE(FixFeatures("cpu", "", true, "rail_healthy", false, false).has_value());
  // Between rereads nothing is made available.
  EXPECT_FALSE(FixFeatures("su1", "", false, "rail_healthy", false, true).has_value());
}

TEST(ExtraHealthCache, AnswersAsExtraSaysHealthyPerSlot) {
  ExtraHealthCache cache;
  EXPECT_TRUE(cache.Healthy(0, kOk));
  EXPECT_FALSE(cache.Healthy(1, kDegraded));
  EXPECT_TRUE(cache.Healthy(0, kOk));  // from memory, same answer
  EXPECT_EQ(cache.parses(), 2u);
  // A node's new report replaces its old one: the answer follows the text.
  EXPECT_FALSE(cache.Healthy(0, kDegraded));
  EXPECT_TRUE(cache.Healthy(1, kOk));
  EXPECT_FALSE(cache.Healthy(2, "not json"));
  // An empty Extra (nothing published) is not healthy, and is remembered as such.
  EXPECT_FALSE(cache.Healthy(3, ""));
  EXPECT_FALSE(cache.Healthy(3, ""));
  EXPECT_EQ(cache.parses(), 6u);
  // A slot past the bound is answered, parsed each time.
  EXPECT_TRUE(cache.Healthy(ExtraHealthCache::kMaxSlots, kOk));
  EXPECT_TRUE(cache.Healthy(ExtraHealthCache::kMaxSlots, kOk));
  EXPECT_EQ(cache.parses(), 8u);
}

// railcheck's reports carry their time, so 16,384 nodes publish 16,384 different texts: a
// cache of texts bounded at 4,096 (before) was emptied every 4,096 nodes and parsed every node
// on every look (bench/sched_scale.sh --domains 512: a steady keeper pass 110 ms at p50, one
// node's check up to 13.9 ms on CPU). Per node, a look at unchanged nodes parses nothing.
TEST(ExtraHealthCache, ALookAtUnchangedNodesParsesNoneEvenAt16384Nodes) {
  ExtraHealthCache cache;
  auto report = [](int i) {
    return std::string(R"({"railcheck":{"failed":[],"healthy":true,"rails":["ok"],"time":)") +
           std::to_string(1796400000 + i) + R"(,"verdict":"ok"}})";
  };
  for (int i = 0; i < 16384; ++i) ASSERT_TRUE(cache.Healthy(i, report(i)));
  EXPECT_EQ(cache.parses(), 16384u);
  for (int i = 0; i < 16384; ++i) EXPECT_TRUE(cache.Healthy(i, report(i)));
  EXPECT_EQ(cache.parses(), 16384u);                // the second look parsed nothing
  EXPECT_FALSE(cache.Healthy(7, report(7) + "x"));  // a new text: parsed (unreadable)
  EXPECT_EQ(cache.parses(), 16385u);
}

// slurmctld keeps every node's Extra; the cache keeps 16 bytes per node, not a second copy
// of each report (bench/sched_scale.sh on 22.05: the copies were 1.1 MB of slurmctld's RSS
// at 4,096 nodes). Same-length texts that differ in one character are still told apart.
TEST(ExtraHealthCache, HoldsNoCopyOfTheReports) {
  ExtraHealthCache cache;
  const std::string ok(kOk);
  std::string padded = ok;
  padded.insert(padded.size() - 2, std::string(200, ' '));  // a 230-byte report, as railcheck's
  for (int i = 0; i < 4096; ++i) ASSERT_TRUE(cache.Healthy(i, padded));
  EXPECT_LE(cache.held_bytes(), 4096u * 16u * 2u);  // a vector's growth may double it
  std::string other = padded;
  other[other.find("ok")] = 'n';  // "nk": the same length, another verdict
  EXPECT_FALSE(cache.Healthy(5, other));
  EXPECT_TRUE(cache.Healthy(6, padded));
  EXPECT_TRUE(cache.Healthy(5, padded));
}

TEST(FixFeatures, AnActiveListOutOfStepIsRepaired) {
  auto fix = FixFeatures("gpu,rail_healthy", "gpu", true, "rail_healthy", true, true);
  ASSERT_TRUE(fix.has_value());
  EXPECT_EQ(fix->features_act, "gpu,rail_healthy");
}

}  // namespace plugin_feature_keeper_test
}  // namespace railguard::plugin
