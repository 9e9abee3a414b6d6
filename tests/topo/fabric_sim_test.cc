// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of the fabric simulator: its dumps parse back, follow ibnetdiscover's layout and carry
// exactly the faults asked for.
#include "topo/fabric_sim.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "topo/ibnet.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_fabric_sim_test {

const std::string kDev4su = RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml";

// Two SUs of two hosts, two rails of different speeds, one spine.
const char kSmall[] = R"(cluster: small
rails:
  - {index: 0, link: {rate_gbps: 400, width: 4X, speed: NDR}}
  - {index: 1, link: {rate_gbps: 200, width: 4X, speed: HDR}}
node_types:
  - {name: gpu, gpus: 2, nics: [mlx5_0, mlx5_1]}
scalable_units:
  - name: su1
    nodes: "a[1-2]"
    node_type: gpu
    leaves: [{rail: 0, ports: 8}, {rail: 1, ports: 8}]
  - name: su2
    nodes: "a[3-4]"
    node_type: gpu
    leaves: [{rail: 0, ports: 8, guid: "0x1234", name: edge7}, {rail: 1, ports: 8}]
spines:
  - {name: sp1, ports: 8}
)";

Topology Load(const std::string& text) {
  Topology t;
  Diags diags;
  EXPECT_TRUE(LoadTopologyString(text, "t.yaml", &t, &diags)) << FormatDiags(diags);
  return t;
}

Topology LoadFile(const std::string& path) {
  Topology t;
  Diags diags;
  EXPECT_TRUE(LoadTopologyFile(path, &t, &diags)) << FormatDiags(diags);
  return t;
}

std::string Simulate(const Topology& t, const SimOptions& opts = SimOptions()) {
  std::string out;
  std::string err;
  EXPECT_TRUE(SimulateFabric(t, opts, &out, &err)) << err;
  return out;
}

IbFabric Parse(const std::string& text) {
  IbFabric f;
  Diags errors;
  EXPECT_TRUE(ParseIbnetdiscover(text, "sim.topo", &f, &errors)) << FormatDiags(errors);
  return f;
}

// The node whose description is `desc`, or nullptr.
const IbNode* ByDescription(const IbFabric& f, const std::string& desc) {
  for (const IbNode& n : f.nodes)
    if (n.description == desc) return &n;
  return nullptr;
}

// Description of what is cabled to `port` of the node described `desc`, or "" if nothing.
std::string PeerOf(const IbFabric& f, const std::string& desc, int port) {
  const IbNode* n = ByDescription(f, desc);
  if (!n) return "no node " + desc;
  const int self = f.FindNode(n->guid);
  const int li = f.FindLink(self, port);
  if (li < 0) return "";
  const IbPort peer = f.Peer(f.links[li], self, port);
  return f.nodes[peer.node].description + "[" + std::to_string(peer.port) + "] " +
         f.links[li].Token();
}

int SwitchLinks(const IbFabric& f, const std::string& desc) {
  const int self = f.FindNode(ByDescription(f, desc)->guid);
  int n = 0;
  for (const IbLink& l : f.links)
    if ((l.a.node == self || l.b.node == self) && f.nodes[l.a.node].type == IbNodeType::kSwitch &&
        f.nodes[l.b.node].type == IbNodeType::kSwitch)
      ++n;
  return n;
}

TEST(FabricSim, WritesADumpOfTheDevLayoutThatParsesBackWhole) {
  const IbFabric f = Parse(Simulate(LoadFile(kDev4su)));
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 34u);  // 4 SUs x 8 rails + 2 spines
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 256u);     // 32 nodes x 8 HCAs
  EXPECT_EQ(f.links.size(), 256u + 32u * 2u);         // host links + one uplink per spine
  EXPECT_TRUE(f.warnings.empty());
  for (const IbLink& l : f.links) {
    EXPECT_EQ(l.token_a, "4xNDR");
    EXPECT_EQ(l.token_b, "4xNDR") << "both ends list every link";
  }
  EXPECT_EQ(PeerOf(f, "n001 mlx5_0", 1), "MF0;su1-rail0:MQM9700/U1[1] 4xNDR");
  EXPECT_EQ(PeerOf(f, "n032 mlx5_11", 1), "MF0;su4-rail7:MQM9700/U1[8] 4xNDR");
  EXPECT_EQ(PeerOf(f, "MF0;su2-rail3:MQM9700/U1", 33), "MF0;spine1:MQM9700/U1[12] 4xNDR");
  EXPECT_EQ(PeerOf(f, "MF0;su2-rail3:MQM9700/U1", 34), "MF0;spine2:MQM9700/U1[12] 4xNDR");
  EXPECT_EQ(ByDescription(f, "MF0;spine2:MQM9700/U1")->ports, 64);
  EXPECT_EQ(ByDescription(f, "MF0;su4-rail7:MQM9700/U1")->ports, 64);
}

