// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of what discovery makes of the switches above the leaves and of the hosts that are not
// GPU nodes (issue 25, items 2 and 3): a core tier above the spines, names that say another
// tier, management leaf groups of login and storage hosts, and fabrics of one HCA per host.
// Fabrics come from the simulator (topo/fabric_sim.h) on the dev layout (etc/dev-4su.yaml:
// 4 SUs of 8 nodes, 8 rails, 2 spines).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/topo/discover_test_util.h"
#include "topo/discover.h"
#include "topo/fabric_sim.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_discover_tiers_test {

using discover_testing::AllFindings;
using discover_testing::DevOptions;
using discover_testing::DevYamlWithSimulatedGuids;
using discover_testing::kDev4su;
using discover_testing::KindCounts;
using discover_testing::Load;
using discover_testing::LoadFile;
using discover_testing::Parse;
using discover_testing::PlanesDevLayout;

std::string Sim(const Topology& t, const SimOptions& opts) {
  std::string out, err;
  EXPECT_TRUE(SimulateFabric(t, opts, &out, &err)) << err;
  return out;
}

std::vector<std::string> Names(const std::vector<Switch>& list) {
  std::vector<std::string> v;
  for (const Switch& s : list) v.push_back(s.name);
  return v;
}

std::string TierOf(const Discovery& d, const std::string& name) {
  for (const SwitchReport& r : d.switches)
    if (r.name == name) return r.tier;
  return "(absent)";
}

TEST(DiscoverTiers, CoreSwitchesAboveRailPlanesAreATierOfTheirOwnNotMoreSpines) {
  SimOptions opts;
  opts.rail_planes = true;
  opts.cores = 4;
  const Discovery d = Discover(Parse(Sim(PlanesDevLayout(), opts)), DevOptions());
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(Names(d.topology.spines),
            (std::vector<std::string>{"spine1", "spine2", "spine3", "spine4", "spine5", "spine6",
                                      "spine7", "spine8"}));
  EXPECT_EQ(Names(d.topology.cores),
            (std::vector<std::string>{"core1", "core2", "core3", "core4"}));
  EXPECT_EQ(d.counts.spines, 8);
  EXPECT_EQ(d.counts.cores, 4);
  EXPECT_EQ(TierOf(d, "su1-rail0"), "leaf");
  EXPECT_EQ(TierOf(d, "spine3"), "spine");
  EXPECT_EQ(TierOf(d, "core2"), "core");
  EXPECT_NE(DiscoverySummary(d).find("32 leaves, 8 spines and 4 core switches from 44 switches"),
            std::string::npos)
      << DiscoverySummary(d);
}

TEST(DiscoverTiers, AThreeTierFabricRoundTripsThroughTheYamlAndTheSimulator) {
  SimOptions opts;
  opts.rail_planes = true;
  opts.cores = 2;
  const Discovery first = Discover(Parse(Sim(PlanesDevLayout(), opts)), DevOptions());
  const std::string yaml = EmitTopologyYaml(first.topology);
  EXPECT_NE(yaml.find("cores:\n  - {name: core1, guid: \"0xfc6a1c03fc000001\", ports: 64}\n"),
            std::string::npos)
      << yaml;
  // The YAML's own cores, not --cores, build the fabric the second time.
  SimOptions again;
  again.rail_planes = true;
  const Discovery second = Discover(Parse(Sim(Load(yaml), again)), DevOptions());
  EXPECT_EQ(AllFindings(second), "");
  EXPECT_EQ(EmitTopologyYaml(second.topology), yaml);
}

TEST(DiscoverTiers, TheSimulatorTakesCoresFromTheYamlOrTheOptionNotBoth) {
  Topology t = PlanesDevLayout();
  t.cores.push_back({"top1", "", 0});
  SimOptions opts;
  opts.rail_planes = true;
  opts.cores = 2;
  std::string out, err;
  EXPECT_FALSE(SimulateFabric(t, opts, &out, &err));
  EXPECT_EQ(err,
            "the topology lists 1 core switches and --cores asks for 2; expected one of the two");
}

TEST(DiscoverTiers, NamesThatSayTheOtherTierAreFindingsAndTheStructureDecides) {
  Topology t = PlanesDevLayout();
  t.spines[2].name = "core-a3";  // cabled to leaves: a spine, whatever its name says
  t.cores = {{"spine-top1", "", 0}, {"top2", "", 0}};
  SimOptions opts;
  opts.rail_planes = true;
  const Discovery d = Discover(Parse(Sim(t, opts)), DevOptions());
  EXPECT_EQ(AllFindings(d),
            "tier-name: core-a3 is named like a core switch but is cabled to leaves, so it is a "
            "spine (the core switches here are those cabled only to spines); expected a spine's "
            "name, or its uplinks on spines only\n"
            "tier-name: spine-top1 is named like a spine but is cabled to no leaf, only to 8 "
            "switches above the leaves, so it is a core switch; expected a core switch's name, "
            "or cables to the leaves it should serve\n");
  EXPECT_EQ(Names(d.topology.cores), (std::vector<std::string>{"spine-top1", "top2"}));
  EXPECT_EQ(d.topology.spines.size(), 8u);
}

