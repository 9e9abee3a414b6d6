// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for loading, validating and emitting the rail topology YAML.
#include "topo/topology_yaml.h"
#include "tests/text_edit.h"

#include <gtest/gtest.h>

#include <string>

namespace railguard::topo {
namespace topo_topology_yaml_test {

// A valid two-SU, two-rail layout that the error tests below break one line at a time.
const char kGood[] =
    "cluster: t\n"                                                     // 1
    "rails:\n"                                                         // 2
    "  - {index: 0, link: {rate_gbps: 400, width: 4X, speed: NDR}}\n"  // 3
    "  - {index: 1, link: {rate_gbps: 400, width: 4X, speed: NDR}}\n"  // 4
    "node_types:\n"                                                    // 5
    "  - name: dgx\n"                                                  // 6
    "    gpus: 8\n"                                                    // 7
    "    nics: [mlx5_0, mlx5_3]\n"                                     // 8
    "scalable_units:\n"                                                // 9
    "  - name: su1\n"                                                  // 10
    "    nodes: n[01-04]\n"                                            // 11
    "    node_type: dgx\n"                                             // 12
    "    leaves:\n"                                                    // 13
    "      - {rail: 0, ports: 4}\n"                                    // 14
    "      - {rail: 1, name: leafB, guid: 0xABC}\n"                    // 15
    "  - name: su2\n"                                                  // 16
    "    nodes: n[05-06]\n"                                            // 17
    "    node_type: dgx\n"                                             // 18
    "    leaves:\n"                                                    // 19
    "      - {rail: 1}\n"                                              // 20
    "      - {rail: 0}\n"                                              // 21
    "spines:\n"                                                        // 22
    "  - {name: spine1, ports: 64}\n";                                 // 23

using railguard::testing::ReplaceOnce;

// Loads `text` and returns its diagnostics, one per line.
std::string Errors(const std::string& text) {
  Topology t;
  Diags diags;
  EXPECT_FALSE(LoadTopologyString(text, "t.yaml", &t, &diags));
  return FormatDiags(diags);
}

TEST(TopologyYaml, AValidLayoutLoadsWithEveryFieldAndIndex) {
  Topology t;
  Diags diags;
  ASSERT_TRUE(LoadTopologyString(kGood, "t.yaml", &t, &diags)) << FormatDiags(diags);
  EXPECT_EQ(t.cluster, "t");
  ASSERT_EQ(t.rails.size(), 2u);
  EXPECT_EQ(t.rails[1].name, "rail1");
  EXPECT_EQ(t.rails[1].link.ToSysfsRate(), "400 Gb/sec (4X NDR)");
  ASSERT_EQ(t.sus.size(), 2u);
  EXPECT_EQ(t.sus[0].nodes, (std::vector<std::string>{"n01", "n02", "n03", "n04"}));
  EXPECT_EQ(t.sus[0].leaves[1].sw.name, "leafB");
  EXPECT_EQ(t.sus[0].leaves[1].sw.guid, "0x0000000000000abc");
  // Leaves written out of order come back ordered by rail.
  EXPECT_EQ(t.sus[1].leaves[0].rail, 0);
  EXPECT_EQ(LeafName(t.sus[1], t.sus[1].leaves[0]), "su2-rail0");
  ASSERT_NE(t.FindNode("n05"), nullptr);
  EXPECT_EQ(t.FindNode("n05")->su, 1);
  EXPECT_EQ(t.TypeOfNode("n05")->nics[1], "mlx5_3");
  EXPECT_EQ(t.FindNode("n07"), nullptr);
  EXPECT_EQ(t.NodeCount(), 6u);
}

TEST(TopologyYaml, YamlSyntaxErrorNamesLineAndColumn) {
  EXPECT_EQ(Errors("cluster: t\nrails: [\n"),
            "t.yaml:3:1: YAML syntax error: end of sequence flow not found\n");
}

TEST(TopologyYaml, UnknownKeyIsNamedWithTheKeysExpected) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "    node_type: dgx\n    leaves:\n      - {rail: 1}",
                           "    node_typ: dgx\n    leaves:\n      - {rail: 1}")),
            "t.yaml:18:5: unknown key 'node_typ' in scalable unit; expected one of: name, "
            "nodes, node_type, leaves\n"
            "t.yaml:16:5: missing key 'node_type' in scalable unit 'su2'\n");
}