TEST(FabricSim, PrintsSwitchAndCaRecordsInIbnetdiscoversLayout) {
  const std::string dump = Simulate(Load(kSmall));
  // Switches get LIDs 1-5 in output order, then the CAs from 6 on.
  EXPECT_NE(dump.find("\nvendid=0x2c9\ndevid=0xd2f2\nsysimgguid=0xfc6a1c0300000100\n"
                      "switchguid=0xfc6a1c0300000100(fc6a1c0300000100)\n"
                      "Switch\t8 \"S-fc6a1c0300000100\"\t\t# \"MF0;su1-rail0:MQM9700/U1\" "
                      "enhanced port 0 lid 1 lmc 0\n"
                      "[1]\t\"H-0c42a10300000100\"[1](c42a10300000100) \t\t# \"a1 mlx5_0\" lid 6 "
                      "4xNDR\n"
                      "[2]\t\"H-0c42a10300000200\"[1](c42a10300000200) \t\t# \"a2 mlx5_0\" lid 8 "
                      "4xNDR\n"
                      "[5]\t\"S-fc6a1c03ff000001\"[1]\t\t# \"MF0;sp1:MQM9700/U1\" lid 5 4xNDR\n"),
            std::string::npos)
      << dump;
  EXPECT_NE(dump.find("\nvendid=0x2c9\ndevid=0x1021\nsysimgguid=0xc42a10300000101\n"
                      "caguid=0xc42a10300000101\n"
                      "Ca\t1 \"H-0c42a10300000101\"\t\t# \"a1 mlx5_1\"\n"
                      "[1](c42a10300000101) \t\"S-fc6a1c0300000101\"[1]\t\t# lid 7 lmc 0 "
                      "\"MF0;su1-rail1:MQM8700/U1\" lid 2 4xHDR\n"),
            std::string::npos)
      << dump;
  EXPECT_EQ(dump.substr(0, dump.find("\n\n")),
            "#\n# Topology file: generated by railctl topology simulate for cluster small\n#\n"
            "# Initiated from node 0c42a10300000100 port 0c42a10300000100");
}

TEST(FabricSim, TakesLeafNamesAndGuidsFromTheTopology) {
  const IbFabric f = Parse(Simulate(Load(kSmall)));
  const IbNode* leaf = ByDescription(f, "MF0;edge7:MQM9700/U1");
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->id, "S-0000000000001234");
  EXPECT_EQ(PeerOf(f, "a3 mlx5_0", 1), "MF0;edge7:MQM9700/U1[1] 4xNDR");
}

