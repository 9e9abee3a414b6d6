// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of discovery from the live fabric: discovered nodes turned into the IbFabric that
// parsing ibnetdiscover's dump of the same fabric gives, so that inference and findings agree.
#include "fabric/live_discover.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/topo/discover_test_util.h"
#include "topo/discover.h"
#include "topo/topology_yaml.h"

namespace railguard::fabric {
namespace fabric_live_discover_test {

using topo::discover_testing::AllFindings;
using topo::discover_testing::DevOptions;
using topo::discover_testing::kDev4su;
using topo::discover_testing::LoadFile;
using topo::discover_testing::Parse;
using topo::discover_testing::Simulate;

SweptPort Port(int port, uint64_t peer, int peer_port, int width, const std::string& speed) {
  SweptPort p;
  p.port = port;
  p.peer_guid = peer;
  p.peer_port = peer_port;
  p.link.width_active = width;
  p.link.speed_active = speed;
  return p;
}

SweptNode Node(uint64_t guid, bool sw, const std::string& desc, int ports) {
  SweptNode n;
  n.guid = guid;
  n.is_switch = sw;
  n.description = desc;
  n.num_ports = ports;
  return n;
}

TEST(LinkToken, IsWidthXSpeedAsIbnetdiscoverPrintsIt) {
  LinkState s;
  s.width_active = 4;
  s.speed_active = "HDR";
  EXPECT_EQ(LinkToken(s), "4xHDR");
  s.width_active = 0;
  s.speed_active = "";
  EXPECT_EQ(LinkToken(s), "??x???");
}

// A CA listed before the switch, a router, a slower view on the CA's end, a description with a
// control byte: the switch's record comes first and mentions its peers in port order.
TEST(ToIbFabric, OrdersRecordsLikeIbnetdiscoverAndKeepsBothViews) {
  std::vector<SweptNode> nodes;
  nodes.push_back(Node(0x20, false, "h1\tmlx5_0", 1));
  nodes.back().ports.push_back(Port(1, 0x10, 3, 4, "EDR"));
  nodes.push_back(Node(0x30, false, "rtr", 2));
  nodes.back().is_router = true;
  nodes.back().ports.push_back(Port(2, 0x10, 1, 4, "HDR"));
  nodes.push_back(Node(0x10, true, "MF0;su1-rail0:MQM8700/U1", 36));
  nodes.back().ports.push_back(Port(1, 0x30, 2, 4, "HDR"));
  nodes.back().ports.push_back(Port(3, 0x20, 1, 4, "HDR"));

  topo::IbFabric f;
  std::string err;
  ASSERT_TRUE(ToIbFabric(nodes, &f, &err)) << err;
  ASSERT_EQ(f.nodes.size(), 3u);
  EXPECT_EQ(f.nodes[0].id, "S-0000000000000010");
  EXPECT_EQ(f.nodes[0].ports, 36);
  EXPECT_EQ(f.nodes[1].id, "R-0000000000000030");
  EXPECT_EQ(f.nodes[1].type, topo::IbNodeType::kRouter);
  EXPECT_EQ(f.nodes[2].id, "H-0000000000000020");
  EXPECT_EQ(f.nodes[2].description, "h1 mlx5_0");
  EXPECT_EQ(f.nodes[2].ports, 1);
  ASSERT_EQ(f.links.size(), 2u);
  EXPECT_EQ(f.links[1].a.node, 0);
  EXPECT_EQ(f.links[1].a.port, 3);
  EXPECT_EQ(f.links[1].b.node, 2);
  EXPECT_EQ(f.links[1].token_a, "4xHDR");
  EXPECT_EQ(f.links[1].token_b, "4xEDR");
  EXPECT_EQ(f.links[1].Token(), "4xEDR");
  EXPECT_EQ(f.FindLink(2, 1), 1);
  EXPECT_EQ(f.FindLink(1, 2), 0);
  EXPECT_EQ(f.FindNode(0x20), 2);
  EXPECT_EQ(f.CountNodes(topo::IbNodeType::kSwitch), 1u);
}

TEST(ToIbFabric, RefusesAPeerThatWasNotDiscovered) {
  std::vector<SweptNode> nodes = {Node(0x10, true, "sw", 8)};
  nodes[0].ports.push_back(Port(2, 0x99, 1, 4, "HDR"));
  topo::IbFabric f;
  std::string err;
  EXPECT_FALSE(ToIbFabric(nodes, &f, &err));
  EXPECT_EQ(err,
            "S-0000000000000010[2] is linked to GUID 0x0000000000000099, which discovery did not "
            "return; expected every peer to be a discovered node");
}

TEST(ToIbFabric, RefusesALinkWhoseFarEndNamesAnotherPort) {
  std::vector<SweptNode> nodes = {Node(0x10, true, "sw", 8), Node(0x20, false, "h1 mlx5_0", 1)};
  nodes[0].ports.push_back(Port(2, 0x20, 1, 4, "HDR"));
  nodes[1].ports.push_back(Port(1, 0x10, 5, 4, "HDR"));
  topo::IbFabric f;
  std::string err;
  EXPECT_FALSE(ToIbFabric(nodes, &f, &err));
  EXPECT_EQ(err,
            "S-0000000000000010[2] is linked to H-0000000000000020[1], which does not link back "
            "to it; expected both ends of a link to name each other");
}

// What libibnetdisc would return for the fabric a parsed dump describes: every node with its
// linked ports, each port's active width and speed from its own end's token, in the order of
// the dump's records (ibnetdiscover prints them in libibnetdisc's order).
std::vector<SweptNode> AsDiscovered(const topo::IbFabric& f) {
  std::vector<SweptNode> nodes;
  for (const topo::IbNode& n : f.nodes) {
    SweptNode s = Node(n.guid, n.type == topo::IbNodeType::kSwitch, n.description, n.ports);
    s.is_router = n.type == topo::IbNodeType::kRouter;
    nodes.push_back(s);
  }
  for (const topo::IbLink& l : f.links) {
    for (int end = 0; end < 2; ++end) {
      const topo::IbPort& self = end ? l.b : l.a;
      const topo::IbPort& peer = end ? l.a : l.b;
      const std::string& token = (end ? l.token_b : l.token_a).empty() ? l.Token()
                                 : end                                ? l.token_b
                                                                      : l.token_a;
      const size_t x = token.find('x');
      nodes[self.node].ports.push_back(Port(self.port, f.nodes[peer.node].guid, peer.port,
                                            std::stoi(token.substr(0, x)), token.substr(x + 1)));
    }
  }
  for (SweptNode& n : nodes)
    std::sort(n.ports.begin(), n.ports.end(),
              [](const SweptPort& a, const SweptPort& b) { return a.port < b.port; });
  std::vector<SweptNode> by_record;
  std::vector<size_t> order(nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return f.nodes[x].line < f.nodes[y].line; });
  for (size_t i : order) by_record.push_back(nodes[i]);
  return by_record;
}

// The dev layout with a swapped cable, a default host name, an unnamed HCA and a UFM host:
// the fabric built from discovered nodes is the parsed dump, node for node and link for link,
// and discovery gives the same YAML and the same (non-empty) findings.
TEST(ToIbFabric, GivesWhatTheDumpOfTheSameFabricGives) {
  const topo::Topology t = LoadFile(kDev4su);
  const topo::IbFabric parsed = Parse(Simulate(
      t, {{"swap", "n003:mlx5_3:2"}, {"host-name", "n010:localhost"}, {"unnamed", "n020:0"},
          {"ufm", "ufm01"}}));
  topo::IbFabric live;
  std::string err;
  ASSERT_TRUE(ToIbFabric(AsDiscovered(parsed), &live, &err)) << err;
  ASSERT_EQ(live.nodes.size(), parsed.nodes.size());
  for (size_t i = 0; i < parsed.nodes.size(); ++i) {
    EXPECT_EQ(live.nodes[i].id, parsed.nodes[i].id) << i;
    EXPECT_EQ(live.nodes[i].description, parsed.nodes[i].description) << i;
    EXPECT_EQ(live.nodes[i].ports, parsed.nodes[i].ports) << i;
    EXPECT_EQ(live.nodes[i].links, parsed.nodes[i].links) << i;
  }
  ASSERT_EQ(live.links.size(), parsed.links.size());
  for (size_t i = 0; i < parsed.links.size(); ++i) {
    EXPECT_EQ(live.links[i].a.node, parsed.links[i].a.node) << i;
    EXPECT_EQ(live.links[i].b.port, parsed.links[i].b.port) << i;
    EXPECT_EQ(live.links[i].Token(), parsed.links[i].Token()) << i;
  }
  const topo::Discovery from_dump = topo::Discover(parsed, DevOptions());
  const topo::Discovery from_live = topo::Discover(live, DevOptions());
  EXPECT_EQ(topo::EmitTopologyYaml(from_live.topology),
            topo::EmitTopologyYaml(from_dump.topology));
  EXPECT_EQ(AllFindings(from_live), AllFindings(from_dump));
  EXPECT_NE(AllFindings(from_dump).find("rail-mismatch: "), std::string::npos);
  EXPECT_NE(AllFindings(from_dump).find("host-name: "), std::string::npos);
  EXPECT_NE(AllFindings(from_dump).find("non-compute: "), std::string::npos);
}

}  // namespace fabric_live_discover_test
}  // namespace railguard::fabric
