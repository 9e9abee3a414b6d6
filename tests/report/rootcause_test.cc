// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the root-cause suspects (report/rootcause.h) on the dev layout: 4 SUs x 8 nodes,
// 8 rails, leaves <su>-rail<k>.
#include "report/rootcause.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/report/report_test_util.h"
#include "topo/topology_yaml.h"

namespace railguard::report {
namespace report_rootcause_test {

using testing::Build;
using testing::DevTopology;
using testing::Fault;
using testing::HealthySnapshot;

std::string Nodes(const Report& r, const Suspect& s) {
  std::string out;
  for (int i : s.nodes) out += (out.empty() ? "" : " ") + r.nodes[static_cast<size_t>(i)].name;
  return out;
}

TEST(RootCause, AHealthyClusterHasNoSuspects) {
  const topo::Topology t = DevTopology();
  EXPECT_TRUE(Build(HealthySnapshot(t), t).suspects.empty());
}

TEST(RootCause, AWholeLeafIsOneSuspectNamingTheLeafNotEightNodes) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  for (int i = 9; i <= 16; ++i) Fault(&s, testing::N(i), "ooodoooo", true, "port.rate");
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 1u);
  const Suspect& top = r.suspects[0];
  EXPECT_EQ(top.rank, 1);
  EXPECT_EQ(top.kind, "leaf");
  EXPECT_EQ(top.component, "su2-rail3");
  EXPECT_EQ(top.leaf, "su2-rail3");
  EXPECT_EQ(top.confidence, "high");
  EXPECT_EQ(top.title,
            "leaf switch su2-rail3 (su2, rail3) or its uplinks: 8 of 8 nodes bad on rail3");
  EXPECT_EQ(Nodes(r, top), "n009 n010 n011 n012 n013 n014 n015 n016");
  ASSERT_GE(top.evidence.size(), 5u);
  EXPECT_EQ(top.evidence[0],
            "8 of 8 reporting nodes of su2 have rail3 bad (8 degraded): n[009-016]");
  EXPECT_EQ(top.evidence[1], "their other rails are ok: the fault is on rail3 only");
  EXPECT_EQ(top.evidence[2], "rail3 in the other 3 SUs: 24 nodes ok, 0 degraded or down");
  EXPECT_EQ(top.evidence[3], "failed checks: port.rate (8)");
  EXPECT_EQ(top.evidence[4], "Slurm: 8 drained by railcheck");
}

TEST(RootCause, OneNodeOneRailIsTheCableWithNodeRailNicLeafAndPort) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  Fault(&s, "n013", "oooooxoo", false);  // 5th node of su2, rail 5 down
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 1u);
  const Suspect& c = r.suspects[0];
  EXPECT_EQ(c.kind, "cable");
  EXPECT_EQ(c.title, "cable, optic or NIC port: n013 rail5 (mlx5_9) -> su2-rail5 port 5");
  EXPECT_EQ(c.nic, "mlx5_9");
  EXPECT_EQ(c.leaf, "su2-rail5");
  EXPECT_EQ(c.port, 5);
  EXPECT_EQ(c.rail, 5);
  EXPECT_EQ(r.nodes[static_cast<size_t>(c.node)].name, "n013");
  EXPECT_EQ(c.confidence, "high");
  EXPECT_EQ(c.down, 1);
  ASSERT_GE(c.evidence.size(), 3u);
  EXPECT_EQ(c.evidence[0], "n013 reports rail5 down (link.errors); its other rails are ok");
  EXPECT_EQ(c.evidence[1], "the other 7 nodes of su2 are ok on rail5: leaf su2-rail5 works");
  EXPECT_EQ(c.evidence[2],
            "port 5 is a guess (no sweep given): n013 is node 5 of su2 (leaf port = position in "
            "the SU + 1)");
  EXPECT_EQ(c.port_source, "guess");
}

TEST(RootCause, OnlyPcieChecksOnOneRailPointAtTheNicNotTheCable) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  Fault(&s, "n001", "odoooooo", true, "pcie.width");
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].kind, "nic");
  EXPECT_EQ(r.suspects[0].title, "NIC mlx5_3 of n001 (rail1) or its PCIe slot: pcie.width");
}

