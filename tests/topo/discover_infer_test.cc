// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of discovery's inference (topo/discover_infer.h): simulate -> discover round trips,
// rail order, SU grouping and naming, and the topology and switches found in the real dumps.
#include "topo/discover_infer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/shared_data.h"
#include "tests/topo/discover_test_util.h"
#include "topo/hostlist.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_discover_infer_test {

using discover_testing::AllFindings;
using discover_testing::BigLayout;
using discover_testing::DevYamlWithSimulatedGuids;
using discover_testing::DiscoverDev;
using discover_testing::DumpBuilder;
using discover_testing::kDev4su;
using discover_testing::Key;
using discover_testing::kIbtopotool;
using discover_testing::KindCounts;
using discover_testing::kX5;
using discover_testing::Load;
using discover_testing::LoadFile;
using discover_testing::Parse;
using discover_testing::ParseFile;
using discover_testing::Simulate;

TEST(DiscoverRoundTrip, TheDevLayoutComesBackFromItsSimulatedDumpWithNoFindings) {
  const Discovery d = DiscoverDev({});
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(EmitTopologyYaml(d.topology), DevYamlWithSimulatedGuids());
  // Without the GUIDs only the simulator knows, it is the file itself.
  Topology plain = d.topology;
  for (ScalableUnit& su : plain.sus)
    for (Leaf& l : su.leaves) l.sw.guid.clear();
  for (Switch& s : plain.spines) s.guid.clear();
  EXPECT_EQ(EmitTopologyYaml(plain), EmitTopologyYaml(LoadFile(kDev4su)));
}

TEST(DiscoverRoundTrip, AGeneratedLayoutKeepsItsSwitchNamesGuidsAndPortCounts) {
  const Topology t = Load(BigLayout(6, 20, 4, 128));
  DiscoverOptions o;
  o.cluster = "big";
  o.node_type = "hgx";
  const Discovery d = Discover(Parse(Simulate(t, {}, 2)), o);
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(EmitTopologyYaml(d.topology), EmitTopologyYaml(t));
  EXPECT_EQ(d.counts.leaves, 48);
  EXPECT_EQ(d.counts.spines, 4);
  EXPECT_EQ(d.counts.hosts, 120);
}

