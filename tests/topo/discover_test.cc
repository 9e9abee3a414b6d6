// Tests of topology discovery: simulate -> discover round trips, one finding per injected
// fault, the real dumps, and the `railctl topology discover` command.
#include "topo/discover.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "topo/fabric_sim.h"
#include "topo/hostlist.h"
#include "topo/ibnet.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace {

const std::string kDev4su = RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml";
const std::string kX5 = RAILGUARD_SHARED_DATA "/ibnetdiscover/hpc-toolset-x5/";
const std::string kIbtopotool = RAILGUARD_SHARED_DATA "/ibnetdiscover/ibtopotool/";

Topology LoadFile(const std::string& path) {
  Topology t;
  Diags diags;
  EXPECT_TRUE(LoadTopologyFile(path, &t, &diags)) << FormatDiags(diags);
  return t;
}

Topology Load(const std::string& text) {
  Topology t;
  Diags diags;
  EXPECT_TRUE(LoadTopologyString(text, "t.yaml", &t, &diags)) << FormatDiags(diags);
  return t;
}

IbFabric Parse(const std::string& text) {
  IbFabric f;
  Diags errors;
  EXPECT_TRUE(ParseIbnetdiscover(text, "t.topo", &f, &errors)) << FormatDiags(errors);
  return f;
}

IbFabric ParseFile(const std::string& path) {
  IbFabric f;
  Diags errors;
  EXPECT_TRUE(ParseIbnetdiscoverFile(path, &f, &errors)) << FormatDiags(errors);
  return f;
}

// Simulates `t` with the faults given as (flag, value) pairs.
std::string Simulate(const Topology& t,
                     const std::vector<std::pair<std::string, std::string>>& faults = {},
                     int uplinks = 1) {
  SimOptions opts;
  opts.uplinks = uplinks;
  for (const auto& [flag, value] : faults) {
    std::string err;
    EXPECT_TRUE(AddSimFault(t, flag, value, &opts.faults, &err)) << err;
  }
  std::string out;
  std::string err;
  EXPECT_TRUE(SimulateFabric(t, opts, &out, &err)) << err;
  return out;
}

DiscoverOptions DevOptions() {
  DiscoverOptions o;
  o.cluster = "raildev";
  o.node_type = "dgx-h100";
  o.gpus = 8;
  return o;
}

Discovery DiscoverDev(const std::vector<std::pair<std::string, std::string>>& faults,
                      DiscoverOptions opts = DevOptions()) {
  return Discover(Parse(Simulate(LoadFile(kDev4su), faults)), opts);
}

// The dev layout with the GUIDs the simulator gives its switches.
std::string DevYamlWithSimulatedGuids() {
  Topology t = LoadFile(kDev4su);
  AssignSwitchGuids(&t);
  return EmitTopologyYaml(t);
}

// kind/node/hca/switch/guid/port of a finding, for compact comparisons.
std::string Key(const Finding& f) {
  return f.kind + " " + f.node + "/" + f.hca + " " + f.switch_name + " " + f.guid + " " +
         std::to_string(f.port);
}

std::vector<std::string> Keys(const Discovery& d) {
  std::vector<std::string> keys;
  for (const Finding& f : d.findings) keys.push_back(Key(f));
  return keys;
}

std::map<std::string, int> KindCounts(const Discovery& d) {
  std::map<std::string, int> counts;
  for (const Finding& f : d.findings) ++counts[f.kind];
  return counts;
}

std::string AllFindings(const Discovery& d) {
  std::string s;
  for (const Finding& f : d.findings) s += f.ToString() + "\n";
  return s;
}