TEST(RootCause, OneNodeSeveralRailsIsTheHostSide) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  Fault(&s, "n020", "oddooooo", true, "pcie.width");
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 1u);
  const Suspect& h = r.suspects[0];
  EXPECT_EQ(h.kind, "host");
  EXPECT_EQ(h.title,
            "host side of n020 (PCIe switch, NIC card, driver or firmware): rails 1, 2 bad");
  EXPECT_EQ(h.nic, "mlx5_3, mlx5_4");
  EXPECT_EQ(h.confidence, "high");
}

TEST(RootCause, EveryRailOfManySusIsTheSpinesOrTheSubnetManager) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  for (int i = 1; i <= 16; ++i) {
    Fault(&s, testing::N(i), "dddddddd");
  }
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].kind, "fabric");
  EXPECT_EQ(r.suspects[0].component, "spines (spine1, spine2) or the subnet manager");
  EXPECT_EQ(r.suspects[0].nodes.size(), 16u);
  EXPECT_EQ(r.suspects[0].title,
            "spine layer (spine1, spine2) or the subnet manager: every rail of 2 SUs (su1, "
            "su2) is degraded");
}

TEST(RootCause, EveryRailOfOneSuIsThatSuNotEightLeaves) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  for (int i = 25; i <= 32; ++i) Fault(&s, testing::N(i), "dddddddo");
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].kind, "su");
  EXPECT_EQ(r.suspects[0].component, "su4 leaves (su4-rail0 .. su4-rail7)");
}

TEST(RootCause, OneRailInManySusIsTheRailPlane) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  for (int i = 1; i <= 4; ++i) Fault(&s, testing::N(i), "ddoooooo");
  for (int i = 17; i <= 20; ++i) Fault(&s, testing::N(i), "oooooood");
  for (int i = 25; i <= 28; ++i) Fault(&s, testing::N(i), "oooooood");
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 3u);
  EXPECT_EQ(r.suspects[0].kind, "rail-plane");
  EXPECT_EQ(r.suspects[0].rail, 7);
  EXPECT_EQ(r.suspects[0].nodes.size(), 8u);
  // su1's two rails: two leaves of one SU (below the su rule), each 4 of 8 nodes.
  EXPECT_EQ(r.suspects[1].kind, "leaf");
  EXPECT_EQ(r.suspects[1].component, "su1-rail0");
  EXPECT_EQ(r.suspects[1].confidence, "medium");
  EXPECT_EQ(r.suspects[2].component, "su1-rail1");
}

TEST(RootCause, BelowTheLeafThresholdNodesStayCablesWithMediumConfidence) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  Fault(&s, "n001", "oodooooo");
  Fault(&s, "n002", "oodooooo");
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 2u);
  for (const Suspect& c : r.suspects) {
    EXPECT_EQ(c.kind, "cable");
    EXPECT_EQ(c.confidence, "medium");
    ASSERT_GE(c.evidence.size(), 2u);
    EXPECT_EQ(c.evidence[1],
              "1 other node(s) of su1 are bad on rail2 too (below the leaf threshold of 3): "
              "watch leaf su1-rail2");
  }
  EXPECT_EQ(r.suspects[0].port, 1);
  EXPECT_EQ(r.suspects[1].port, 2);
}

TEST(RootCause, RanksByNodesAffectedThenBreadth) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  Fault(&s, "n003", "oooooxoo");                                       // a cable
  for (int i = 9; i <= 16; ++i) Fault(&s, testing::N(i), "ooodoooo");  // a leaf
  Fault(&s, "n020", "oddooooo");                                       // a host
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 3u);
  EXPECT_EQ(r.suspects[0].kind, "leaf");
  EXPECT_EQ(r.suspects[1].kind, "host");
  EXPECT_EQ(r.suspects[2].kind, "cable");
  EXPECT_EQ(r.suspects[2].rank, 3);
}

