// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of discovery's audit (topo/discover_audit.h): one finding per injected fault, the
// findings of the real dumps, and their order.
#include "topo/discover_audit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "tests/shared_data.h"
#include "tests/topo/discover_test_util.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_discover_audit_test {

using discover_testing::AllFindings;
using discover_testing::DevOptions;
using discover_testing::DevYamlWithSimulatedGuids;
using discover_testing::DiscoverDev;
using discover_testing::DumpBuilder;
using discover_testing::kDev4su;
using discover_testing::Key;
using discover_testing::Keys;
using discover_testing::kIbtopotool;
using discover_testing::KindCounts;
using discover_testing::kX5;
using discover_testing::LoadFile;
using discover_testing::Parse;
using discover_testing::ParseFile;
using discover_testing::ReplaceAll;
using discover_testing::Simulate;

TEST(DiscoverFaults, SwappedCablesAreTwoRailMismatches) {
  const Discovery d = DiscoverDev({{"swap", "n001:1:2"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"rail-mismatch n001/mlx5_3 su1-rail2 0xfc6a1c0300000102 1",
                                      "rail-mismatch n001/mlx5_4 su1-rail1 0xfc6a1c0300000101 1"}));
  ASSERT_EQ(d.findings.size(), 2u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "n001 mlx5_3 is cabled to su1-rail2 port 1, the leaf of rail 2 (mlx5_4); expected "
            "su1-rail1, the leaf of rail 1 (mlx5_3) (swapped cables?)");
}

TEST(DiscoverFaults, ADroppedCableIsOneMissingLinkOnTheExpectedPort) {
  const Discovery d = DiscoverDev({{"drop", "n005:mlx5_3"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"missing-link n005/mlx5_3 su1-rail1 0xfc6a1c0300000101 5"}));
  ASSERT_EQ(d.findings.size(), 1u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "n005 has no mlx5_3 link (rail 1); expected a cable to su1-rail1 port 5");
}

TEST(DiscoverFaults, AMissingLeafIsOneFindingNotOnePerHost) {
  const Discovery d = DiscoverDev({{"drop-leaf", "su3:2"}});
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"missing-leaf /mlx5_4   0"}));
  ASSERT_EQ(d.findings.size(), 1u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "su3 has no leaf for rail 2 (mlx5_4): none of its 8 hosts (n[017-024]) has a mlx5_4 "
            "link; expected one leaf per rail in every SU");
  // The SU keeps a placeholder leaf for the rail, so the topology still validates.
  ASSERT_EQ(d.topology.sus.size(), 4u);
  ASSERT_EQ(d.topology.sus[2].leaves.size(), 8u);
  const Leaf& placeholder = d.topology.sus[2].leaves[2];
  EXPECT_EQ(placeholder.rail, 2);
  EXPECT_EQ(placeholder.sw.guid, "");
  EXPECT_EQ(placeholder.sw.ports, 0);
  Topology check;
  Diags diags;
  EXPECT_TRUE(LoadTopologyString(EmitTopologyYaml(d.topology), "d.yaml", &check, &diags))
      << FormatDiags(diags);
}

TEST(DiscoverFaults, AnUnnamedHcaIsNamedByTheHostThatLacksIt) {
  const Discovery d = DiscoverDev({{"unnamed", "n007:4"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"unnamed-hca n007/mlx5_6 su1-rail4 0xfc6a1c0300000104 7"}));
  ASSERT_EQ(d.findings.size(), 1u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "\"H-0c42a10300000704\" has the default description \"MT4129 ConnectX7 Mellanox "
            "Technologies\" and cannot be named; it is cabled to su1-rail4 port 7; probably n007 "
            "mlx5_6 (n007 lacks a mlx5_6 link and uses port 7 on its other leaves); expected a "
            "description \"<host> <device>\" (rdma-ndd) or a --node-map entry");
  EXPECT_EQ(d.counts.unnamed, 1);
}