// One-hop domains (issue 14): tests/data/topo/b300-2su.yaml has two leaves per rail in each SU,
// su1-r<k>-a serving n[001-016] and su1-r<k>-b serving n[017-032].
TEST(FabricSim, CablesEachHostToTheLeafOfItsOneHopDomainOnEveryRail) {
  const IbFabric f = Parse(Simulate(LoadFile(RAILGUARD_SOURCE_DIR "/tests/data/topo/b300-2su.yaml")));
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 32u);  // 2 SUs x 8 rails x 2; no spines
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 64u * 8u);
  EXPECT_EQ(f.links.size(), 64u * 8u);
  EXPECT_EQ(PeerOf(f, "n001 mlx5_0", 1), "MF0;su1-r0-a:MQM9700/U1[1] 4xXDR");
  EXPECT_EQ(PeerOf(f, "n016 mlx5_3", 1), "MF0;su1-r3-a:MQM9700/U1[16] 4xXDR");
  EXPECT_EQ(PeerOf(f, "n017 mlx5_0", 1), "MF0;su1-r0-b:MQM9700/U1[1] 4xXDR");
  EXPECT_EQ(PeerOf(f, "n064 mlx5_7", 1), "MF0;su2-r7-b:MQM9700/U1[16] 4xXDR");
  EXPECT_EQ(PeerOf(f, "MF0;su1-r0-a:MQM9700/U1", 17), "");  // 16 hosts: port 17 is free
  // Each leaf has its own GUID: the second leaf of a rail k = 1 (<< 24).
  EXPECT_EQ(ByDescription(f, "MF0;su1-r0-a:MQM9700/U1")->id, "S-fc6a1c0300000100");
  EXPECT_EQ(ByDescription(f, "MF0;su1-r0-b:MQM9700/U1")->id, "S-fc6a1c0301000100");
  EXPECT_EQ(ByDescription(f, "MF0;su2-r5-b:MQM9700/U1")->id, "S-fc6a1c0301000205");
  // Uplinks as in any fabric (etc/superpod-b300.yaml: 32 hosts per leaf, 16 spines): leaf
  // number g in file order on spine port g+1, from the leaf's port 33.
  const IbFabric b = Parse(Simulate(LoadFile(RAILGUARD_SOURCE_DIR "/etc/superpod-b300.yaml")));
  EXPECT_EQ(b.CountNodes(IbNodeType::kSwitch), 32u + 16u);
  EXPECT_EQ(b.links.size(), 128u * 8u + 32u * 16u);
  EXPECT_EQ(PeerOf(b, "dgx033 mlx5_0", 1), "MF0;su1-leaf02:MQM9700/U1[1] 4xXDR");
  EXPECT_EQ(PeerOf(b, "MF0;su1-leaf02:MQM9700/U1", 33), "MF0;spine01:MQM9700/U1[2] 4xXDR");
  EXPECT_EQ(SwitchLinks(b, "MF0;su2-leaf16:MQM9700/U1"), 16);
}

TEST(FabricSim, CablesEveryLeafToEverySpineTheGivenNumberOfTimes) {
  Topology t = LoadFile(kDev4su);
  SimOptions opts;
  opts.uplinks = 2;
  for (Switch& s : t.spines) s.ports = 64;
  const IbFabric f = Parse(Simulate(t, opts));
  EXPECT_EQ(f.links.size(), 256u + 32u * 2u * 2u);
  EXPECT_EQ(SwitchLinks(f, "MF0;su3-rail5:MQM9700/U1"), 4);
  EXPECT_EQ(SwitchLinks(f, "MF0;spine1:MQM9700/U1"), 64);
}

TEST(FabricSim, WithRailPlanesCablesEachLeafOnlyToTheSpinesOfItsRail) {
  Topology t = LoadFile(kDev4su);
  t.spines.clear();
  for (int i = 1; i <= 16; ++i) t.spines.push_back({"spine" + std::to_string(i), "", 0});
  SimOptions opts;
  opts.rail_planes = true;
  const IbFabric f = Parse(Simulate(t, opts));
  // 32 leaves x 2 spines of their plane, instead of 32 x 16 without planes.
  EXPECT_EQ(f.links.size(), 256u + 32u * 2u);
  EXPECT_EQ(SwitchLinks(f, "MF0;su3-rail5:MQM9700/U1"), 2);
  // spine6 is spine index 5: rail 5's plane, one link from each SU's rail-5 leaf, ports 1-4.
  EXPECT_EQ(SwitchLinks(f, "MF0;spine6:MQM9700/U1"), 4);
  EXPECT_EQ(PeerOf(f, "MF0;spine6:MQM9700/U1", 3), "MF0;su3-rail5:MQM9700/U1[33] 4xNDR");
  EXPECT_EQ(PeerOf(f, "MF0;spine14:MQM9700/U1", 1), "MF0;su1-rail5:MQM9700/U1[34] 4xNDR");
}