// A generated layout: `sus` SUs of `per_su` hosts "gpu0001"..., 8 rails, `spines` spines. Every
// switch has its own name and GUID, so they must survive the round trip too.
std::string BigLayout(int sus, int per_su, int spines, int spine_ports) {
  std::string y = "cluster: big\nrails:\n";
  for (int r = 0; r < 8; ++r)
    y += "  - {index: " + std::to_string(r) + ", link: {rate_gbps: 200, width: 4X, speed: HDR}}\n";
  y += "node_types:\n  - name: hgx\n    gpus: 8\n    nics: [mlx5_0, mlx5_1, mlx5_2, mlx5_3, "
       "mlx5_6, mlx5_7, mlx5_8, mlx5_9]\nscalable_units:\n";
  char buf[160];
  for (int s = 0; s < sus; ++s) {
    std::snprintf(buf, sizeof buf, "  - name: su%d\n    nodes: \"gpu[%04d-%04d]\"\n", s + 1,
                  s * per_su + 1, s * per_su + per_su);
    y += buf;
    y += "    node_type: hgx\n    leaves:\n";
    for (int r = 0; r < 8; ++r) {
      std::snprintf(buf, sizeof buf,
                    "      - {rail: %d, name: ib-s%03d-r%d, guid: \"0x98039b03%06x\", ports: 64}\n",
                    r, s + 1, r, s * 16 + r);
      y += buf;
    }
  }
  y += "spines:\n";
  for (int i = 0; i < spines; ++i) {
    std::snprintf(buf, sizeof buf, "  - {name: core%d, guid: \"0x98039b03ff%06x\", ports: %d}\n",
                  i + 1, i, spine_ports);
    y += buf;
  }
  return y;
}

// --- round trips ----------------------------------------------------------------------------

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
  EXPECT_EQ(by_name.topology.node_types[0].nics.front(), "mlx5_0");
  EXPECT_NE(EmitTopologyYaml(by_name.topology), EmitTopologyYaml(t));
  o.rail_order = {"mlx5_9", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_0"};
  const Discovery by_order = Discover(f, o);
  EXPECT_EQ(AllFindings(by_order), "");
  EXPECT_EQ(EmitTopologyYaml(by_order.topology), EmitTopologyYaml(t));
}

TEST(DiscoverRoundTrip, OrdersRailsNaturallySoMlx5_10ComesAfterMlx5_9) {
  const Discovery d = DiscoverDev({});
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

// --- one finding per fault ------------------------------------------------------------------

TEST(DiscoverFaults, SwappedCablesAreTwoRailMismatches) {
  const Discovery d = DiscoverDev({{"swap", "n001:1:2"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"rail-mismatch n001/mlx5_3 su1-rail2 0xfc6a1c0300000102 1",
                                      "rail-mismatch n001/mlx5_4 su1-rail1 0xfc6a1c0300000101 1"}));
  EXPECT_EQ(d.findings[0].message,
            "n001 mlx5_3 is cabled to su1-rail2 port 1, the leaf of rail 2 (mlx5_4); expected "
            "su1-rail1, the leaf of rail 1 (mlx5_3) (swapped cables?)");
}

TEST(DiscoverFaults, ADroppedCableIsOneMissingLinkOnTheExpectedPort) {
  const Discovery d = DiscoverDev({{"drop", "n005:mlx5_3"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"missing-link n005/mlx5_3 su1-rail1 0xfc6a1c0300000101 5"}));
  EXPECT_EQ(d.findings[0].message,
            "n005 has no mlx5_3 link (rail 1); expected a cable to su1-rail1 port 5");
}

TEST(DiscoverFaults, AMissingLeafIsOneFindingNotOnePerHost) {
  const Discovery d = DiscoverDev({{"drop-leaf", "su3:2"}});
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"missing-leaf /mlx5_4   0"}));
  EXPECT_EQ(d.findings[0].message,
            "su3 has no leaf for rail 2 (mlx5_4): none of its 8 hosts (n[017-024]) has a mlx5_4 "
            "link; expected one leaf per rail in every SU");
  // The SU keeps a placeholder leaf for the rail, so the topology still validates.
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
  EXPECT_EQ(d.findings[0].message,
            "n012 mlx5_9 is cabled to su4-rail5 port 9, a leaf of su4; expected su2-rail5, the "
            "rail 5 (mlx5_9) leaf of its own SU su2");
}