TEST(DiscoverFaults, TwoUnnamedHcasOnOneLeafAreEachMatchedByPort) {
  const Discovery d = DiscoverDev({{"unnamed", "n002:0"}, {"unnamed", "n006:0"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"unnamed-hca n002/mlx5_0 su1-rail0 0xfc6a1c0300000100 2",
                                      "unnamed-hca n006/mlx5_0 su1-rail0 0xfc6a1c0300000100 6"}));
}

TEST(DiscoverFaults, ALeafWithOnlyUnnamedHcasIsAStrayLeafAndNoSpine) {
  std::vector<std::pair<std::string, std::string>> faults;
  for (int n = 25; n <= 32; ++n) faults.push_back({"unnamed", "n0" + std::to_string(n) + ":7"});
  const Discovery d = DiscoverDev(faults);
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{
                               {"missing-leaf", 1}, {"stray-leaf", 1}, {"unnamed-hca", 8}}));
  auto it = std::find_if(d.findings.begin(), d.findings.end(),
                         [](const Finding& f) { return f.kind == "stray-leaf"; });
  ASSERT_NE(it, d.findings.end());
  EXPECT_EQ(it->message,
            "su4-rail7 has 8 unnamed HCAs and no named one, so its rail and SU cannot be told; "
            "left out of the topology");
  EXPECT_EQ(d.topology.spines.size(), 2u);
}

TEST(DiscoverFaults, ANodeMapEntryNamesAnUnnamedHca) {
  DiscoverOptions o = DevOptions();
  o.node_map[0x0c42a10300000704ULL] = "n007 mlx5_6";
  const Discovery d = DiscoverDev({{"unnamed", "n007:4"}}, o);
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(EmitTopologyYaml(d.topology), DevYamlWithSimulatedGuids());
}

TEST(DiscoverFaults, AnHcaOnAnotherSusLeafIsAnSuMismatch) {
  const Discovery d = DiscoverDev({{"cross-su", "n012:5:su4"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"su-mismatch n012/mlx5_9 su4-rail5 0xfc6a1c0300000405 9"}));
  ASSERT_EQ(d.findings.size(), 1u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "n012 mlx5_9 is cabled to su4-rail5 port 9, a leaf of su4; expected su2-rail5, the "
            "rail 5 (mlx5_9) leaf of its own SU su2");
}

TEST(DiscoverFaults, AFewMiscabledHcasDoNotMergeScalableUnits) {
  const Discovery d = DiscoverDev(
      {{"cross-su", "n001:0:su2"}, {"cross-su", "n002:3:su2"}, {"cross-su", "n003:7:su2"}});
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"su-mismatch", 3}}));
  ASSERT_EQ(d.topology.sus.size(), 4u);
  EXPECT_EQ(d.topology.sus[0].nodes_expr, "n[001-008]");
}

TEST(DiscoverFaults, ASlowLinkIsALinkSpeedFinding) {
  const Discovery d = DiscoverDev({{"slow", "n010:0:4xHDR"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"link-speed n010/mlx5_0 su2-rail0 0xfc6a1c0300000200 2"}));
  ASSERT_EQ(d.findings.size(), 1u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "n010 mlx5_0 on su2-rail0 port 2 trains at 4xHDR; expected 4xNDR like most links of "
            "rail 0 (mlx5_0)");
}

TEST(DiscoverFaults, UfmHostsAndSharpNodesAreNonComputeAndLeftOut) {
  const Discovery d = DiscoverDev({{"ufm", "ufm01"}, {"sharp", "2"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"non-compute ufm01/mlx5_0 spine1 0xfc6a1c03ff000001 33",
                                      "non-compute / su1-rail0 0xfc6a1c0300000100 9",
                                      "non-compute / su1-rail1 0xfc6a1c0300000101 9"}));
  ASSERT_EQ(d.findings.size(), 3u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "ufm01 mlx5_0 on spine1 port 33 is a UFM host; left out of the topology");
  EXPECT_EQ(d.findings[1].message,
            "\"H-0c42a103fe000001\" (\"Mellanox Technologies Aggregation Node\") on su1-rail0 port "
            "9 is a SHARP aggregation node; left out of the topology");
  EXPECT_EQ(d.counts.non_compute, 3);
  EXPECT_EQ(EmitTopologyYaml(d.topology), DevYamlWithSimulatedGuids());
}