TEST(FabricSim, CoresJoinTheRailPlanesIntoOneSubnet) {
  Topology t = LoadFile(kDev4su);
  t.spines.clear();
  for (int i = 1; i <= 8; ++i) t.spines.push_back({"spine" + std::to_string(i), "", 0});
  SimOptions opts;
  opts.rail_planes = true;
  opts.cores = 2;
  const IbFabric f = Parse(Simulate(t, opts));
  EXPECT_EQ(f.links.size(), 256u + 32u + 8u * 2u);
  EXPECT_EQ(SwitchLinks(f, "MF0;core2:MQM9700/U1"), 8);
  // spine3 (rail 2's plane) has the 4 SUs' rail-2 leaves on ports 1-4, then core1, core2.
  EXPECT_EQ(PeerOf(f, "MF0;spine3:MQM9700/U1", 5), "MF0;core1:MQM9700/U1[3] 4xNDR");
  EXPECT_EQ(PeerOf(f, "MF0;spine3:MQM9700/U1", 6), "MF0;core2:MQM9700/U1[3] 4xNDR");
}

TEST(FabricSim, RefusesRailPlanesWhenTheSpinesDoNotDivideIntoTheRails) {
  Topology t = LoadFile(kDev4su);  // 2 spines, 8 rails
  SimOptions opts;
  opts.rail_planes = true;
  std::string out, err;
  EXPECT_FALSE(SimulateFabric(t, opts, &out, &err));
  EXPECT_EQ(err,
            "rail planes need a spine count that is a multiple of the rail count; the topology "
            "has 2 spines and 8 rails");
  EXPECT_TRUE(out.empty());
}

TEST(FabricSim, GivesSwitchesWithoutAPortCountSixtyFourOrWhatTheyNeed) {
  std::string yaml = kSmall;
  yaml.replace(yaml.find("{name: sp1, ports: 8}"), 21, "{name: sp1}");
  const IbFabric f = Parse(Simulate(Load(yaml)));
  EXPECT_EQ(ByDescription(f, "MF0;sp1:MQM9700/U1")->ports, 64);
}

TEST(FabricSim, IsDeterministic) {
  const Topology t = LoadFile(kDev4su);
  EXPECT_EQ(Simulate(t), Simulate(t));
}

// --- faults ---------------------------------------------------------------------------------

SimOptions WithFault(const Topology& t, const std::string& flag, const std::string& value) {
  SimOptions opts;
  std::string err;
  EXPECT_TRUE(AddSimFault(t, flag, value, &opts.faults, &err)) << err;
  return opts;
}

TEST(FabricSimFaults, SwapTwoRailsCablesOfOneNodeAtTheLeaves) {
  const Topology t = LoadFile(kDev4su);
  const IbFabric f = Parse(Simulate(t, WithFault(t, "swap", "n003:mlx5_3:2")));
  EXPECT_EQ(PeerOf(f, "n003 mlx5_3", 1), "MF0;su1-rail2:MQM9700/U1[3] 4xNDR");
  EXPECT_EQ(PeerOf(f, "n003 mlx5_4", 1), "MF0;su1-rail1:MQM9700/U1[3] 4xNDR");
  EXPECT_EQ(PeerOf(f, "n004 mlx5_3", 1), "MF0;su1-rail1:MQM9700/U1[4] 4xNDR");
}

TEST(FabricSimFaults, DropOneHcaLinkSoTheHcaIsNotInTheDump) {
  const Topology t = LoadFile(kDev4su);
  const IbFabric f = Parse(Simulate(t, WithFault(t, "drop", "n005:1")));
  EXPECT_EQ(ByDescription(f, "n005 mlx5_3"), nullptr);
  EXPECT_EQ(PeerOf(f, "MF0;su1-rail1:MQM9700/U1", 5), "");
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 255u);
}

TEST(FabricSimFaults, DropALeafWithAllItsCables) {
  const Topology t = LoadFile(kDev4su);
  const IbFabric f = Parse(Simulate(t, WithFault(t, "drop-leaf", "su3:rail2")));
  EXPECT_EQ(ByDescription(f, "MF0;su3-rail2:MQM9700/U1"), nullptr);
  EXPECT_EQ(f.CountNodes(IbNodeType::kSwitch), 33u);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 248u);
  EXPECT_EQ(ByDescription(f, "n017 mlx5_4"), nullptr);
  // The spines keep their other ports where they were.
  EXPECT_EQ(PeerOf(f, "MF0;spine1:MQM9700/U1", 19), "");
  EXPECT_EQ(PeerOf(f, "MF0;spine1:MQM9700/U1", 20), "MF0;su3-rail3:MQM9700/U1[33] 4xNDR");
}

