// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of plugin/core/hetjob: the SU for every component of a hetjob kept together, on
// etc/dev-4su.yaml (su1 = n001-n008, ..., su4 = n025-n032), and --rail-hetjob.
#include "plugin/core/hetjob.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "base/diag.h"
#include "tests/plugin/dev_layout.h"
#include "topo/topology_yaml.h"

namespace railguard::plugin {
namespace plugin_hetjob_test {

topo::Topology Dev4Su() { return Dev4SuTopology(); }

std::string Name(int i) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "n%03d", i);
  return buf;
}

// All 32 nodes healthy; `idle[s]` idle nodes at the start of SU s (0-based).
std::vector<ScopeNode> Scope(std::vector<int> idle) {
  std::vector<ScopeNode> scope;
  for (int i = 1; i <= 32; ++i) {
    ScopeNode n;
    n.name = Name(i);
    n.healthy = true;
    n.idle = (i - 1) % 8 < idle[static_cast<size_t>((i - 1) / 8)];
    scope.push_back(n);
  }
  return scope;
}

TEST(HetjobTogether, BestFitAmongTheSusThatHoldItNow) {
  const topo::Topology t = Dev4Su();
  // 5 nodes: su2 (6 idle) fits more tightly than su3 (8 idle); su1 (2) and su4 (4) cannot.
  TogetherChoice c = ChooseTogetherSu(t, Scope({2, 6, 8, 4}), 5);
  ASSERT_EQ(c.su, 1);
  EXPECT_EQ(t.sus[1].name, "su2");
  EXPECT_EQ(c.healthy, 8u);
  EXPECT_EQ(c.idle_healthy, 6u);
  ASSERT_EQ(c.outside.size(), 24u);  // every node of su1, su3, su4
  EXPECT_EQ(c.outside.front(), "n001");
  EXPECT_EQ(c.outside[8], "n017");
}

TEST(HetjobTogether, WhenNoneHoldsItNowTheOneWithTheMostIdleNodes) {
  const topo::Topology t = Dev4Su();
  TogetherChoice c = ChooseTogetherSu(t, Scope({2, 3, 1, 0}), 6);
  EXPECT_EQ(c.su, 1);
  EXPECT_EQ(c.idle_healthy, 3u);
}

TEST(HetjobTogether, DegradedNodesDoNotCountAndTooBigFindsNone) {
  const topo::Topology t = Dev4Su();
  std::vector<ScopeNode> scope = Scope({8, 8, 8, 8});
  for (int i = 0; i < 8; ++i) scope[static_cast<size_t>(i)].healthy = i < 6;  // su1: 6 healthy
  for (size_t i = 8; i < scope.size(); ++i) scope[i].healthy = false;
  EXPECT_EQ(ChooseTogetherSu(t, scope, 7).su, -1);
  EXPECT_EQ(ChooseTogetherSu(t, scope, 6).su, 0);
  EXPECT_EQ(ChooseTogetherSu(t, Scope({8, 8, 8, 8}), 9).su, -1);  // larger than any SU
  // Nodes outside the job's scope (another partition) are not offered.
  std::vector<ScopeNode> half;
  for (const ScopeNode& n : Scope({8, 8, 8, 8}))
    if (n.name < "n005" || n.name > "n024") half.push_back(n);  // su1: 4, su4: 8
  EXPECT_EQ(ChooseTogetherSu(t, half, 5).su, 3);
}

TEST(HetjobTogether, TheOptionTravelsInTheSpankEnvironment) {
  bool together = true;
  std::string err;
  EXPECT_TRUE(HetjobTogether({"SPANK_RAIL_PLACEMENT=strict"}, &together, &err));
  EXPECT_FALSE(together);
  EXPECT_TRUE(HetjobTogether({"SPANK_RAIL_HETJOB=together"}, &together, &err));
  EXPECT_TRUE(together);
  EXPECT_TRUE(HetjobTogether({"SPANK_RAIL_HETJOB=apart"}, &together, &err));
  EXPECT_FALSE(together);
  EXPECT_FALSE(HetjobTogether({"SPANK_RAIL_HETJOB=close\n"}, &together, &err));
  EXPECT_EQ(err, "invalid --rail-hetjob value 'close?'; expected together or apart");
}

}  // namespace plugin_hetjob_test
}  // namespace railguard::plugin
