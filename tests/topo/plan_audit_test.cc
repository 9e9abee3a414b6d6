// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for auditing a fabric against its plan (topo/plan_audit.h): the dev 4-SU layout
// simulated as cabled, then with each kind of cabling fault, read back from the simulated
// ibnetdiscover capture; each difference names both ends.
#include "topo/plan_audit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tests/topo/discover_test_util.h"

namespace railguard::topo {
namespace topo_plan_audit_test {

using discover_testing::kDev4su;
using discover_testing::Load;
using discover_testing::LoadFile;
using discover_testing::Parse;
using discover_testing::Simulate;

std::vector<Finding> AuditDev(const std::vector<std::pair<std::string, std::string>>& faults) {
  const Topology plan = LoadFile(kDev4su);
  return AuditAgainstPlan(plan, Parse(Simulate(plan, faults)));
}

std::string All(const std::vector<Finding>& f) { return FindingsText(f, true); }

TEST(PlanAudit, AFabricCabledAsPlannedHasNoDifference) {
  EXPECT_EQ(All(AuditDev({})), "");
}

TEST(PlanAudit, SwappedCablesAreOneLineNamingBothEnds) {
  const std::vector<Finding> d = AuditDev({{"swap", "n001:1:2"}});
  ASSERT_EQ(d.size(), 1u) << All(d);
  EXPECT_EQ(d[0].kind, "swapped");
  EXPECT_EQ(d[0].ToString(),
            "swapped: n001 mlx5_3 and n001 mlx5_4 are on each other's leaves: n001 mlx5_3 on "
            "su1-rail2 port 1 (planned su1-rail1), n001 mlx5_4 on su1-rail1 port 1 (planned "
            "su1-rail2)");
}

TEST(PlanAudit, EachKindOfFaultIsNamed) {
  const std::string all = All(AuditDev({{"drop", "n002:3"},
                                        {"cross-su", "n003:4:su2"},
                                        {"slow", "n004:5:4xHDR"},
                                        {"drop-leaf", "su3:6"},
                                        {"ufm", "ufm01"}}));
  EXPECT_NE(all.find("missing-switch: leaf su3-rail6 of su3 rail 6 is not in the fabric"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("missing-hca: n002 mlx5_5 (rail 3) is not in the fabric"), std::string::npos)
      << all;
  EXPECT_NE(all.find("wrong-leaf: n003 mlx5_6 (rail 4) is cabled to su2-rail4 port "),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("; expected su1-rail4"), std::string::npos) << all;
  EXPECT_NE(all.find("wrong-speed: n004 mlx5_9 on su1-rail5 port 4 trains at 4xHDR; expected "
                     "4xNDR (rail 5)"),
            std::string::npos)
      << all;
  // su3's rail-6 leaf is gone: its nodes' rail 6 is not judged again, node by node.
  EXPECT_EQ(all.find("n017 mlx5_10"), std::string::npos) << all;
}

// The dev plan with the ports of the DGX SuperPOD cabling on su1's leaves: node i on port i+1.
Topology PlanWithPorts() {
  Topology plan = LoadFile(kDev4su);
  for (Leaf& leaf : plan.sus[0].leaves) leaf.first_port = 1;
  return plan;
}

TEST(PlanAudit, ACableOnAnotherPortOfTheRightLeafIsMovedWhereThePlanGivesPorts) {
  const Topology plan = PlanWithPorts();
  // n003's rail-2 cable on port 20 of su1-rail2; n010 (su2, whose plan has no ports) likewise.
  const IbFabric f = Parse(Simulate(plan, {{"move", "n003:2:20"}, {"move", "n010:2:20"}}));
  const std::vector<Finding> d = AuditAgainstPlan(plan, f);
  ASSERT_EQ(d.size(), 1u) << All(d);
  EXPECT_EQ(d[0].ToString(),
            "moved: n003 mlx5_4 is on su1-rail2 port 20; the plan puts it on port 3 (rail 2)");
  EXPECT_EQ(d[0].switch_name, "su1-rail2");
  EXPECT_EQ(d[0].port, 20);
  EXPECT_EQ(All(AuditAgainstPlan(LoadFile(kDev4su), f)), "");  // no ports, no difference
}

TEST(PlanAudit, PortsFollowSlurmsHostOrderNotTheOrderTheHostlistIsWrittenIn) {
  // A fabric cabled n001 on port 1 .. n008 on port 8, and a plan that writes su1's hostlist
  // backwards ("n[008,007,...,001]"): the ports are the same plan.
  const IbFabric f = Parse(Simulate(PlanWithPorts()));
  Topology plan = PlanWithPorts();
  std::reverse(plan.sus[0].nodes.begin(), plan.sus[0].nodes.end());
  plan.Index();
  EXPECT_EQ(All(AuditAgainstPlan(plan, f)), "");
}

TEST(PlanAudit, TwoCablesOnEachOthersPortsAreOneLine) {
  const Topology plan = PlanWithPorts();
  IbFabric f = Parse(Simulate(plan));
  // n001 and n002 trade ports 1 and 2 of su1-rail0 (GUID 0xfc6a1c0300000100).
  const int leaf = f.FindNode(0xfc6a1c0300000100ULL);
  ASSERT_GE(leaf, 0);
  const int l1 = f.FindLink(leaf, 1), l2 = f.FindLink(leaf, 2);
  ASSERT_GE(l1, 0);
  ASSERT_GE(l2, 0);
  for (const int l : {l1, l2}) {
    IbPort& end = f.links[l].a.node == leaf ? f.links[l].a : f.links[l].b;
    end.port = end.port == 1 ? 2 : 1;
  }
  std::swap(f.nodes[leaf].links[1], f.nodes[leaf].links[2]);
  const std::vector<Finding> d = AuditAgainstPlan(plan, f);
  ASSERT_EQ(d.size(), 1u) << All(d);
  EXPECT_EQ(d[0].ToString(),
            "moved: n001 mlx5_0 and n002 mlx5_0 are on each other's ports of su1-rail0: n001 on "
            "port 2 (planned 1), n002 on port 1 (planned 2)");
}

TEST(PlanAudit, AHostThePlanDoesNotHaveIsExtra) {
  Topology plan = LoadFile(kDev4su);
  const IbFabric fabric = Parse(Simulate(plan));
  // The same fabric against a plan without n008: its eight NICs are extra on su1's leaves.
  plan = Load(std::string(R"(cluster: raildev
rails:
  - {index: 0, link: &ndr {rate_gbps: 400, width: 4X, speed: NDR}}
  - {index: 1, link: *ndr}
  - {index: 2, link: *ndr}
  - {index: 3, link: *ndr}
  - {index: 4, link: *ndr}
  - {index: 5, link: *ndr}
  - {index: 6, link: *ndr}
  - {index: 7, link: *ndr}
node_types:
  - name: dgx-h100
    gpus: 8
    nics: [mlx5_0, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_9, mlx5_10, mlx5_11]
scalable_units:
  - name: su1
    nodes: "n[001-007]"
    node_type: dgx-h100
    leaves: [{rail: 0}, {rail: 1}, {rail: 2}, {rail: 3}, {rail: 4}, {rail: 5}, {rail: 6},
             {rail: 7}]
)"));
  const std::vector<Finding> d = AuditAgainstPlan(plan, fabric);
  ASSERT_EQ(d.size(), 8u) << All(d);
  EXPECT_EQ(d[0].ToString(), "extra: \"n008 mlx5_0\" on su1-rail0 port 8 is not in the plan there");
  EXPECT_EQ(FindingsText(d, false),
            "extra: 8 findings (--all lists each), the first 3: \"n008 mlx5_0\" on su1-rail0 port "
            "8 is not in the plan there; \"n008 mlx5_3\" on su1-rail1 port 8 is not in the plan "
            "there; \"n008 mlx5_4\" on su1-rail2 port 8 is not in the plan there\n");
}

TEST(PlanAudit, ALeafWithAGuidIsFoundByItEvenWhenItsNameDiffers) {
  Topology plan = LoadFile(kDev4su);
  AssignSwitchGuids(&plan);
  const IbFabric fabric = Parse(Simulate(plan));
  for (ScalableUnit& su : plan.sus)
    for (Leaf& leaf : su.leaves) leaf.sw.name = "renamed-" + LeafName(su, leaf);
  EXPECT_EQ(All(AuditAgainstPlan(plan, fabric)), "");
  plan.sus[0].leaves[2].sw.guid = "0x00000000deadbeef";
  const std::string all = All(AuditAgainstPlan(plan, fabric));
  EXPECT_NE(all.find("missing-switch: leaf renamed-su1-rail2 (0x00000000deadbeef) of su1 rail 2 "
                     "is not in the fabric; expected a switch with that node GUID"),
            std::string::npos)
      << all;
}

}  // namespace topo_plan_audit_test
}  // namespace railguard::topo