TEST(DiscoverFaults, TheExcludePatternLeavesHostsOut) {
  DiscoverOptions o = DevOptions();
  std::string err;
  ASSERT_TRUE(CompileExclude("^n03[12] ", &o.exclude, &err)) << err;
  const Discovery d = DiscoverDev({}, o);
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"non-compute", 16}}));
  ASSERT_EQ(d.findings.size(), 16u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "n031 mlx5_0 on su4-rail0 port 7 is matched by --exclude; left out of the topology");
  ASSERT_EQ(d.topology.sus.size(), 4u);
  EXPECT_EQ(d.topology.sus[3].nodes_expr, "n[025-030]");
}

TEST(DiscoverFaults, ALeafShortOfUplinksIsAnUplinkDeficit) {
  const Discovery d = DiscoverDev({{"drop-uplinks", "su2:3:1"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"uplink-deficit /mlx5_5 su2-rail3 0xfc6a1c0300000203 0"}));
  ASSERT_EQ(d.findings.size(), 1u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message, "su2-rail3 has 1 uplink to spines; expected 2 like most leaves");
}

TEST(DiscoverFaults, TwoHcasWithOneDescriptionAreADuplicateHca) {
  const std::string dump =
      ReplaceAll(Simulate(LoadFile(kDev4su)), "\"n002 mlx5_0\"", "\"n001 mlx5_0\"");
  const Discovery d = Discover(Parse(dump), DevOptions());
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"missing-link n002/mlx5_0 su1-rail0 0xfc6a1c0300000100 0",
                                      "duplicate-hca n001/mlx5_0 su1-rail0 0xfc6a1c0300000100 2"}));
  ASSERT_EQ(d.findings.size(), 2u) << AllFindings(d);
  EXPECT_EQ(d.findings[1].message,
            "two HCAs are described \"n001 mlx5_0\": \"H-0c42a10300000100\" and "
            "\"H-0c42a10300000200\" (on su1-rail0 port 2); expected unique host names");
}

TEST(DiscoverFaults, AnHcaOfNoRailIsAStrayHca) {
  const std::string dump =
      ReplaceAll(Simulate(LoadFile(kDev4su)), "\"n003 mlx5_0\"", "\"n003 mlx5_2\"");
  const Discovery d = Discover(Parse(dump), DevOptions());
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"missing-link n003/mlx5_0 su1-rail0 0xfc6a1c0300000100 0",
                                      "stray-hca n003/mlx5_2 su1-rail0 0xfc6a1c0300000100 3"}));
  ASSERT_EQ(d.findings.size(), 2u) << AllFindings(d);
  EXPECT_EQ(d.findings[1].message,
            "n003 mlx5_2 on su1-rail0 port 3 is not an HCA of any rail; expected one of the rail "
            "HCAs (mlx5_0, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_9, mlx5_10, mlx5_11)");
}

TEST(DiscoverFaults, ARailOrderNameNoLeafCarriesIsAMissingLeafInEverySu) {
  DiscoverOptions o = DevOptions();
  o.rail_order = {"mlx5_0", "mlx5_3",  "mlx5_4",  "mlx5_5", "mlx5_6",
                  "mlx5_9", "mlx5_10", "mlx5_11", "mlx5_12"};
  const Discovery d = DiscoverDev({}, o);
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"missing-leaf", 4}}));
  EXPECT_EQ(d.topology.rails.size(), 9u);
}