TEST(TopologyYaml, MissingTopLevelKeyIsReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "cluster: t\n", "")),
            "t.yaml:1:1: missing key 'cluster' in the topology\n");
}

TEST(TopologyYaml, NodeInTwoScalableUnitsNamesBoth) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "nodes: n[05-06]", "nodes: n[04-06]")),
            "t.yaml:17:12: node 'n04' is in scalable unit 'su1' (line 11) and in 'su2'; "
            "expected each node in exactly one scalable unit\n");
}

TEST(TopologyYaml, DuplicateNodeWithinOneUnitIsReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "nodes: n[01-04]", "nodes: \"n[01-04],n02\"")),
            "t.yaml:11:12: node 'n02' is listed twice in scalable unit 'su1'\n");
}

TEST(TopologyYaml, RailIndexOutOfRangeOnALeafIsReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "      - {rail: 1}\n", "      - {rail: 2}\n")),
            "t.yaml:20:16: leaf rail 2 out of range; expected 0 to 1 (2 rails)\n"
            "t.yaml:20:7: scalable unit 'su2' has no leaf for rail 1; expected one leaf per "
            "rail (0 to 1)\n");
}

TEST(TopologyYaml, RailsMustBeNumberedFromZero) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "  - {index: 1, link", "  - {index: 5, link")),
            "t.yaml:3:3: rail 1 is missing; expected rails numbered 0 to 1\n"
            "t.yaml:4: rail index 5 out of range; expected 0 to 1 (2 rails listed)\n");
}

TEST(TopologyYaml, UnitMissingALeafForARailIsReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "      - {rail: 1}\n", "")),
            "t.yaml:20:7: scalable unit 'su2' has no leaf for rail 1; expected one leaf per "
            "rail (0 to 1)\n");
}

TEST(TopologyYaml, TwoLeavesForOneRailAreReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "      - {rail: 1}\n", "      - {rail: 0}\n")),
            "t.yaml:21:16: scalable unit 'su2' has two leaves for rail 0 (first at line 20); "
            "expected one leaf per rail\n"
            "t.yaml:20:7: scalable unit 'su2' has no leaf for rail 1; expected one leaf per "
            "rail (0 to 1)\n");
}

TEST(TopologyYaml, BadHostlistIsReportedWithTheExpression) {
  std::string errors = Errors(ReplaceOnce(kGood, "nodes: n[05-06]", "nodes: \"n[06-05]\""));
  EXPECT_EQ(errors.rfind("t.yaml:17:12: invalid hostlist 'n[06-05]': ", 0), 0u) << errors;
}

TEST(TopologyYaml, NicNamedTwiceInANodeTypeIsReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "nics: [mlx5_0, mlx5_3]", "nics: [mlx5_0, mlx5_0]")),
            "t.yaml:8:20: NIC 'mlx5_0' is named twice in node type 'dgx' (rails 0 and 1); "
            "expected one distinct NIC per rail\n");
}

TEST(TopologyYaml, NicCountMustMatchRailCount) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "nics: [mlx5_0, mlx5_3]", "nics: [mlx5_0]")),
            "t.yaml:8:11: node type 'dgx' lists 1 NICs; expected one per rail (2)\n");
}

TEST(TopologyYaml, MoreNodesThanLeafPortsIsReported) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "{rail: 0, ports: 4}", "{rail: 0, ports: 3}")),
            "t.yaml:14:9: leaf 'su1-rail0' has 3 ports but scalable unit 'su1' puts 4 nodes "
            "under it; expected at most one node per port\n");
}