TEST(DiscoverFaults, AFewMiscabledHcasDoNotMergeScalableUnits) {
  const Discovery d = DiscoverDev(
      {{"cross-su", "n001:0:su2"}, {"cross-su", "n002:3:su2"}, {"cross-su", "n003:7:su2"}});
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"su-mismatch", 3}}));
  EXPECT_EQ(d.topology.sus.size(), 4u);
  EXPECT_EQ(d.topology.sus[0].nodes_expr, "n[001-008]");
}

TEST(DiscoverFaults, ASlowLinkIsALinkSpeedFinding) {
  const Discovery d = DiscoverDev({{"slow", "n010:0:4xHDR"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"link-speed n010/mlx5_0 su2-rail0 0xfc6a1c0300000200 2"}));
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
  EXPECT_EQ(d.findings[0].message,
            "n031 mlx5_0 on su4-rail0 port 7 is matched by --exclude; left out of the topology");
  EXPECT_EQ(d.topology.sus[3].nodes_expr, "n[025-030]");
}

TEST(DiscoverFaults, ALeafShortOfUplinksIsAnUplinkDeficit) {
  const Discovery d = DiscoverDev({{"drop-uplinks", "su2:3:1"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"uplink-deficit /mlx5_5 su2-rail3 0xfc6a1c0300000203 0"}));
  EXPECT_EQ(d.findings[0].message, "su2-rail3 has 1 uplink to spines; expected 2 like most leaves");
}

// Replaces every occurrence of `from` in `text`.
std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
    text.replace(p, from.size(), to);
  return text;
}

TEST(DiscoverFaults, TwoHcasWithOneDescriptionAreADuplicateHca) {
  const std::string dump =
      ReplaceAll(Simulate(LoadFile(kDev4su)), "\"n002 mlx5_0\"", "\"n001 mlx5_0\"");
  const Discovery d = Discover(Parse(dump), DevOptions());
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"missing-link n002/mlx5_0 su1-rail0 0xfc6a1c0300000100 0",
                                      "duplicate-hca n001/mlx5_0 su1-rail0 0xfc6a1c0300000100 2"}));
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
  EXPECT_EQ(d.findings[0].message,
            "su1-rail7 has 8 host HCAs, mostly mlx5_11, which is not in --rail-order; left out "
            "of the topology");
  EXPECT_EQ(d.topology.rails.size(), 7u);
}

// Switch records only; each link listed by the switch, as a partial dump would have it.
class DumpBuilder {
 public:
  int AddSwitch(const std::string& desc, int ports) {
    switches_.push_back({desc, ports, {}});
    return static_cast<int>(switches_.size()) - 1;
  }
  void AddHost(int sw, int port, const std::string& desc, const std::string& token = "4xNDR") {
    const uint64_t guid = 0x100000 + ++cas_;
    switches_[sw].lines.emplace_back(port, "\"" + IbNodeId(IbNodeType::kCa, guid) + "\"[1](" +
                                               std::to_string(guid) + ") \t\t# \"" + desc +
                                               "\" lid 1 " + token);
  }
  void Cable(int a, int pa, int b, int pb, const std::string& token = "4xNDR") {
    switches_[a].lines.emplace_back(pa, "\"" + IbNodeId(IbNodeType::kSwitch, Guid(b)) + "\"[" +
                                            std::to_string(pb) + "]\t\t# \"" + switches_[b].desc +
                                            "\" lid 1 " + token);
  }
  std::string Text() const {
    std::string t;
    for (size_t i = 0; i < switches_.size(); ++i) {
      const Sw& s = switches_[i];
      t += "\nSwitch\t" + std::to_string(s.ports) + " \"" +
           IbNodeId(IbNodeType::kSwitch, Guid(static_cast<int>(i))) + "\"\t\t# \"" + s.desc +
           "\" enhanced port 0 lid 1 lmc 0\n";
      std::vector<std::pair<int, std::string>> lines = s.lines;
      std::sort(lines.begin(), lines.end());
      for (const auto& [port, rest] : lines) t += "[" + std::to_string(port) + "]\t" + rest + "\n";
    }
    return t;
  }

