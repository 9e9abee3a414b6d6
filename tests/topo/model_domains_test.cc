// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for one-hop domains: several leaves per rail in an SU (the leaf's `nodes:` hostlist),
// their validation, the derived domains, and the YAML round trip.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/text_edit.h"
#include "topo/export.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_model_domains_test {

// One SU of 8 nodes and 2 rails, two leaves per rail of 4 nodes each (the B300 SuperPOD
// pattern of etc/superpod-b300.yaml scaled down), and an H100-style SU of one leaf per rail.
const char kSplit[] =
    "cluster: t\n"                                                     // 1
    "rails:\n"                                                         // 2
    "  - {index: 0, link: {rate_gbps: 800, width: 4X, speed: XDR}}\n"  // 3
    "  - {index: 1, link: {rate_gbps: 800, width: 4X, speed: XDR}}\n"  // 4
    "node_types:\n"                                                    // 5
    "  - {name: b300, gpus: 8, nics: [mlx5_0, mlx5_1]}\n"              // 6
    "scalable_units:\n"                                                // 7
    "  - name: su1\n"                                                  // 8
    "    nodes: n[01-08]\n"                                            // 9
    "    node_type: b300\n"                                            // 10
    "    leaves:\n"                                                    // 11
    "      - {rail: 0, name: L1, nodes: \"n[01-04]\"}\n"               // 12
    "      - {rail: 0, name: L2, nodes: \"n[05-08]\"}\n"               // 13
    "      - {rail: 1, name: L3, nodes: \"n[01-04]\"}\n"               // 14
    "      - {rail: 1, name: L4, nodes: \"n[05-08]\"}\n"               // 15
    "  - name: su2\n"                                                  // 16
    "    nodes: n[09-10]\n"                                            // 17
    "    node_type: b300\n"                                            // 18
    "    leaves:\n"                                                    // 19
    "      - {rail: 0}\n"                                              // 20
    "      - {rail: 1}\n";                                             // 21

using railguard::testing::ReplaceOnce;

std::string Errors(const std::string& text) {
  Topology t;
  Diags diags;
  EXPECT_FALSE(LoadTopologyString(text, "t.yaml", &t, &diags));
  return FormatDiags(diags);
}

Topology Load(const std::string& text) {
  Topology t;
  Diags diags;
  EXPECT_TRUE(LoadTopologyString(text, "t.yaml", &t, &diags)) << FormatDiags(diags);
  return t;
}

// FindNode at site size: every node of 4,096 in 128 SUs is found where it sits, a name the
// topology lacks is not, the first of a duplicate wins, and a copy answers from its own names.
TEST(OneHopDomains, FindNodeAt4096NodesAndDuplicates) {
  Topology t;
  t.rails = {Rail{}, Rail{}};
  t.rails[1].index = 1;
  for (int s = 0; s < 128; ++s) {
    ScalableUnit su;
    su.name = "su" + std::to_string(s + 1);
    for (int p = 0; p < 32; ++p) su.nodes.push_back("gpu-node-" + std::to_string(s * 32 + p));
    su.leaves = {Leaf(0, Switch{}), Leaf(1, Switch{})};
    t.sus.push_back(su);
  }
  t.sus[5].nodes.push_back("gpu-node-7");  // also in su1: su1 keeps it
  t.Index();
  const Topology copy = t;
  for (const Topology* topo : std::vector<const Topology*>{&t, &copy}) {
    for (int n = 0; n < 4096; ++n) {
      const NodeRef* ref = topo->FindNode("gpu-node-" + std::to_string(n));
      ASSERT_NE(ref, nullptr) << n;
      EXPECT_EQ(ref->su, n / 32);
      EXPECT_EQ(ref->position, n % 32);
      EXPECT_EQ(topo->domains[ref->domain].name, "su" + std::to_string(n / 32 + 1));
    }
    EXPECT_EQ(topo->FindNode("gpu-node-4096"), nullptr);
    EXPECT_EQ(topo->FindNode(""), nullptr);
    EXPECT_EQ(topo->FindNode("gpu-node-7")->su, 0);
  }
  EXPECT_EQ(Topology().FindNode("gpu-node-1"), nullptr);  // never indexed
}