TEST(TopologyYaml, BadValuesSayWhatWasExpected) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "gpus: 8", "gpus: eight")),
            "t.yaml:7:11: invalid gpus 'eight'; expected an integer from 0 to 64\n");
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "width: 4X, speed: NDR}}\n  - {index: 1",
                           "width: 3X, speed: NDR}}\n  - {index: 1")),
            "t.yaml:3:46: invalid width '3X'; expected one of 1X, 2X, 4X, 8X, 12X\n");
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "rate_gbps: 400, width: 4X, speed: NDR}}\n  - {index: 1",
                           "rate_gbps: 200, width: 4X, speed: NDR}}\n  - {index: 1")),
            "t.yaml:3:34: rate_gbps 200 does not match 4X NDR; expected 400\n");
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "guid: 0xABC", "guid: 12")),
            "t.yaml:15:38: invalid guid '12'; expected 0x and up to 16 hex digits\n");
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "node_type: dgx\n    leaves:\n      - {rail: 1}",
                           "node_type: hgx\n    leaves:\n      - {rail: 1}")),
            "t.yaml:18:16: unknown node type 'hgx'; expected one of: dgx\n");
}

TEST(TopologyYaml, EveryProblemIsReportedInOneRun) {
  std::string text = ReplaceOnce(kGood, "gpus: 8", "gpus: -1");
  text = ReplaceOnce(text, "nodes: n[05-06]", "nodes: n[04-06]");
  text = ReplaceOnce(text, "{name: spine1, ports: 64}", "{name: spine1, ports: 64, speed: x}");
  Topology t;
  Diags diags;
  EXPECT_FALSE(LoadTopologyString(text, "t.yaml", &t, &diags));
  EXPECT_EQ(diags.size(), 3u) << FormatDiags(diags);
}

TEST(TopologyYaml, SwitchNamesMustBeUnique) {
  EXPECT_EQ(Errors(ReplaceOnce(kGood, "name: leafB", "name: spine1")),
            "t.yaml:23:5: spine name 'spine1' is already used at line 15; expected unique "
            "switch names\n");
}

TEST(TopologyYaml, CoreSwitchesLoadEmitAndMustHaveNamesOfTheirOwn) {
  const std::string with_cores =
      std::string(kGood) + "cores:\n  - {name: core1, guid: 0x1C, ports: 128}\n  - {name: core2}\n";
  Topology t;
  Diags diags;
  ASSERT_TRUE(LoadTopologyString(with_cores, "t.yaml", &t, &diags)) << FormatDiags(diags);
  ASSERT_EQ(t.cores.size(), 2u);
  EXPECT_EQ(t.cores[0].guid, "0x000000000000001c");
  EXPECT_EQ(t.cores[0].ports, 128);
  const std::string emitted = EmitTopologyYaml(t);
  EXPECT_NE(emitted.find("cores:\n  - {name: core1, guid: \"0x000000000000001c\", ports: 128}\n"
                         "  - {name: core2}\n"),
            std::string::npos)
      << emitted;
  EXPECT_EQ(Errors(ReplaceOnce(with_cores, "name: core2", "name: spine1")),
            "t.yaml:26:5: core switch name 'spine1' is already used at line 23; expected unique "
            "switch names\n");
  EXPECT_EQ(Errors(std::string(kGood) + "cores: core1\n"),
            "t.yaml:24:8: 'cores' must be a list of {name, guid, ports}\n");
  EXPECT_EQ(Errors(std::string(kGood) + "cores:\n  - {guid: 0x1}\n"),
            "t.yaml:25:5: missing key 'name' in core switch\n");
}

