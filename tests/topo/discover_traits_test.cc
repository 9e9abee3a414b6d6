// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of discovery on fabrics with the traits of real clusters (issue 14): NIC names that
// differ between SUs, default and repeated host names, empty slots and appliances on compute
// leaves, in 18-node SUs. Each fabric comes from `railctl topology simulate` (topo/fabric_sim.h)
// and must come back as the right YAML with exactly the right findings.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/topo/discover_test_util.h"
#include "topo/discover.h"
#include "topo/fabric_sim.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace {

using discover_testing::AllFindings;
using discover_testing::Keys;
using discover_testing::Load;
using discover_testing::Parse;
using discover_testing::Simulate;

using Faults = std::vector<std::pair<std::string, std::string>>;

// A DGX H100-like fabric: SUs of 18 nodes, 4 compute rails, two OS images that name the rail
// HCAs differently (su2 says HCA-1.., su1 and su3 say mlx5_0..).
const char kH100[] = R"(cluster: h100
rails:
  - {index: 0, link: {rate_gbps: 400, width: 4X, speed: NDR}}
  - {index: 1, link: {rate_gbps: 400, width: 4X, speed: NDR}}
  - {index: 2, link: {rate_gbps: 400, width: 4X, speed: NDR}}
  - {index: 3, link: {rate_gbps: 400, width: 4X, speed: NDR}}
node_types:
  - {name: gpu-node, gpus: 8, nics: [mlx5_0, mlx5_1, mlx5_4, mlx5_5]}
  - {name: gpu-node-2, gpus: 8, nics: ["HCA-1", "HCA-2", "HCA-5", "HCA-6"]}
scalable_units:
  - name: su1
    nodes: "dgx[001-018]"
    node_type: gpu-node
    leaves: &leaves [{rail: 0, ports: 64}, {rail: 1, ports: 64}, {rail: 2, ports: 64}, {rail: 3, ports: 64}]
  - {name: su2, nodes: "dgx[019-036]", node_type: gpu-node-2, leaves: *leaves}
  - {name: su3, nodes: "dgx[037-054]", node_type: gpu-node, leaves: *leaves}
spines:
  - {name: spine1, ports: 64}
  - {name: spine2, ports: 64}
)";

// kH100 with `from` replaced by `to` (at most once).
std::string H100With(const std::string& from, const std::string& to) {
  std::string y = kH100;
  const size_t at = y.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) y.replace(at, from.size(), to);
  return y;
}

// The YAML discovery should give for `yaml`: the same, with the simulator's GUIDs.
std::string WithGuids(const std::string& yaml) {
  Topology t = Load(yaml);
  AssignSwitchGuids(&t);
  return EmitTopologyYaml(t);
}

Discovery DiscoverH100(const Faults& faults, const std::string& yaml = kH100) {
  DiscoverOptions o;
  o.cluster = "h100";
  return Discover(Parse(Simulate(Load(yaml), faults)), o);
}

TEST(DiscoverTraits, SusWhoseHostsNameTheirNicsDifferentlyShareRailsAndGetTheirOwnNodeType) {
  const Discovery d = DiscoverH100({});
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(d.topology.rails.size(), 4u);
  EXPECT_EQ(EmitTopologyYaml(d.topology), WithGuids(kH100));
  EXPECT_EQ(d.counts.leaves, 12);
}

TEST(DiscoverTraits, ASwappedCableInAnSuOfTheOtherNamingIsARailMismatchNamedInItsNics) {
  const Discovery d = DiscoverH100({{"swap", "dgx020:0:1"}});
  EXPECT_EQ(Keys(d), (std::vector<std::string>{
                         "rail-mismatch dgx020/HCA-1 su2-rail1 0xfc6a1c0300000201 2",
                         "rail-mismatch dgx020/HCA-2 su2-rail0 0xfc6a1c0300000200 2"}));
  ASSERT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[0].message,
            "dgx020 HCA-1 is cabled to su2-rail1 port 2, the leaf of rail 1 (HCA-2); expected "
            "su2-rail0, the leaf of rail 0 (HCA-1) (swapped cables?)");
  EXPECT_EQ(EmitTopologyYaml(d.topology), WithGuids(kH100));
}

TEST(DiscoverTraits, AMissingLeafOfTheOnlySuOfANamingIsOneFindingThatSaysWhatWouldDecide) {
  // su2 alone names its NICs HCA-*; without its HCA-5 leaf nothing tells which rail HCA-6 is.
  const Discovery d = DiscoverH100({{"drop-leaf", "su2:2"}});
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"rail-alignment /   0", "missing-leaf /   0"}))
      << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 2u) << AllFindings(d);
  EXPECT_EQ(d.findings[1].message,
            "su2 has no leaf for rail 3: none of its 18 hosts (dgx[019-036]) has a link for it; "
            "expected one leaf per rail in every SU");
  EXPECT_EQ(d.findings[0].message,
            "the hosts of su2 name 3 rail HCAs (HCA-1, HCA-2, HCA-6) where other SUs have 4 "
            "rails, so which rail each serves cannot be told from the fabric; assumed rails 0 to "
            "2 in NIC order; expected a --rail-order list of their HCAs in rail order "
            "(--rail-order may be given once per NIC naming)");
  EXPECT_EQ(d.topology.rails.size(), 4u);
}

TEST(DiscoverTraits, ARailOrderListPerNamingDecidesTheRailsOfAnSuWithAMissingLeaf) {
  DiscoverOptions o;
  o.cluster = "h100";
  o.rail_order = {"mlx5_0", "mlx5_1", "mlx5_4", "mlx5_5"};
  o.other_rail_orders = {{"HCA-1", "HCA-2", "HCA-5", "HCA-6"}};
  const Discovery d = Discover(Parse(Simulate(Load(kH100), {{"drop-leaf", "su2:2"}})), o);
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"missing-leaf /HCA-5   0"}));
  ASSERT_EQ(d.findings.size(), 1u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "su2 has no leaf for rail 2 (HCA-5): none of its 18 hosts (dgx[019-036]) has a HCA-5 "
            "link; expected one leaf per rail in every SU");
}