TEST(DiscoverRoundTrip, RailOrderRestoresANicOrderThatIsNotNatural) {
  std::string yaml = BigLayout(2, 4, 1, 64);
  // Leaf names without a rail number ("ib-s001-ra"), so only the NIC names order the rails.
  for (int r = 0; r < 8; ++r) {
    const std::string from = "-r" + std::to_string(r) + ",";
    const std::string to = std::string("-r") + static_cast<char>('a' + r) + ",";
    for (size_t p = yaml.find(from); p != std::string::npos; p = yaml.find(from, p))
      yaml.replace(p, from.size(), to);
  }
  const std::string natural =
      "nics: [mlx5_0, mlx5_1, mlx5_2, mlx5_3, mlx5_6, mlx5_7, mlx5_8, mlx5_9]";
  const std::string custom =
      "nics: [mlx5_9, mlx5_1, mlx5_2, mlx5_3, mlx5_6, mlx5_7, mlx5_8, mlx5_0]";
  yaml.replace(yaml.find(natural), natural.size(), custom);
  const Topology t = Load(yaml);
  DiscoverOptions o;
  o.cluster = "big";
  o.node_type = "hgx";
  const IbFabric f = Parse(Simulate(t));
  const Discovery by_name = Discover(f, o);
  ASSERT_EQ(by_name.topology.node_types.size(), 1u);
  ASSERT_GE(by_name.topology.node_types[0].nics.size(), 1u);
  EXPECT_EQ(by_name.topology.node_types[0].nics.front(), "mlx5_0");
  EXPECT_NE(EmitTopologyYaml(by_name.topology), EmitTopologyYaml(t));
  o.rail_order = {"mlx5_9", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_0"};
  const Discovery by_order = Discover(f, o);
  EXPECT_EQ(AllFindings(by_order), "");
  EXPECT_EQ(EmitTopologyYaml(by_order.topology), EmitTopologyYaml(t));
}

TEST(DiscoverRoundTrip, LeafNamesThatNumberTheRailsRestoreANicOrderThatIsNotNatural) {
  // The layout's leaves are named "ib-s001-r0".."ib-s002-r7": rail k is the leaf named -r<k>.
  std::string yaml = BigLayout(2, 4, 1, 64);
  const std::string natural =
      "nics: [mlx5_0, mlx5_1, mlx5_2, mlx5_3, mlx5_6, mlx5_7, mlx5_8, mlx5_9]";
  yaml.replace(yaml.find(natural), natural.size(),
               "nics: [mlx5_9, mlx5_1, mlx5_2, mlx5_3, mlx5_6, mlx5_7, mlx5_8, mlx5_0]");
  const Topology t = Load(yaml);
  DiscoverOptions o;
  o.cluster = "big";
  o.node_type = "hgx";
  const Discovery d = Discover(Parse(Simulate(t)), o);
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(EmitTopologyYaml(d.topology), EmitTopologyYaml(t));
}

TEST(DiscoverRoundTrip, OrdersRailsNaturallySoMlx5_10ComesAfterMlx5_9) {
  const Discovery d = DiscoverDev({});
  ASSERT_EQ(d.topology.node_types.size(), 1u);
  EXPECT_EQ(d.topology.node_types[0].nics,
            (std::vector<std::string>{"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9",
                                      "mlx5_10", "mlx5_11"}));
}

TEST(DiscoverRoundTrip, NamesSusByTheirFirstHostInSlurmOrder) {
  // The file lists the SU of n[9-16] first and names them oddly; discovery renames by host order.
  const Topology t = Load(R"(cluster: c
rails:
  - {index: 0, link: {rate_gbps: 400, width: 4X, speed: NDR}}
node_types:
  - {name: g, gpus: 8, nics: [mlx5_0]}
scalable_units:
  - {name: zeta, nodes: "n[9-16]", node_type: g, leaves: [{rail: 0}]}
  - {name: alpha, nodes: "n[1-8]", node_type: g, leaves: [{rail: 0}]}
  - {name: mid, nodes: "m[1-2]", node_type: g, leaves: [{rail: 0}]}
)");
  const Discovery d = Discover(Parse(Simulate(t)), DiscoverOptions());
  ASSERT_EQ(d.topology.sus.size(), 3u);
  EXPECT_EQ(d.topology.sus[0].name, "su1");
  EXPECT_EQ(d.topology.sus[0].nodes_expr, "m[1-2]");
  EXPECT_EQ(d.topology.sus[1].nodes_expr, "n[1-8]");
  EXPECT_EQ(d.topology.sus[2].nodes_expr, "n[9-16]");
  ASSERT_GE(d.topology.sus[2].nodes.size(), 1u);
  EXPECT_EQ(d.topology.sus[2].nodes.front(), "n9");
}

TEST(DiscoverRoundTrip, TheTopologySurvivesEveryFaultButAMissingLeaf) {
  const Discovery d = DiscoverDev({{"swap", "n001:1:2"},
                                   {"drop", "n005:1"},
                                   {"unnamed", "n007:4"},
                                   {"cross-su", "n012:5:su4"},
                                   {"slow", "n010:0:4xHDR"},
                                   {"ufm", "ufm01"},
                                   {"sharp", "3"},
                                   {"drop-uplinks", "su2:3:1"}});
  EXPECT_EQ(d.findings.size(), 2u + 1u + 1u + 1u + 1u + 1u + 3u + 1u) << AllFindings(d);
  EXPECT_EQ(EmitTopologyYaml(d.topology), DevYamlWithSimulatedGuids());
}

TEST(DiscoverRobustness, LinkTokensOfUnknownSpeedNeitherCrashNorSetTheRailLink) {
  DumpBuilder b;
  const int l0 = b.AddSwitch("MF0;l0:MQM9700/U1", 8);
  b.AddHost(l0, 1, "h1 mlx5_0", "99999999999xNDR");
  b.AddHost(l0, 2, "h2 mlx5_0", "4x???");
  b.AddHost(l0, 3, "h3 mlx5_0", "4x???");
  b.AddHost(l0, 4, "h4 mlx5_0", "4xNDR");
  const Discovery d = Discover(Parse(b.Text()), DiscoverOptions());
  // The one link of a known speed sets the rail's link; the others are slower than it.
  ASSERT_EQ(d.topology.rails.size(), 1u);
  EXPECT_EQ(d.topology.rails[0].link.speed, "NDR");
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"link-speed", 3}, {"not-rail-fabric", 1}}));
}

// "SwitchName=S-... Nodes=a,b[1-2]" lines of X5.topology.conf -> switch -> expanded nodes.
std::map<std::string, std::vector<std::string>> ConfNodes(const std::string& path) {
  std::map<std::string, std::vector<std::string>> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t nodes = line.find(" Nodes=");
    if (line.rfind("SwitchName=", 0) != 0 || nodes == std::string::npos) continue;
    std::vector<std::string> hosts;
    std::string err;
    EXPECT_TRUE(ExpandHostlist(line.substr(nodes + 7), &hosts, &err)) << err;
    out[line.substr(11, nodes - 11)] = hosts;
  }
  return out;
}