TEST(DiscoverFaults, LeavesOfAnHcaMissingFromTheRailOrderAreStrayLeaves) {
  DiscoverOptions o = DevOptions();
  o.rail_order = {"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10"};
  const Discovery d = DiscoverDev({}, o);
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"stray-leaf", 4}}));
  ASSERT_EQ(d.findings.size(), 4u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "su1-rail7 has 8 host HCAs, mostly mlx5_11, which is not in --rail-order; left out "
            "of the topology");
  EXPECT_EQ(d.topology.rails.size(), 7u);
}

TEST(DiscoverFaults, ASecondLeafForOneRailOfAnSuIsADuplicateLeaf) {
  DumpBuilder b;
  const int a = b.AddSwitch("MF0;a:MQM9700/U1", 8);
  const int r1 = b.AddSwitch("MF0;b:MQM9700/U1", 8);
  const int c = b.AddSwitch("MF0;c:MQM9700/U1", 8);
  // h1-h2 use leaf a for mlx5_0, h3-h4 use leaf c; all four use leaf b for mlx5_1.
  b.AddHost(a, 1, "h1 mlx5_0");
  b.AddHost(a, 2, "h2 mlx5_0");
  b.AddHost(c, 3, "h3 mlx5_0");
  b.AddHost(c, 4, "h4 mlx5_0");
  for (int i = 1; i <= 4; ++i) b.AddHost(r1, i, "h" + std::to_string(i) + " mlx5_1");
  const Discovery d = Discover(Parse(b.Text()), DiscoverOptions());
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"duplicate-leaf /mlx5_0 c 0x000000000000aa02 0"}));
  ASSERT_EQ(d.findings.size(), 1u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "su1 has two leaves for rail 0 (mlx5_0): a (2 host links) and c (2 host links); left "
            "out c; expected one leaf per rail");
  ASSERT_EQ(d.topology.sus.size(), 1u);
  EXPECT_EQ(d.topology.sus[0].nodes_expr, "h[1-4]");
}

TEST(DiscoverFaults, LeafToLeafCablesAndSlowSwitchLinksAreFound) {
  DumpBuilder b;
  const int l0 = b.AddSwitch("MF0;l0:MQM9700/U1", 8);
  const int l1 = b.AddSwitch("MF0;l1:MQM9700/U1", 8);
  const int sp = b.AddSwitch("MF0;sp:MQM9700/U1", 8);
  for (int i = 1; i <= 2; ++i) {
    b.AddHost(l0, i, "h" + std::to_string(i) + " mlx5_0");
    b.AddHost(l1, i, "h" + std::to_string(i) + " mlx5_1");
  }
  b.Cable(l0, 5, sp, 1);
  b.Cable(l1, 5, sp, 2, "4xHDR");
  b.Cable(l0, 6, l1, 6);
  const Discovery d = Discover(Parse(b.Text()), DiscoverOptions());
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"link-speed / l1 0x000000000000aa01 5",
                                               "leaf-link / l0 0x000000000000aa00 6"}));
  ASSERT_EQ(d.findings.size(), 2u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "switch link l1 port 5 - sp port 2 trains at 4xHDR; expected 4xNDR like most switch "
            "links");
  EXPECT_EQ(d.findings[1].message,
            "l0 port 6 is cabled to l1 port 6, another leaf; expected leaves to connect only to "
            "spines");
}