TEST(OneHopDomains, TwoLeavesPerRailSplitAnSuIntoTwoDomains) {
  const Topology t = Load(kSplit);
  ASSERT_EQ(t.domains.size(), 3u);
  EXPECT_EQ(t.domains[0].name, "su1-d1");
  EXPECT_EQ(t.domains[0].nodes, (std::vector<std::string>{"n01", "n02", "n03", "n04"}));
  EXPECT_EQ(t.domains[0].leaves, (std::vector<int>{0, 2}));
  EXPECT_EQ(t.domains[1].name, "su1-d2");
  EXPECT_EQ(t.domains[1].leaves, (std::vector<int>{1, 3}));
  EXPECT_EQ(t.domains[2].name, "su2");
  EXPECT_EQ(t.domains[2].su, 1);
  EXPECT_EQ(t.su_domains, (std::vector<int>{2, 1}));
  EXPECT_EQ(t.FindNode("n06")->domain, 1);
  EXPECT_EQ(t.FindNode("n06")->su, 0);
  EXPECT_EQ(t.FindNode("n10")->domain, 2);
  EXPECT_TRUE(HasSplitSus(t));
}

TEST(OneHopDomains, DomainsAreNamedInTheOrderOfTheirFirstNode) {
  // The SU's hostlist starts with the second leaf's nodes: that domain is d1.
  const Topology t = Load(ReplaceOnce(kSplit, "nodes: n[01-08]", "nodes: \"n[05-08],n[01-04]\""));
  EXPECT_EQ(t.domains[0].name, "su1-d1");
  EXPECT_EQ(t.domains[0].nodes.front(), "n05");
}

TEST(OneHopDomains, AnSuOfOneLeafPerRailIsOneDomainNamedLikeIt) {
  // One leaf per rail that names all the SU's nodes means what no `nodes:` means.
  std::string one = ReplaceOnce(kSplit, "      - {rail: 0, name: L2, nodes: \"n[05-08]\"}\n", "");
  one = ReplaceOnce(one, "      - {rail: 1, name: L4, nodes: \"n[05-08]\"}\n", "");
  one = ReplaceOnce(one, "name: L1, nodes: \"n[01-04]\"", "name: L1, nodes: \"n[01-08]\"");
  one = ReplaceOnce(one, "name: L3, nodes: \"n[01-04]\"", "name: L3");
  const Topology t = Load(one);
  ASSERT_EQ(t.domains.size(), 2u);
  EXPECT_EQ(t.domains[0].name, "su1");
  EXPECT_EQ(t.domains[0].nodes.size(), 8u);
  EXPECT_FALSE(HasSplitSus(t));
}

TEST(OneHopDomains, OverlappingLeavesOfARailNameBothAndTheNodes) {
  EXPECT_EQ(Errors(ReplaceOnce(kSplit, "name: L2, nodes: \"n[05-08]\"", "name: L2, nodes: \"n[04-08]\"")),
            "t.yaml:13:36: leaf 'L2' and leaf 'L1' (line 12) of rail 0 both serve n04; expected "
            "each node of scalable unit 'su1' on exactly one leaf per rail\n");
}

TEST(OneHopDomains, ANodeOnNoLeafOfARailIsAGap) {
  EXPECT_EQ(Errors(ReplaceOnce(kSplit, "name: L4, nodes: \"n[05-08]\"", "name: L4, nodes: \"n[05-06]\"")),
            "t.yaml:12:7: no leaf of rail 1 in scalable unit 'su1' serves n[07-08]; expected each "
            "node of the unit on exactly one leaf per rail\n");
}

TEST(OneHopDomains, LeafNodesOutsideTheSuAreReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kSplit, "name: L4, nodes: \"n[05-08]\"", "name: L4, nodes: \"n[05-09]\"")),
            "t.yaml:15:36: leaf 'L4' lists n09, not in scalable unit 'su1'; expected a subset of "
            "its nodes n[01-08]\n");
}