TEST(DiscoverRealDumps, X5WithItsMapGroupsHostsAsTheSitesTopologyConfDoes) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5");
  DiscoverOptions o;
  Diags errors;
  ASSERT_TRUE(LoadNodeMapFile(kX5 + "X5.map", &o.node_map, &errors)) << FormatDiags(errors);
  const Discovery d = Discover(ParseFile(kX5 + "X5.topofile"), o);
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{
                               {"not-rail-optimized", 1}, {"unnamed-hca", 3}, {"link-speed", 23}}));
  ASSERT_EQ(d.findings.size(), 27u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "found 86 named hosts on 6 switches and 3 unnamed HCAs, but no HCA description names "
            "its device, so rails and scalable units cannot be inferred; expected descriptions "
            "\"<host> <device>\" as rdma-ndd sets them, or a --node-map that gives them");
  auto it = std::find_if(d.findings.begin(), d.findings.end(),
                         [](const Finding& f) { return f.kind == "link-speed"; });
  ASSERT_NE(it, d.findings.end());
  EXPECT_EQ(Key(*it), "link-speed r422node1/ S-0008f10500200b50 0x0008f10500200b50 28");
  EXPECT_EQ(it->message,
            "r422node1 (H-003048c749820000) on S-0008f10500200b50 port 28 trains at 4xDDR; "
            "expected 4xQDR like most HCA links");
  // The site's own topology.conf puts the same hosts under the same switches; its "H-<guid>"
  // entries are the HCAs its map could not name either.
  const auto conf = ConfNodes(kX5 + "X5.topology.conf");
  int leaves = 0;
  for (const SwitchReport& r : d.switches) {
    if (!r.has_hcas) continue;
    ++leaves;
    auto c = conf.find(r.name);
    ASSERT_NE(c, conf.end()) << r.name;
    std::vector<std::string> named;
    int unnamed = 0;
    for (const std::string& h : c->second) {
      if (h.rfind("H-", 0) == 0) {
        ++unnamed;
      } else {
        named.push_back(h);
      }
    }
    std::sort(named.begin(), named.end(), HostLess);
    EXPECT_EQ(r.hosts, named) << r.name;
    EXPECT_EQ(r.unnamed, unnamed) << r.name;
  }
  EXPECT_EQ(leaves, 6);
  // The switches without hosts are the ones the site lists as spines.
  std::ifstream spines(kX5 + "X5.spine");
  std::vector<std::string> want;
  for (std::string line; std::getline(spines, line);)
    if (line.rfind("S-", 0) == 0) want.push_back(line);
  std::vector<std::string> got;
  for (const SwitchReport& r : d.switches)
    if (!r.has_hcas) got.push_back(r.name);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
}

TEST(DiscoverRealDumps, TheTwoHostSampleIsOneSuOfOneRail) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/ibtopotool/2.topo");
  const Discovery d = Discover(ParseFile(kIbtopotool + "2.topo"), DiscoverOptions());
  // Two hosts of one HCA each on one switch: kept as a one-rail SU, and said to be no rail
  // fabric (an informational finding; the topology is what it was before that finding).
  EXPECT_EQ(AllFindings(d),
            "not-rail-fabric: every one of the 2 hosts has one HCA on this fabric (on 1 leaf): it "
            "is not a GPU rail fabric but a storage or management fabric, or one plane of a "
            "multi-plane fabric; its leaves are kept as one-rail scalable units; expected hosts "
            "with one HCA per rail for a rail-optimized fabric\n");
  const std::string yaml = EmitTopologyYaml(d.topology);
  EXPECT_EQ(yaml,
            "cluster: discovered\n"
            "rails:\n"
            "  - {index: 0, link: {rate_gbps: 10, width: 4X, speed: SDR}}\n"
            "node_types:\n"
            "  - name: gpu-node\n"
            "    gpus: 8\n"
            "    nics: [\"HCA-1\"]\n"
            "scalable_units:\n"
            "  - name: su1\n"
            "    nodes: \"compute-00-[00-01]\"\n"
            "    node_type: gpu-node\n"
            "    leaves:\n"
            "      - {rail: 0, guid: \"0x000b8cffff0053ee\", ports: 8}\n");
  Topology check;
  Diags diags;
  EXPECT_TRUE(LoadTopologyString(yaml, "d.yaml", &check, &diags)) << FormatDiags(diags);
}

}  // namespace topo_discover_infer_test
}  // namespace railguard::topo