TEST(DiscoverTiers, TwoTierFabricsThatCallTheirSpinesCoreSwitchesAreNotAFinding) {
  Topology t = LoadFile(kDev4su);
  t.spines = {{"ib-core1", "", 0}, {"ib-core2", "", 0}};
  const Discovery d = Discover(Parse(Sim(t, SimOptions())), DevOptions());
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(Names(d.topology.spines), (std::vector<std::string>{"ib-core1", "ib-core2"}));
  EXPECT_TRUE(d.topology.cores.empty());
}

TEST(DiscoverTiers, AManagementLeafGroupOfLoginAndStorageHostsIsOneFindingNotScalableUnits) {
  SimOptions opts;
  std::string err;
  const Topology t = LoadFile(kDev4su);
  ASSERT_TRUE(AddSimFault(t, "service", "login:4:2", &opts.faults, &err)) << err;
  ASSERT_TRUE(AddSimFault(t, "service", "gw:6:1", &opts.faults, &err)) << err;
  const Discovery d = Discover(Parse(Sim(t, opts)), DevOptions());
  // The GPU SUs come out exactly as they would without the service hosts.
  EXPECT_EQ(EmitTopologyYaml(d.topology), DevYamlWithSimulatedGuids());
  EXPECT_EQ(d.counts.hosts, 32);
  EXPECT_EQ(AllFindings(d),
            "service-hosts: leaf group gw-leaf1 holds 6 hosts with 1 HCA each (gw01, gw02, gw03 "
            "and 3 more) where the GPU nodes have 8: login, controller, cache or storage hosts, "
            "not GPU compute nodes; left out of the scalable units\n"
            "service-hosts: leaf group login-leaf1, login-leaf2 holds 4 hosts with 2 HCAs each "
            "(login01, login02, login03 and 1 more) where the GPU nodes have 8: login, "
            "controller, cache or storage hosts, not GPU compute nodes; left out of the scalable "
            "units\n");
  EXPECT_EQ(TierOf(d, "login-leaf2"), "service");
  EXPECT_EQ(TierOf(d, "gw-leaf1"), "service");
  EXPECT_EQ(Names(d.topology.spines), (std::vector<std::string>{"spine1", "spine2"}));
  EXPECT_TRUE(d.topology.cores.empty());
}

TEST(DiscoverTiers, ServiceHostsAboveACoreTierStayOutOfTheCoreSwitches) {
  SimOptions opts;
  opts.rail_planes = true;
  opts.cores = 2;
  std::string err;
  const Topology t = PlanesDevLayout();
  ASSERT_TRUE(AddSimFault(t, "service", "mgmt-login:3:2", &opts.faults, &err)) << err;
  ASSERT_TRUE(AddSimFault(t, "service", "ctl:2:1", &opts.faults, &err)) << err;
  const Discovery d = Discover(Parse(Sim(t, opts)), DevOptions());
  EXPECT_EQ(TierOf(d, "ctl-leaf1"), "service");
  // Hosts named mgmt-* are non-compute by their name already; their leaves are still not cores.
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"non-compute", 6}, {"service-hosts", 1}}))
      << AllFindings(d);
  EXPECT_EQ(TierOf(d, "mgmt-login-leaf1"), "service");
  EXPECT_EQ(Names(d.topology.cores), (std::vector<std::string>{"core1", "core2"}));
  EXPECT_EQ(d.topology.spines.size(), 8u);
  EXPECT_EQ(d.topology.sus.size(), 4u);
}

TEST(DiscoverTiers, AFabricOfOneHcaPerHostIsSaidToBeNoRailFabricInOneLine) {
  // A storage fabric: 3 leaves of 4 hosts with one HCA each, under one spine.
  const Topology t = Load(
      "cluster: store\n"
      "rails:\n  - {index: 0, link: {rate_gbps: 200, width: 4X, speed: HDR}}\n"
      "node_types:\n  - {name: gpu-node, gpus: 8, nics: [mlx5_0]}\n"
      "scalable_units:\n"
      "  - {name: su1, nodes: \"st[01-04]\", node_type: gpu-node, leaves: [{rail: 0}]}\n"
      "  - {name: su2, nodes: \"st[05-08]\", node_type: gpu-node, leaves: [{rail: 0}]}\n"
      "  - {name: su3, nodes: \"st[09-12]\", node_type: gpu-node, leaves: [{rail: 0}]}\n"
      "spines:\n  - {name: spine1}\n");
  DiscoverOptions o;
  o.cluster = "store";
  const Discovery d = Discover(Parse(Sim(t, SimOptions())), o);
  EXPECT_EQ(AllFindings(d),
            "not-rail-fabric: every one of the 12 hosts has one HCA on this fabric (on 3 leaves): "
            "it is not a GPU rail fabric but a storage or management fabric, or one plane of a "
            "multi-plane fabric; its leaves are kept as one-rail scalable units; expected hosts "
            "with one HCA per rail for a rail-optimized fabric\n");
  EXPECT_EQ(d.topology.sus.size(), 3u);
}

}  // namespace topo_discover_tiers_test
}  // namespace railguard::topo