TEST(OneHopDomains, ALeafWithoutNodesBesideAnotherOfItsRailIsReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kSplit, "name: L2, nodes: \"n[05-08]\"", "name: L2")),
            "t.yaml:13:9: leaf 'L2' of scalable unit 'su1' has no 'nodes' but rail 0 has 2 "
            "leaves; expected a 'nodes' hostlist on each of them\n");
}

TEST(OneHopDomains, LeafOfAnUnknownRailIsReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kSplit, "{rail: 1, name: L4", "{rail: 2, name: L4")),
            "t.yaml:15:16: leaf rail 2 out of range; expected 0 to 1 (2 rails)\n"
            "t.yaml:12:7: no leaf of rail 1 in scalable unit 'su1' serves n[05-08]; expected each "
            "node of the unit on exactly one leaf per rail\n");
}

TEST(OneHopDomains, LeavesThatCutAcrossEachOtherLeaveATinyDomainAndAreRefused) {
  std::string cut = ReplaceOnce(kSplit, "name: L3, nodes: \"n[01-04]\"", "name: L3, nodes: \"n[01-03]\"");
  cut = ReplaceOnce(cut, "name: L4, nodes: \"n[05-08]\"", "name: L4, nodes: \"n[04-08]\"");
  EXPECT_EQ(Errors(cut),
            "t.yaml:12:7: one-hop domain 'su1-d2' of scalable unit 'su1' has only n04: its rails' "
            "leaves split the unit at different nodes; expected every rail's leaves to split it "
            "the same way (domains of 2 nodes or more)\n");
}

TEST(OneHopDomains, EmittedYamlKeepsLeafNodesAndLoadsToTheSameDomains) {
  const Topology t = Load(kSplit);
  const std::string yaml = EmitTopologyYaml(t);
  EXPECT_NE(yaml.find("      - {rail: 0, name: L2, nodes: \"n[05-08]\"}\n"), std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("      - {rail: 0}\n"), std::string::npos) << yaml;
  const Topology again = Load(yaml);
  ASSERT_EQ(again.domains.size(), t.domains.size());
  for (size_t d = 0; d < t.domains.size(); ++d) {
    EXPECT_EQ(again.domains[d].name, t.domains[d].name);
    EXPECT_EQ(again.domains[d].nodes, t.domains[d].nodes);
  }
  EXPECT_EQ(EmitTopologyYaml(again), yaml);
}

TEST(OneHopDomains, TreeExportHasALeafPerDomainAndTheSplitSuAboveThem) {
  EXPECT_EQ(ExportTreeConf(Load(kSplit), "t.yaml"),
            "# topology.conf for topology/tree, generated by railctl from t.yaml\n"
            "# cluster t: 2 scalable units, 10 nodes, 2 rails, 3 one-hop domains\n"
            "# Each one-hop domain (nodes that share every rail leaf) is one leaf-level switch;\n"
            "# a scalable unit of several domains is a switch of its own above them.\n"
            "SwitchName=su1-d1 Nodes=n[01-04]\n"
            "SwitchName=su1-d2 Nodes=n[05-08]\n"
            "SwitchName=su1 Switches=su1-d[1-2]\n"
            "SwitchName=su2 Nodes=n[09-10]\n"
            "SwitchName=t-spine Switches=su[1-2]\n");
}

TEST(OneHopDomains, BlockExportHasABlockPerDomain) {
  EXPECT_EQ(ExportBlockConf(Load(kSplit), "t.yaml"),
            "# topology.conf for topology/block (Slurm >= 24.05), generated by railctl from "
            "t.yaml\n"
            "# cluster t: 2 scalable units, 10 nodes, 2 rails, 3 one-hop domains\n"
            "BlockName=su1-d1 Nodes=n[01-04]\n"
            "BlockName=su1-d2 Nodes=n[05-08]\n"
            "BlockName=su2 Nodes=n[09-10]\n"
            "BlockSizes=2,4,8\n");
}