 private:
  static uint64_t Guid(int sw) { return 0xaa00 + static_cast<uint64_t>(sw); }
  struct Sw {
    std::string desc;
    int ports;
    std::vector<std::pair<int, std::string>> lines;
  };
  std::vector<Sw> switches_;
  uint64_t cas_ = 0;
};

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
  EXPECT_EQ(d.findings[0].message,
            "switch link l1 port 5 - sp port 2 trains at 4xHDR; expected 4xNDR like most switch "
            "links");
  EXPECT_EQ(d.findings[1].message,
            "l0 port 6 is cabled to l1 port 6, another leaf; expected leaves to connect only to "
            "spines");
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
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"link-speed", 3}}));
}

TEST(DiscoverRobustness, EveryMangledLineOfASimulatedDumpParsesOrFailsButNeverCrashes) {
  const std::string dump = Simulate(Load(R"(cluster: c
rails:
  - {index: 0, link: {rate_gbps: 400, width: 4X, speed: NDR}}
  - {index: 1, link: {rate_gbps: 400, width: 4X, speed: NDR}}
node_types:
  - {name: g, gpus: 2, nics: [mlx5_0, mlx5_1]}
scalable_units:
  - {name: su1, nodes: "n[1-2]", node_type: g, leaves: [{rail: 0}, {rail: 1}]}
  - {name: su2, nodes: "n[3-4]", node_type: g, leaves: [{rail: 0}, {rail: 1}]}
spines:
  - {name: s1}
)"));
  int parsed = 0;
  for (size_t i = 0; i < dump.size(); i += 2) {
    std::string mangled = dump;
    mangled.erase(i, 1);
    IbFabric f;
    Diags errors;
    if (!ParseIbnetdiscover(mangled, "m.topo", &f, &errors)) continue;
    ++parsed;
    const Discovery d = Discover(f, DiscoverOptions());
    // Either a topology comes out, or a finding says why not.
    EXPECT_TRUE(!d.topology.sus.empty() || !d.findings.empty()) << i;
    EXPECT_EQ(d.topology.sus.empty(), d.topology.rails.empty()) << i;
  }
  EXPECT_GT(parsed, 0);
}

// --- real dumps -----------------------------------------------------------------------------

TEST(DiscoverRealDumps, X5WithoutAMapIsUnnamedHcasAndNoRails) {
  const Discovery d = Discover(ParseFile(kX5 + "X5.topofile"), DiscoverOptions());
  EXPECT_EQ(KindCounts(d),
            (std::map<std::string, int>{
                {"not-rail-optimized", 1}, {"unnamed-hca", 89}, {"link-speed", 23}}));
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
  DiscoverOptions o;
  Diags errors;
  ASSERT_TRUE(LoadNodeMapFile(kX5 + "X5.map", &o.node_map, &errors)) << FormatDiags(errors);
  const Discovery d = Discover(ParseFile(kX5 + "X5.topofile"), o);
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{
                               {"not-rail-optimized", 1}, {"unnamed-hca", 3}, {"link-speed", 23}}));
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

TEST(DiscoverRealDumps, TheSampleWithATimeoutReportsItLoopbacksAndUfmHosts) {
  const Discovery d = Discover(ParseFile(kIbtopotool + "3.topo"), DiscoverOptions());
  EXPECT_EQ(KindCounts(d), (std::map<std::string, int>{{"ibnetdiscover-error", 1},
                                                       {"not-rail-optimized", 1},
                                                       {"loopback", 3},
                                                       {"non-compute", 6}}));
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

TEST(DiscoverRealDumps, TheTwoHostSampleIsOneSuOfOneRail) {
  const Discovery d = Discover(ParseFile(kIbtopotool + "2.topo"), DiscoverOptions());
  EXPECT_EQ(AllFindings(d), "");
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

TEST(DiscoverRealDumps, FindingsComeGroupedByKind) {
  const Discovery d = DiscoverDev({{"ufm", "ufm01"}, {"drop", "n009:0"}, {"swap", "n002:0:1"}});
  std::vector<std::string> kinds;
  for (const Finding& f : d.findings) kinds.push_back(f.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"rail-mismatch", "rail-mismatch", "missing-link",
                                             "non-compute"}));
}