TEST(TopologyYaml, ALeafsFirstPortIsThePlansPortOfItsFirstNodeAndMustFit) {
  const std::string good =
      ReplaceOnce(kGood, "{rail: 0, ports: 4}", "{rail: 0, ports: 4, first_port: 1}");
  Topology t;
  Diags diags;
  ASSERT_TRUE(LoadTopologyString(good, "t.yaml", &t, &diags)) << FormatDiags(diags);
  EXPECT_EQ(t.sus[0].leaves[0].first_port, 1);
  EXPECT_EQ(t.sus[0].leaves[1].first_port, 0);
  EXPECT_NE(EmitTopologyYaml(t).find("{rail: 0, ports: 4, first_port: 1}"), std::string::npos)
      << EmitTopologyYaml(t);
  EXPECT_EQ(Errors(ReplaceOnce(good, "first_port: 1", "first_port: 2")),
            "t.yaml:14:9: leaf 'su1-rail0' puts its 4 nodes on ports 2 to 5 but has 4 ports; "
            "expected first_port + nodes - 1 <= ports\n");
  EXPECT_EQ(Errors(ReplaceOnce(good, "first_port: 1", "first_port: 0")),
            "t.yaml:14:41: invalid leaf first_port '0'; expected an integer from 1 to 254\n");
}

TEST(TopologyYaml, MissingFileIsOneClearError) {
  Topology t;
  Diags diags;
  EXPECT_FALSE(LoadTopologyFile("/nonexistent/x.yaml", &t, &diags));
  EXPECT_EQ(FormatDiags(diags), "/nonexistent/x.yaml: cannot open: No such file or directory\n");
}

TEST(TopologyYaml, EmitIsCanonicalAndRoundTrips) {
  Topology t;
  Diags diags;
  ASSERT_TRUE(LoadTopologyString(kGood, "t.yaml", &t, &diags));
  const std::string once = EmitTopologyYaml(t);
  EXPECT_EQ(once,
            "cluster: t\n"
            "rails:\n"
            "  - {index: 0, link: {rate_gbps: 400, width: 4X, speed: NDR}}\n"
            "  - {index: 1, link: {rate_gbps: 400, width: 4X, speed: NDR}}\n"
            "node_types:\n"
            "  - name: dgx\n"
            "    gpus: 8\n"
            "    nics: [\"mlx5_0\", \"mlx5_3\"]\n"
            "scalable_units:\n"
            "  - name: su1\n"
            "    nodes: \"n[01-04]\"\n"
            "    node_type: dgx\n"
            "    leaves:\n"
            "      - {rail: 0, ports: 4}\n"
            "      - {rail: 1, name: leafB, guid: \"0x0000000000000abc\"}\n"
            "  - name: su2\n"
            "    nodes: \"n[05-06]\"\n"
            "    node_type: dgx\n"
            "    leaves:\n"
            "      - {rail: 0}\n"
            "      - {rail: 1}\n"
            "spines:\n"
            "  - {name: spine1, ports: 64}\n");
  Topology again;
  ASSERT_TRUE(LoadTopologyString(once, "emitted.yaml", &again, &diags)) << FormatDiags(diags);
  EXPECT_EQ(EmitTopologyYaml(again), once);
}

TEST(TopologyYaml, ShippedExampleLayoutsValidate) {
  for (const char* name : {"dev-4su.yaml", "superpod-h100.yaml"}) {
    Topology t;
    Diags diags;
    const std::string path = std::string(RAILGUARD_SOURCE_DIR) + "/etc/" + name;
    EXPECT_TRUE(LoadTopologyFile(path, &t, &diags)) << FormatDiags(diags);
    if (std::string(name) == "superpod-h100.yaml") {
      EXPECT_EQ(t.sus.size(), 4u);
      EXPECT_EQ(t.NodeCount(), 127u);
      EXPECT_EQ(t.rails.size(), 8u);
    } else {
      EXPECT_EQ(t.NodeCount(), 32u);
    }
  }
}

}  // namespace topo_topology_yaml_test
}  // namespace railguard::topo