TEST(FabricSimFaults, LeaveAnHcaWithItsDefaultDescription) {
  const Topology t = LoadFile(kDev4su);
  const IbFabric f = Parse(Simulate(t, WithFault(t, "unnamed", "n007:4")));
  EXPECT_EQ(ByDescription(f, "n007 mlx5_6"), nullptr);
  EXPECT_EQ(PeerOf(f, "MF0;su1-rail4:MQM9700/U1", 7),
            "MT4129 ConnectX7 Mellanox Technologies[1] 4xNDR");
}

TEST(FabricSimFaults, CableAnHcaToAnotherSusLeaf) {
  const Topology t = LoadFile(kDev4su);
  const IbFabric f = Parse(Simulate(t, WithFault(t, "cross-su", "n012:5:su4")));
  EXPECT_EQ(PeerOf(f, "n012 mlx5_9", 1), "MF0;su4-rail5:MQM9700/U1[9] 4xNDR");
  EXPECT_EQ(PeerOf(f, "MF0;su2-rail5:MQM9700/U1", 4), "");
}

TEST(FabricSimFaults, SlowOneLinkDown) {
  const Topology t = LoadFile(kDev4su);
  const IbFabric f = Parse(Simulate(t, WithFault(t, "slow", "n010:0:4xHDR")));
  EXPECT_EQ(PeerOf(f, "n010 mlx5_0", 1), "MF0;su2-rail0:MQM9700/U1[2] 4xHDR");
}

TEST(FabricSimFaults, AddUfmHostsOnTheFirstSpineAfterTheUplinks) {
  const Topology t = LoadFile(kDev4su);
  const IbFabric f = Parse(Simulate(t, WithFault(t, "ufm", "ufm01")));
  EXPECT_EQ(PeerOf(f, "ufm01 mlx5_0", 1), "MF0;spine1:MQM9700/U1[33] 4xNDR");
}

TEST(FabricSimFaults, AddSharpAggregationNodesOnTheFirstLeaves) {
  const Topology t = LoadFile(kDev4su);
  const IbFabric f = Parse(Simulate(t, WithFault(t, "sharp", "2")));
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 258u);
  EXPECT_EQ(PeerOf(f, "MF0;su1-rail0:MQM9700/U1", 9),
            "Mellanox Technologies Aggregation Node[1] 4xNDR");
  EXPECT_EQ(PeerOf(f, "MF0;su1-rail1:MQM9700/U1", 9),
            "Mellanox Technologies Aggregation Node[1] 4xNDR");
  EXPECT_EQ(PeerOf(f, "MF0;su1-rail2:MQM9700/U1", 9), "");
}

TEST(FabricSimFaults, DropTheLastUplinksOfOneLeaf) {
  const Topology t = LoadFile(kDev4su);
  const IbFabric f = Parse(Simulate(t, WithFault(t, "drop-uplinks", "su2:3:1")));
  EXPECT_EQ(SwitchLinks(f, "MF0;su2-rail3:MQM9700/U1"), 1);
  EXPECT_EQ(PeerOf(f, "MF0;su2-rail3:MQM9700/U1", 34), "");
  EXPECT_EQ(SwitchLinks(f, "MF0;su2-rail4:MQM9700/U1"), 2);
}

std::string FaultError(const std::string& flag, const std::string& value) {
  const Topology t = LoadFile(kDev4su);
  SimFaults faults;
  std::string err;
  EXPECT_FALSE(AddSimFault(t, flag, value, &faults, &err));
  return err;
}