TEST(RootCause, ANodeOnABadLeafWithAnotherBadRailGetsItsOwnSuspectForThatRail) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  for (int i = 9; i <= 16; ++i) Fault(&s, testing::N(i), "ooodoooo");
  Fault(&s, "n010", "ooodoood");
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 2u);
  EXPECT_EQ(r.suspects[0].kind, "leaf");
  EXPECT_EQ(r.suspects[1].kind, "cable");
  EXPECT_EQ(r.suspects[1].rail, 7);
  ASSERT_FALSE(r.suspects[1].evidence.empty());
  EXPECT_EQ(r.suspects[1].evidence[0],
            "n010 reports rail7 degraded (link.errors); its other rails are explained by "
            "another suspect");
}

TEST(RootCause, ADrainReasonAloneGivesALowConfidenceSuspect) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  NodeSnapshot* n = testing::Node(&s, "n005");
  n->extra = "";
  n->flags = {"drain"};
  n->reason = "railcheck: rail6 mlx5_10 port DOWN";
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].kind, "cable");
  EXPECT_EQ(r.suspects[0].rail, 6);
  EXPECT_EQ(r.suspects[0].confidence, "low");
}

TEST(RootCause, LeafPortIsPositionPlusOneUnlessTheLeafHasNoSuchPort) {
  topo::Topology t = DevTopology();
  EXPECT_EQ(LeafPort(t, 1, 3, 0), 1);
  EXPECT_EQ(LeafPort(t, 1, 3, 7), 8);
  t.sus[1].leaves[3].sw.ports = 4;
  EXPECT_EQ(LeafPort(t, 1, 3, 7), 0);
  EXPECT_EQ(LeafPort(t, 1, 3, 3), 4);
  EXPECT_EQ(LeafPort(t, 9, 3, 0), 0);
}

}  // namespace report_rootcause_test
}  // namespace railguard::report

namespace railguard::report {
namespace report_rootcause_test {

// tests/data/topo/b300-2su.yaml: 2 SUs of 32 nodes, two leaves per rail of 16 nodes each.
topo::Topology SplitTopology() {
  topo::Topology t;
  Diags d;
  EXPECT_TRUE(topo::LoadTopologyFile(testing::kSrc + "/tests/data/topo/b300-2su.yaml", &t, &d))
      << FormatDiags(d);
  return t;
}

TEST(RootCauseDomains, ASplitSuIsReportedDomainByDomain) {
  const topo::Topology t = SplitTopology();
  const Report r = Build(HealthySnapshot(t), t);
  ASSERT_EQ(r.sus.size(), 4u);
  EXPECT_EQ(r.sus[0].name, "su1-d1");
  EXPECT_EQ(r.sus[1].name, "su1-d2");
  EXPECT_EQ(r.sus[1].leaves[2], "su1-r2-b");
  for (const SuRow& su : r.sus)
    for (const Cell& c : su.cells) EXPECT_EQ(c.ok, 16);
  EXPECT_EQ(r.largest_job, 16);  // one domain: what one-hop placement can give a job
  EXPECT_EQ(testing::RowOf(r, "n020").leaf_ports[2], 4);  // guessed: 4th node of its leaf
}

TEST(RootCauseDomains, AFaultyLeafOfASplitSuIsThatLeafNotHalfTheSu) {
  const topo::Topology t = SplitTopology();
  Snapshot s = HealthySnapshot(t);
  // su1-r2-b serves n017-n032; 8 of them bad on rail 2.
  for (int i = 17; i <= 24; ++i) Fault(&s, testing::N(i), "oodooooo", true, "port.rate");
  const Report r = Build(s, t);
  ASSERT_EQ(r.suspects.size(), 1u);
  EXPECT_EQ(r.suspects[0].kind, "leaf");
  EXPECT_EQ(r.suspects[0].leaf, "su1-r2-b");
  EXPECT_EQ(r.suspects[0].title,
            "leaf switch su1-r2-b (su1-d2, rail2) or its uplinks: 8 of 16 nodes bad on rail2");
}

}  // namespace report_rootcause_test
}  // namespace railguard::report