// --- helpers --------------------------------------------------------------------------------

TEST(DiscoverHelpers, NaturalOrderComparesNumbersByValue) {
  EXPECT_TRUE(NaturalLess("mlx5_3", "mlx5_10"));
  EXPECT_FALSE(NaturalLess("mlx5_10", "mlx5_3"));
  EXPECT_TRUE(NaturalLess("mlx5_0", "mlx5_1"));
  EXPECT_TRUE(NaturalLess("mlx4_9", "mlx5_0"));
  EXPECT_TRUE(NaturalLess("spine2", "spine10"));
  EXPECT_TRUE(NaturalLess("a", "a0"));
  EXPECT_FALSE(NaturalLess("x", "x"));
  EXPECT_TRUE(NaturalLess("n01", "n001") != NaturalLess("n001", "n01"));
}

TEST(DiscoverHelpers, NodeMapsReadBothTheHpcToolsetAndTheIbnetdiscoverForm) {
  NodeMap m;
  Diags errors;
  ASSERT_TRUE(LoadNodeMapFile(kX5 + "X5.map", &m, &errors)) << FormatDiags(errors);
  EXPECT_EQ(m.size(), 86u);  // 87 lines, the first a comment
  EXPECT_EQ(m.at(0x003048c74e4a0000ULL), "x5570comp1");
  ASSERT_TRUE(
      ParseNodeMap("# IB1\n0x0008f104003f125c \"n7 mlx5_1\"  # rack 3\n"
                   "S-00000000000000ab spine-a\n",
                   "m.map", &m, &errors))
      << FormatDiags(errors);
  EXPECT_EQ(m.at(0x0008f104003f125cULL), "n7 mlx5_1");
  EXPECT_EQ(m.at(0xab), "spine-a");
}

TEST(DiscoverHelpers, NodeMapErrorsNameTheLineAndTheExpectedForm) {
  NodeMap m;
  Diags errors;
  EXPECT_FALSE(ParseNodeMap("003048c74e4a0000 x\nH-12 \"open\nH-zz y\nH-12\nH-12 a\nH-12 b\n",
                            "m.map", &m, &errors));
  const std::string form =
      "; expected <H-guid|S-guid|0xguid> <host> [<device>], e.g. H-003048c74e4a0000 node1\n";
  EXPECT_EQ(FormatDiags(errors), "m.map:1: bad GUID \"003048c74e4a0000\"" + form +
                                     "m.map:2: unterminated name after H-12" + form +
                                     "m.map:3: bad GUID \"H-zz\"" + form +
                                     "m.map:4: GUID H-12 has no name" + form +
                                     "m.map:6: GUID H-12 is mapped twice (first at line 5)" + form);
}

TEST(DiscoverHelpers, ABadExcludePatternIsAnErrorNotAnException) {
  std::optional<std::regex> re;
  std::string err;
  EXPECT_FALSE(CompileExclude("ufm[", &re, &err));
  EXPECT_EQ(err.substr(0, 35), "invalid regular expression 'ufm[': ");
}

// --- scale ----------------------------------------------------------------------------------