TEST(FabricSimFaults, RejectBadValuesNamingTheExpectedForm) {
  EXPECT_EQ(FaultError("swap", "n001:1"),
            "--swap n001:1: wrong number of fields; expected "
            "NODE:RAILa:RAILb");
  EXPECT_EQ(FaultError("swap", "n999:1:2"),
            "--swap n999:1:2: unknown node 'n999'; expected NODE:RAILa:RAILb");
  EXPECT_EQ(FaultError("swap", "n001:1:1"),
            "--swap n001:1:1: both rails are 1; expected two different rails");
  EXPECT_EQ(FaultError("drop", "n001:8"),
            "--drop n001:8: unknown rail '8'; expected a rail index 0 to 7, a rail name or a NIC "
            "name");
  EXPECT_EQ(FaultError("drop-leaf", "su9:0"),
            "--drop-leaf su9:0: unknown scalable unit 'su9'; expected SU:RAIL");
  EXPECT_EQ(FaultError("drop-uplinks", "su1:0:x"),
            "--drop-uplinks su1:0:x: bad uplink count 'x'; expected a count from 1 to 4096");
  EXPECT_EQ(FaultError("slow", "n001:0:fast"),
            "--slow n001:0:fast: bad link 'fast'; expected a width and speed such as 4xHDR");
  EXPECT_EQ(FaultError("sharp", "0"), "--sharp 0: bad count; expected N from 1 to 4096");
  EXPECT_EQ(FaultError("ufm", "ufm 1"),
            "--ufm ufm 1: bad host name; expected HOST: letters, digits, '-', '_' or '.'");
  EXPECT_EQ(FaultError("cross-su", "n001:0:su1"),
            "--cross-su n001:0:su1: n001 is already in su1; expected another scalable unit");
}

TEST(FabricSimFaults, RejectBadHostNamesSlotsAndAppliancesNamingTheExpectedForm) {
  EXPECT_EQ(FaultError("host-name", "n001"),
            "--host-name n001: wrong number of fields; expected NODE:NAME (e.g. n005:localhost)");
  EXPECT_EQ(FaultError("host-name", "n001:a b"),
            "--host-name n001:a b: bad host name 'a b'; expected letters, digits, '-', '_', '.' "
            "or (none)");
  EXPECT_EQ(FaultError("host-name", "n999:localhost"),
            "--host-name n999:localhost: unknown node 'n999'; expected NODE:NAME (e.g. "
            "n005:localhost)");
  EXPECT_EQ(FaultError("empty", "n999"), "--empty n999: unknown node 'n999'; expected NODE");
  EXPECT_EQ(FaultError("appliance", "ufm1:su1"),
            "--appliance ufm1:su1: wrong number of fields; expected HOST:SU:RAIL[,RAIL...]");
  EXPECT_EQ(FaultError("appliance", "n001:su1:0"),
            "--appliance n001:su1:0: n001 is a compute node; expected another host name");
  EXPECT_EQ(FaultError("appliance", "ufm1:su9:0"),
            "--appliance ufm1:su9:0: unknown scalable unit 'su9'; expected HOST:SU:RAIL[,RAIL...]");
  EXPECT_EQ(FaultError("appliance", "ufm1:su1:0,9"),
            "--appliance ufm1:su1:0,9: unknown rail '9'; expected a rail index 0 to 7, a rail name "
            "or a NIC name");
}

TEST(FabricSimFaults, GiveHostsDefaultNamesEmptySlotsAndAppliancesOnLeaves) {
  const Topology t = LoadFile(kDev4su);
  SimOptions opts;
  for (const auto& [flag, value] :
       {std::make_pair("host-name", "n002:(none)"), std::make_pair("empty", "n003"),
        std::make_pair("appliance", "stor1:su2:mlx5_3,7")}) {
    std::string err;
    ASSERT_TRUE(AddSimFault(t, flag, value, &opts.faults, &err)) << err;
  }
  const IbFabric f = Parse(Simulate(t, opts));
  EXPECT_EQ(PeerOf(f, "(none) mlx5_0", 1), "MF0;su1-rail0:MQM9700/U1[2] 4xNDR");
  EXPECT_EQ(ByDescription(f, "n003 mlx5_0"), nullptr);
  EXPECT_EQ(f.CountNodes(IbNodeType::kCa), 256u - 8u + 2u);
  EXPECT_EQ(PeerOf(f, "stor1 mlx5_0", 1), "MF0;su2-rail1:MQM9700/U1[9] 4xNDR");
  EXPECT_EQ(PeerOf(f, "stor1 mlx5_1", 1), "MF0;su2-rail7:MQM9700/U1[9] 4xNDR");
}

TEST(FabricSim, RefusesALeafWithTooFewPorts) {
  std::string yaml = kSmall;
  yaml.replace(yaml.find("{rail: 0, ports: 8}"), 19, "{rail: 0, ports: 2}");
  std::string out;
  std::string err;
  EXPECT_FALSE(SimulateFabric(Load(yaml), SimOptions(), &out, &err));
  EXPECT_EQ(err, "leaf su1-rail0 has 2 ports but needs 3 (2 hosts, 1 uplink)");
}