TEST(DiscoverTraits, AnEmptySlotIsNoHostAndNoFinding) {
  const Discovery d = DiscoverH100({{"empty", "dgx005"}});
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(EmitTopologyYaml(d.topology),
            WithGuids(H100With("dgx[001-018]", "dgx[001-004,006-018]")));
}

TEST(DiscoverTraits, ADefaultHostNameIsAFindingForItsSlotWithTheNameTheSlotProbablyHas) {
  const Discovery d = DiscoverH100({{"host-name", "dgx023:localhost"}});
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"host-name dgx023/ su2-rail0 0xfc6a1c0300000200 5"}));
  ASSERT_EQ(d.findings.size(), 1u) << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "the 4 HCAs on port 5 of su2's leaves (su2-rail0 to su2-rail3) are described "
            "\"localhost HCA-1\" and so on: a default host name, so the host is left out of the "
            "topology; probably dgx023 (su2's hosts are named by port); expected the host's own "
            "name (set it, then restart rdma-ndd)");
  EXPECT_EQ(EmitTopologyYaml(d.topology),
            WithGuids(H100With("dgx[019-036]", "dgx[019-022,024-036]")));
}

TEST(DiscoverTraits, NoneAndUbuntuAreDefaultHostNamesToo) {
  const Discovery d =
      DiscoverH100({{"host-name", "dgx001:(none)"}, {"host-name", "dgx040:ubuntu"}});
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"host-name dgx001/ su1-rail0 0xfc6a1c0300000100 1",
                                               "host-name dgx040/ su3-rail0 0xfc6a1c0300000300 4"}))
      << AllFindings(d);
  ASSERT_EQ(d.topology.sus.size(), 3u);
  EXPECT_EQ(d.topology.sus[0].nodes_expr, "dgx[002-018]");
  EXPECT_EQ(d.topology.sus[2].nodes_expr, "dgx[037-039,041-054]");
}

TEST(DiscoverTraits, AHostNameOnTwoHostsIsAFindingForEachSlotAndNoNode) {
  // dgx003 was cloned from dgx002 and kept its name.
  const Discovery d = DiscoverH100({{"host-name", "dgx003:dgx002"}});
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"host-name dgx002/ su1-rail0 0xfc6a1c0300000100 2",
                                               "host-name dgx003/ su1-rail0 0xfc6a1c0300000100 3"}))
      << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[1].message,
            "the 4 HCAs on port 3 of su1's leaves (su1-rail0 to su1-rail3) are described "
            "\"dgx002 mlx5_0\" and so on: a host name that the hosts on ports 2 and 3 both give, "
            "so neither is left in the topology; probably dgx003 (su1's hosts are named by port); "
            "expected each host's own name");
  ASSERT_EQ(d.topology.sus.size(), 3u);
  EXPECT_EQ(d.topology.sus[0].nodes_expr, "dgx[001,004-018]");
}

TEST(DiscoverTraits, AnApplianceOnComputeLeavesIsLeftOutByItsStructure) {
  // Its name says nothing; it has 2 of su2's 4 rails, on ports after su2's 18 hosts.
  const Discovery d = DiscoverH100({{"appliance", "appl01:su2:0,1"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"non-compute appl01/mlx5_0 su2-rail0 0xfc6a1c0300000200 19",
                                      "non-compute appl01/mlx5_1 su2-rail1 0xfc6a1c0300000201 19"}))
      << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[0].message,
            "appl01 mlx5_0 on su2-rail0 port 19 is not a compute host: it has links on 2 of "
            "su2's 4 rails, on ports beyond the 1 to 18 su2's hosts use; left out of the "
            "topology");
  EXPECT_EQ(EmitTopologyYaml(d.topology), WithGuids(kH100));
}

TEST(DiscoverTraits, AnApplianceNamedAfterUfmIsLeftOutByItsDescription) {
  const Discovery d = DiscoverH100({{"appliance", "ufm-appl1:su1:0,1,2,3"}});
  EXPECT_EQ(d.findings.size(), 4u) << AllFindings(d);
  for (const Finding& f : d.findings) EXPECT_EQ(f.kind, "non-compute");
  EXPECT_EQ(d.findings[0].message,
            "ufm-appl1 mlx5_0 on su1-rail0 port 19 is a UFM host; left out of the topology");
  EXPECT_EQ(EmitTopologyYaml(d.topology), WithGuids(kH100));
}

TEST(DiscoverTraits, AllTraitsAtOnceGiveExactlyTheirFindings) {
  const Discovery d = DiscoverH100({{"empty", "dgx018"},
                                    {"host-name", "dgx030:localhost"},
                                    {"appliance", "stor01:su3:2"},
                                    {"ufm", "ufm01"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"host-name dgx030/ su2-rail0 0xfc6a1c0300000200 12",
                                      "non-compute stor01/mlx5_0 su3-rail2 0xfc6a1c0300000302 19",
                                      "non-compute ufm01/mlx5_0 spine1 0xfc6a1c03ff000001 13"}))
      << AllFindings(d);
  std::string want = H100With("dgx[001-018]", "dgx[001-017]");
  want.replace(want.find("dgx[019-036]"), 12, "dgx[019-029,031-036]");
  EXPECT_EQ(EmitTopologyYaml(d.topology), WithGuids(want));
}

}  // namespace
}  // namespace railguard::topo