TEST(OneHopDomains, SlurmTopologyYamlHoldsFlatTreeAndBlock) {
  // Format: topology.yaml(5) of Slurm 25.11.7 (doc/man/man5/topology.yaml.5: "topology" first,
  // cluster_default, then exactly one of block, flat, tree).
  EXPECT_EQ(ExportTopologyYaml(Load(kSplit), "t.yaml"),
            "# topology.yaml for Slurm >= 25.05, generated by railctl from t.yaml\n"
            "# cluster t: 2 scalable units, 10 nodes, 2 rails, 3 one-hop domains\n"
            "# Three topologies; a partition picks one with Topology=<name> in slurm.conf:\n"
            "#   t-tree, t-block: the one-hop domains (topology/tree, topology/block)\n"
            "#   for the partitions of the nodes above; flat (the cluster default): every other\n"
            "#   partition, e.g. CPU nodes, and what is not tied to a partition.\n"
            "- topology: flat\n"
            "  cluster_default: true\n"
            "  flat: true\n"
            "- topology: \"t-tree\"\n"
            "  cluster_default: false\n"
            "  tree:\n"
            "    switches:\n"
            "      - switch: \"su1-d1\"\n"
            "        nodes: \"n[01-04]\"\n"
            "      - switch: \"su1-d2\"\n"
            "        nodes: \"n[05-08]\"\n"
            "      - switch: \"su1\"\n"
            "        children: \"su1-d[1-2]\"\n"
            "      - switch: \"su2\"\n"
            "        nodes: \"n[09-10]\"\n"
            "      - switch: \"t-spine\"\n"
            "        children: \"su[1-2]\"\n"
            "- topology: \"t-block\"\n"
            "  cluster_default: false\n"
            "  block:\n"
            "    block_sizes:\n"
            "      - 2\n"
            "      - 4\n"
            "      - 8\n"
            "    blocks:\n"
            "      - block: \"su1-d1\"\n"
            "        nodes: \"n[01-04]\"\n"
            "      - block: \"su1-d2\"\n"
            "        nodes: \"n[05-08]\"\n"
            "      - block: \"su2\"\n"
            "        nodes: \"n[09-10]\"\n");
}

TEST(OneHopDomains, TheB300ExampleValidatesWithTwoDomainsPerSuAndExports) {
  Topology t;
  Diags diags;
  const std::string path = std::string(RAILGUARD_SOURCE_DIR) + "/etc/superpod-b300.yaml";
  ASSERT_TRUE(LoadTopologyFile(path, &t, &diags)) << FormatDiags(diags);
  EXPECT_EQ(t.sus.size(), 2u);
  EXPECT_EQ(t.NodeCount(), 128u);
  EXPECT_EQ(t.rails.size(), 8u);
  EXPECT_EQ(t.sus[0].leaves.size(), 16u);
  ASSERT_EQ(t.domains.size(), 4u);
  for (const Domain& d : t.domains) EXPECT_EQ(d.nodes.size(), 32u) << d.name;
  EXPECT_EQ(t.domains[1].name, "su1-d2");
  EXPECT_EQ(t.domains[1].nodes.front(), "dgx033");
  const std::string tree = ExportTreeConf(t, "superpod-b300.yaml");
  EXPECT_NE(tree.find("SwitchName=su1-d2 Nodes=dgx[033-064]\n"), std::string::npos) << tree;
  EXPECT_NE(tree.find("SwitchName=su2 Switches=su2-d[1-2]\n"), std::string::npos) << tree;
  EXPECT_NE(tree.find("SwitchName=superpod-b300-spine Switches=su[1-2]\n"), std::string::npos)
      << tree;
  const std::string block = ExportBlockConf(t, "superpod-b300.yaml");
  EXPECT_NE(block.find("BlockName=su2-d1 Nodes=dgx[065-096]\n"), std::string::npos) << block;
  EXPECT_NE(block.find("BlockSizes=32,64,128\n"), std::string::npos) << block;
}

}  // namespace topo_model_domains_test
}  // namespace railguard::topo