// Best of two parse+discover runs over a generated dump, in milliseconds.
double ParseAndDiscoverMs(const std::string& dump, Discovery* out) {
  double best = 1e18;
  for (int run = 0; run < 2; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    IbFabric f;
    Diags errors;
    EXPECT_TRUE(ParseIbnetdiscover(dump, "big.topo", &f, &errors));
    *out = Discover(f, DiscoverOptions());
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

TEST(DiscoverScale, A4096NodeFabricRoundTripsAndCostsLinearTime) {
  const Topology big = Load(BigLayout(128, 32, 16, 1024));
  const Topology quarter = Load(BigLayout(32, 32, 16, 1024));
  Discovery d;
  const double quarter_ms = ParseAndDiscoverMs(Simulate(quarter), &d);
  const double big_ms = ParseAndDiscoverMs(Simulate(big), &d);
  RecordProperty("parse_discover_ms_4096_nodes", std::to_string(big_ms));
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(d.counts.hosts, 4096);
  EXPECT_EQ(d.counts.leaves, 1024);
  EXPECT_EQ(d.topology.sus.size(), 128u);
  Topology expected = big;
  expected.cluster = "discovered";
  expected.node_types[0].name = "gpu-node";
  for (ScalableUnit& su : expected.sus) su.node_type = "gpu-node";
  EXPECT_EQ(EmitTopologyYaml(d.topology), EmitTopologyYaml(expected));
  // Four times the fabric must cost about four times as much, far from sixteen.
  EXPECT_LT(big_ms, 8 * quarter_ms + 50) << big_ms << " ms vs " << quarter_ms << " ms";
}

// --- command line ---------------------------------------------------------------------------

struct CliResult {
  int rc;
  std::string out;
  std::string err;
};

CliResult RunDiscover(std::vector<std::string> args) {
  args.insert(args.begin(), "discover");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int rc = cli::TopologyDiscover(static_cast<int>(argv.size()), argv.data());
  CliResult r{rc, testing::internal::GetCapturedStdout(), testing::internal::GetCapturedStderr()};
  return r;
}

// Writes a simulated dev dump with `faults` to a temporary file; returns its path.
std::string DevDumpFile(const std::vector<std::pair<std::string, std::string>>& faults,
                        const std::string& name) {
  const std::string path = testing::TempDir() + "/" + name + "_" + std::to_string(getpid());
  std::ofstream(path) << Simulate(LoadFile(kDev4su), faults);
  return path;
}

TEST(DiscoverCli, PrintsTheYamlAndExitsZeroOnACleanFabric) {
  const std::string dump = DevDumpFile({}, "clean.topo");
  const CliResult r =
      RunDiscover({dump, "--cluster", "raildev", "--node-type", "dgx-h100", "--gpus", "8"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, DevYamlWithSimulatedGuids());
  EXPECT_EQ(r.err, dump +
                       ": discovered 4 scalable units, 32 hosts, 8 rails, 32 leaves and 2 spines "
                       "from 34 switches, 256 CAs (256 compute HCAs, 0 unnamed, 0 non-compute) "
                       "and 320 links; 0 findings\n");
  std::remove(dump.c_str());
}

TEST(DiscoverCli, ListsFindingsOnStderrAndExitsOne) {
  const std::string dump = DevDumpFile({{"drop", "n005:1"}}, "drop.topo");
  const std::string out = testing::TempDir() + "/drop_" + std::to_string(getpid()) + ".yaml";
  const CliResult r = RunDiscover({dump, "-o", out, "--node-type", "dgx-h100"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "missing-link: n005 has no mlx5_3 link (rail 1); expected a cable to su1-rail1 port "
            "5");
  std::ifstream in(out);
  const std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(yaml.substr(0, 19), "cluster: discovered");
  std::remove(dump.c_str());
  std::remove(out.c_str());
}

TEST(DiscoverCli, ExitsZeroWhenOnlyNonComputeCasAreFound) {
  // UFM hosts and SHARP aggregation nodes are reported and left out, but are not faults.
  const std::string dump = DevDumpFile({{"ufm", "ufm01"}, {"sharp", "1"}}, "ufm.topo");
  const CliResult r = RunDiscover({dump, "--cluster", "raildev", "--node-type", "dgx-h100"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("non-compute: ufm01 mlx5_0 on spine1 port"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, DevYamlWithSimulatedGuids());
  std::remove(dump.c_str());
}

TEST(DiscoverCli, PrintsJsonWithSusRailsAndFindings) {
  const std::string dump = DevDumpFile({{"swap", "n001:1:2"}}, "swap.topo");
  const CliResult r = RunDiscover({dump, "--json"});
  EXPECT_EQ(r.rc, 1);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sus"].size(), 4u);
  EXPECT_EQ(j["sus"][0]["nodes"], "n[001-008]");
  EXPECT_EQ(j["rails"].size(), 8u);
  EXPECT_EQ(j["rails"][7]["hca"], "mlx5_11");
  EXPECT_EQ(j["rails"][7]["link"], "4xNDR");
  ASSERT_EQ(j["findings"].size(), 2u);
  EXPECT_EQ(j["findings"][0],
            (nlohmann::json{{"kind", "rail-mismatch"},
                            {"node", "n001"},
                            {"hca", "mlx5_3"},
                            {"switch", "su1-rail2"},
                            {"guid", "0xfc6a1c0300000102"},
                            {"port", 1},
                            {"message",
                             "n001 mlx5_3 is cabled to su1-rail2 port 1, the leaf of rail 2 "
                             "(mlx5_4); expected su1-rail1, the leaf of rail 1 (mlx5_3) "
                             "(swapped cables?)"}}));
  EXPECT_EQ(j["switches"].size(), 34u);
  std::remove(dump.c_str());
}

TEST(DiscoverCli, WritesNoYamlWhenNoRailCanBeInferred) {
  const CliResult r = RunDiscover({kX5 + "X5.topofile", "--node-map", kX5 + "X5.map"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("\nrailctl topology discover: no topology written: no scalable unit of "
                       "rail-optimized hosts was found\n"),
            std::string::npos);
}

TEST(DiscoverCli, ExitsOneWithFileAndLineOnABrokenDump) {
  const std::string dump = testing::TempDir() + "/broken_" + std::to_string(getpid());
  std::ofstream(dump) << "#\nSwitch\t8 oops\n";
  const CliResult r = RunDiscover({dump});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, dump +
                       ":2: bad node id in header; expected Switch <ports> \"S-<guid>\" # "
                       "\"<description>\" enhanced port 0 lid <lid> lmc <lmc>\n" +
                       dump + ": 1 error; nothing discovered\n");
  std::remove(dump.c_str());
}

TEST(DiscoverCli, ExitsTwoOnUsageErrors) {
  const std::string dump = kIbtopotool + "2.topo";
  const CliResult gpus = RunDiscover({dump, "--gpus", "x"});
  EXPECT_EQ(gpus.rc, 2);
  EXPECT_EQ(gpus.err.substr(0, gpus.err.find('\n')),
            "railctl topology discover: invalid --gpus 'x'; expected an integer from 0 to 64");
  const CliResult order = RunDiscover({dump, "--rail-order", "mlx5_0,,mlx5_1"});
  EXPECT_EQ(order.rc, 2);
  EXPECT_EQ(order.err.substr(0, order.err.find('\n')),
            "railctl topology discover: invalid --rail-order 'mlx5_0,,mlx5_1'; expected distinct "
            "HCA names separated by commas, e.g. mlx5_0,mlx5_3,mlx5_4");
  EXPECT_EQ(RunDiscover({dump, "--rail-order", "a,a"}).rc, 2);
  // The list `railctl topology rails` prints is accepted as it is.
  EXPECT_EQ(RunDiscover({dump, "--rail-order", "[HCA-1]"}).rc, 0);
  EXPECT_EQ(RunDiscover({dump, "--rail-order", "[HCA-1, mlx5_0]"}).rc, 1);
  EXPECT_EQ(RunDiscover({dump, "--exclude", "(("}).rc, 2);
  EXPECT_EQ(RunDiscover({dump, "--cluster", "a b"}).rc, 2);
  EXPECT_EQ(RunDiscover({dump, "--frobnicate"}).rc, 2);
  EXPECT_EQ(RunDiscover({}).rc, 2);
  const CliResult help = RunDiscover({"--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_EQ(help.out.substr(0, 40), "usage: railctl topology discover DUMP [-");
}

}  // namespace
}  // namespace railguard::topo