TEST(DiscoverRealDumps, X5WithoutAMapIsUnnamedHcasAndNoRails) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5/X5.topofile");
  const Discovery d = Discover(ParseFile(kX5 + "X5.topofile"), DiscoverOptions());
  EXPECT_EQ(KindCounts(d),
            (std::map<std::string, int>{
                {"not-rail-optimized", 1}, {"unnamed-hca", 89}, {"link-speed", 23}}));
  ASSERT_EQ(d.findings.size(), 113u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "found 0 named hosts on 0 switches and 89 unnamed HCAs, but no HCA description names "
            "its device, so rails and scalable units cannot be inferred; expected descriptions "
            "\"<host> <device>\" as rdma-ndd sets them, or a --node-map that gives them");
  auto it = std::find_if(d.findings.begin(), d.findings.end(), [](const Finding& f) {
    return f.kind == "unnamed-hca" && f.port == 4 && f.switch_name == "S-0008f10500200b50";
  });
  ASSERT_NE(it, d.findings.end());
  EXPECT_EQ(Key(*it), "unnamed-hca / S-0008f10500200b50 0x0008f10500200b50 4");
  EXPECT_EQ(it->message,
            "\"H-003048c749cd0000\" has the default description \"MT25408 ConnectX Mellanox "
            "Technologies\" and cannot be named; it is cabled to S-0008f10500200b50 port 4; "
            "expected a description \"<host> <device>\" (rdma-ndd) or a --node-map entry");
  EXPECT_TRUE(d.topology.sus.empty());
  EXPECT_TRUE(d.topology.rails.empty());
  EXPECT_EQ(d.counts.cas, 89);
  EXPECT_EQ(d.counts.unnamed, 89);
  EXPECT_EQ(d.counts.switches, 11);
}

TEST(DiscoverRealDumps, TheSampleWithATimeoutReportsItLoopbacksAndUfmHosts) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/3.topo");
  const Discovery d = Discover(ParseFile(kIbtopotool + "3.topo"), DiscoverOptions());
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"ibnetdiscover-error", 1},
                                                       {"not-rail-optimized", 1},
                                                       {"loopback", 3},
                                                       {"non-compute", 6}}));
  ASSERT_EQ(d.findings.size(), 11u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            kIbtopotool +
                "3.topo:1: ibnetdiscover reported an error: \"src/query_smp.c:195; umad (DR path "
                "slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110; Connection timed out\"; the "
                "dump may be incomplete");
  EXPECT_EQ(d.findings[1].message,
            "the dump has no compute HCAs (6 CAs, none of them a compute HCA); expected HCAs "
            "described \"<host> <device>\"");
  EXPECT_EQ(Key(d.findings[2]), "loopback / S-e41d2d030003e470 0xe41d2d030003e470 1");
  EXPECT_EQ(d.findings[2].message,
            "S-e41d2d030003e470 port 1 is cabled to port 2 of the same switch; expected a cable "
            "to another switch or a host");
  EXPECT_EQ(Key(d.findings[5]), "non-compute r-ufm96/HCA-1 switch-de779e 0xf4521403005764b0 8");
}

TEST(DiscoverRealDumps, TheManPageSampleHasLinksWhoseEndsDisagree) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/1.topo");
  const Discovery d = Discover(ParseFile(kIbtopotool + "1.topo"), DiscoverOptions());
  EXPECT_EQ(
      KindCounts(d),
      (std::map<std::string, int>{
          {"not-rail-optimized", 1}, {"unnamed-hca", 5}, {"link-speed", 2}, {"link-disagree", 2}}));
  auto it = std::find_if(d.findings.begin(), d.findings.end(),
                         [](const Finding& f) { return f.kind == "link-disagree"; });
  ASSERT_NE(it, d.findings.end());
  EXPECT_EQ(it->message,
            "the two ends of one link disagree: S-005442ba00003080 port 10 reports 4xSDR, "
            "S-0008f10400410015 port 1 reports 1xSDR; expected both ends to train alike (counted "
            "as 1xSDR)");
  EXPECT_EQ(d.counts.unnamed, 4);
}

TEST(DiscoverRealDumps, FindingsComeGroupedByKind) {
  const Discovery d = DiscoverDev({{"ufm", "ufm01"}, {"drop", "n009:0"}, {"swap", "n002:0:1"}});
  std::vector<std::string> kinds;
  for (const Finding& f : d.findings) kinds.push_back(f.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"rail-mismatch", "rail-mismatch", "missing-link",
                                             "non-compute"}));
}

}  // namespace topo_discover_audit_test
}  // namespace railguard::topo