TEST(FabricSim, RefusesASpineWithTooFewPorts) {
  SimOptions opts;
  opts.uplinks = 3;
  std::string out;
  std::string err;
  EXPECT_FALSE(SimulateFabric(Load(kSmall), opts, &out, &err));
  EXPECT_EQ(err, "spine sp1 has 8 ports but needs 12 (4 leaves x 3 uplinks)");
}

TEST(FabricSim, RefusesTwoSwitchesWithOneGuid) {
  std::string yaml = kSmall;
  yaml.replace(yaml.find("{name: sp1, ports: 8}"), 21, "{name: sp1, ports: 8, guid: \"0x1234\"}");
  std::string out;
  std::string err;
  EXPECT_FALSE(SimulateFabric(Load(yaml), SimOptions(), &out, &err));
  EXPECT_EQ(err,
            "GUID 0x0000000000001234 is used by both leaf edge7 and spine sp1; expected "
            "unique switch GUIDs");
}

// --- command line ---------------------------------------------------------------------------

struct CliResult {
  int rc;
  std::string out;
  std::string err;
};

CliResult RunSimulate(std::vector<std::string> args) {
  args.insert(args.begin(), "simulate");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = cli::TopologySimulate(static_cast<int>(argv.size()), argv.data());
  CliResult r{rc, ::testing::internal::GetCapturedStdout(),
              ::testing::internal::GetCapturedStderr()};
  return r;
}

TEST(FabricSimCli, WritesTheDumpToStdoutOrToTheOutputFile) {
  const CliResult r = RunSimulate({kDev4su, "--swap", "n001:1:2"});
  EXPECT_EQ(r.rc, 0) << r.err;
  const Topology t = LoadFile(kDev4su);
  EXPECT_EQ(r.out, Simulate(t, WithFault(t, "swap", "n001:1:2")));
  const std::string path = ::testing::TempDir() + "/sim_" + std::to_string(getpid()) + ".topo";
  const CliResult w = RunSimulate({kDev4su, "-o", path});
  EXPECT_EQ(w.rc, 0) << w.err;
  EXPECT_EQ(w.out, "");
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()),
            Simulate(t));
  std::remove(path.c_str());
}

TEST(FabricSimCli, ExitsTwoWithTheExpectedFormOnABadFaultValue) {
  const CliResult r = RunSimulate({kDev4su, "--drop", "n001"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "railctl topology simulate: --drop n001: wrong number of fields; expected NODE:RAIL");
  const CliResult s = RunSimulate({kDev4su, "--sharp", "33"});
  EXPECT_EQ(s.rc, 2);
  EXPECT_EQ(s.err.substr(0, s.err.find('\n')),
            "railctl topology simulate: --sharp 33: only 32 leaves; expected N from 1 to 32");
  const CliResult u = RunSimulate({kDev4su, "--drop-uplinks", "su1:0:3"});
  EXPECT_EQ(u.rc, 2);
  EXPECT_EQ(u.err.substr(0, u.err.find('\n')),
            "railctl topology simulate: --drop-uplinks su1:0:3: a leaf has only 2 uplinks; "
            "expected SU:RAIL:N with N from 1 to 2");
  EXPECT_EQ(RunSimulate({kDev4su, "--uplinks", "-1"}).rc, 2);
  EXPECT_EQ(RunSimulate({kDev4su, "--bogus"}).rc, 2);
  EXPECT_EQ(RunSimulate({}).rc, 2);
}

TEST(FabricSimCli, ExitsOneOnAnInvalidTopologyOrAnImpossibleFabric) {
  const CliResult r = RunSimulate({"/nonexistent.yaml"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err,
            "/nonexistent.yaml: cannot open: No such file or directory\n"
            "/nonexistent.yaml: 1 error\n");
  const CliResult s = RunSimulate({kDev4su, "--uplinks", "3"});
  EXPECT_EQ(s.rc, 1);
  EXPECT_EQ(s.err, "railctl topology simulate: " + kDev4su +
                       ": spine spine1 has 64 ports but needs 96 (32 leaves x 3 uplinks)\n");
}

}  // namespace topo_fabric_sim_test
}  // namespace railguard::topo
