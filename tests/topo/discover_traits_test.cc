// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of discovery on fabrics with the traits of real clusters (issue 14): NIC names that
// differ between SUs, default and repeated host names, empty slots and appliances on compute
// leaves, in 18-node SUs. Each fabric comes from `railctl topology simulate` (topo/fabric_sim.h)
// and must come back as the right YAML with exactly the right findings.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "tests/topo/discover_test_util.h"
#include "topo/discover.h"
#include "topo/fabric_sim.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_discover_traits_test {

using discover_testing::AllFindings;
using discover_testing::Keys;
using discover_testing::Load;
using discover_testing::Parse;
using discover_testing::ReplaceAll;
using discover_testing::Simulate;

using Faults = std::vector<std::pair<std::string, std::string>>;

// A DGX H100-like fabric: 3 SUs of 18 nodes, 4 compute rails, 2 spines, and two OS images that
// name the rail HCAs differently (su2 says HCA-1.., su1 and su3 say mlx5_0..). With `named`,
// the leaves are named after their rail and SU ("DGX-LEAF-<rail from 1>-<su>").
std::string H100Yaml(bool named = false,
                     const std::string& su2_nics = "[\"HCA-1\", \"HCA-2\", \"HCA-5\", \"HCA-6\"]") {
  std::string y = "cluster: h100\nrails:\n";
  for (int r = 0; r < 4; ++r)
    y += "  - {index: " + std::to_string(r) + ", link: {rate_gbps: 400, width: 4X, speed: NDR}}\n";
  y += "node_types:\n  - {name: gpu-node, gpus: 8, nics: [mlx5_0, mlx5_1, mlx5_4, mlx5_5]}\n";
  y += "  - {name: gpu-node-2, gpus: 8, nics: " + su2_nics + "}\nscalable_units:\n";
  const char* const nodes[] = {"dgx[001-018]", "dgx[019-036]", "dgx[037-054]"};
  for (int s = 1; s <= 3; ++s) {
    y += "  - name: su" + std::to_string(s) + "\n    nodes: \"" + nodes[s - 1] +
         "\"\n    node_type: " + (s == 2 ? "gpu-node-2" : "gpu-node") + "\n    leaves:\n";
    for (int r = 0; r < 4; ++r) {
      y += "      - {rail: " + std::to_string(r) +
           (named ? ", name: DGX-LEAF-" + std::to_string(r + 1) + "-" + std::to_string(s) : "") +
           ", ports: 64}\n";
    }
  }
  return y + "spines:\n  - {name: spine1, ports: 64}\n  - {name: spine2, ports: 64}\n";
}

const std::string kH100 = H100Yaml();

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

// A simulated dump whose leaf names carry no rail number ("su2-raila"), so that only the NIC
// names can order the rails.
std::string WithoutRailNumbers(std::string dump) {
  for (int r = 0; r < 4; ++r)
    dump = ReplaceAll(dump, "-rail" + std::to_string(r) + ":",
                      std::string("-rail") + static_cast<char>('a' + r) + ":");
  return dump;
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
  // su2 alone names its NICs HCA-*; without its HCA-5 leaf, and with leaf names that carry no
  // rail number ("su2-raila"), nothing tells which rail HCA-6 is.
  const std::string dump = WithoutRailNumbers(Simulate(Load(kH100), {{"drop-leaf", "su2:2"}}));
  DiscoverOptions o;
  o.cluster = "h100";
  const Discovery d = Discover(Parse(dump), o);
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

TEST(DiscoverTraits, LeafNamesThatNumberTheRailsAlignNicsThatNaturalOrderWouldNot) {
  // su2's hosts serve rail 0 with HCA-2: natural order would put HCA-1 first.
  const std::string yaml = H100Yaml(true, "[\"HCA-2\", \"HCA-1\", \"HCA-5\", \"HCA-6\"]");
  const Discovery d = DiscoverH100({}, yaml);
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(EmitTopologyYaml(d.topology), WithGuids(yaml));
}

TEST(DiscoverTraits, LeafNamesDecideTheRailsOfAnSuWithAMissingLeaf) {
  const std::string yaml = H100Yaml(true);
  const Discovery d = DiscoverH100({{"drop-leaf", "su2:2"}}, yaml);
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"missing-leaf /   0"})) << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].message,
            "su2 has no leaf for rail 2: none of its 18 hosts (dgx[019-036]) has a link for it; "
            "expected one leaf per rail in every SU");
  ASSERT_EQ(d.topology.node_types.size(), 2u);
  EXPECT_EQ(d.topology.node_types[1].nics,
            (std::vector<std::string>{"HCA-1", "HCA-2", "unknown-rail2", "HCA-6"}));
}

TEST(DiscoverTraits, NamingsThatShareSomeNicNamesAreStillTwoNodeTypesOfFourRails) {
  // Both images say mlx5_0 and mlx5_1; rails 2 and 3 are mlx5_2, mlx5_3 on one, mlx5_4, mlx5_5
  // on the other: 4 rails, never the 6 names.
  std::string yaml = H100Yaml(false, "[mlx5_0, mlx5_1, mlx5_4, mlx5_5]");
  const std::string first = "nics: [mlx5_0, mlx5_1, mlx5_4, mlx5_5]}";
  yaml.replace(yaml.find(first), first.size(), "nics: [mlx5_0, mlx5_1, mlx5_2, mlx5_3]}");
  for (bool names : {true, false}) {
    const std::string dump =
        names ? Simulate(Load(yaml)) : WithoutRailNumbers(Simulate(Load(yaml)));
    DiscoverOptions o;
    o.cluster = "h100";
    const Discovery d = Discover(Parse(dump), o);
    EXPECT_EQ(AllFindings(d), "") << names;
    EXPECT_EQ(d.topology.rails.size(), 4u) << names;
    ASSERT_EQ(d.topology.node_types.size(), 2u) << names;
    EXPECT_EQ(d.topology.node_types[0].nics,
              (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
    EXPECT_EQ(d.topology.node_types[1].nics,
              (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_4", "mlx5_5"}));
    if (names) {
      EXPECT_EQ(EmitTopologyYaml(d.topology), WithGuids(yaml));
    }
  }
}

TEST(DiscoverTraits, AHostThatNamesItsNicsLikeAnotherSusHostsIsANicNamingFinding) {
  // dgx005 was reimaged with su2's OS image: its HCAs say HCA-1.. in an SU of mlx5_0..
  std::string dump = Simulate(Load(kH100));
  const char* const ours[] = {"mlx5_0", "mlx5_1", "mlx5_4", "mlx5_5"};
  const char* const theirs[] = {"HCA-1", "HCA-2", "HCA-5", "HCA-6"};
  for (int r = 0; r < 4; ++r)
    dump = ReplaceAll(dump, std::string("\"dgx005 ") + ours[r] + "\"",
                      std::string("\"dgx005 ") + theirs[r] + "\"");
  DiscoverOptions o;
  o.cluster = "h100";
  const Discovery d = Discover(Parse(dump), o);
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"nic-naming dgx005/HCA-1 su1-rail0 0xfc6a1c0300000100 5"}))
      << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].message,
            "dgx005 names its rail HCAs like the hosts of su2 (HCA-1, HCA-2, HCA-5, HCA-6), not "
            "like the other hosts of su1 (mlx5_0, mlx5_1, mlx5_4, mlx5_5); the one node type of "
            "su1 cannot describe it; expected the HCA names of its SU's other hosts");
  EXPECT_EQ(EmitTopologyYaml(d.topology), WithGuids(kH100));
}

TEST(DiscoverTraits, AnEmptySlotIsNoHostAndNoFinding) {
  const Discovery d = DiscoverH100({{"empty", "dgx005"}});
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(EmitTopologyYaml(d.topology),
            WithGuids(H100With("dgx[001-018]", "dgx[001-004,006-018]")));
}

TEST(DiscoverTraits, ADefaultHostNameIsAFindingForItsSlotWithTheNameTheSlotProbablyHas) {
  const Discovery d = DiscoverH100({{"host-name", "dgx023:localhost"}});
  EXPECT_EQ(Keys(d),
            (std::vector<std::string>{"host-name dgx023/ su2-rail0 0xfc6a1c0300000200 5"}));
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

TEST(DiscoverTraits, StorageAndManagementHostsWithEveryRailAreLeftOutByTheirDescription) {
  // They have all 4 rails, so only their names tell them from compute hosts.
  const Discovery d =
      DiscoverH100({{"appliance", "storage01:su1:0,1,2,3"}, {"appliance", "r-mgmt2:su3:0,1,2,3"}});
  EXPECT_EQ(d.findings.size(), 8u) << AllFindings(d);
  for (const Finding& f : d.findings) EXPECT_EQ(f.kind, "non-compute");
  ASSERT_EQ(d.findings.size(), 8u);
  EXPECT_EQ(d.findings[0].message,
            "r-mgmt2 mlx5_0 on su3-rail0 port 19 is a management host; left out of the topology");
  EXPECT_EQ(d.findings[4].message,
            "storage01 mlx5_0 on su1-rail0 port 19 is a storage host; left out of the topology");
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

// Runs `railctl topology <args>` in-process; returns its exit code, stdout in `*out`.
int RunRailctl(std::vector<std::string> args, std::string* out, std::string* err) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = args[0] == "simulate"
                     ? cli::TopologySimulate(static_cast<int>(argv.size()), argv.data())
                     : cli::TopologyDiscover(static_cast<int>(argv.size()), argv.data());
  *out = ::testing::internal::GetCapturedStdout();
  *err = ::testing::internal::GetCapturedStderr();
  return rc;
}

TEST(DiscoverTraitsCli, SimulateWritesTheTraitsAndDiscoverTakesOneRailOrderPerNaming) {
  const std::string base = ::testing::TempDir() + "/traits_" + std::to_string(getpid());
  { std::ofstream(base + ".yaml") << kH100; }
  std::string out;
  std::string err;
  ASSERT_EQ(RunRailctl({"simulate", base + ".yaml", "-o", base + ".topo", "--drop-leaf", "su2:2",
                        "--host-name", "dgx023:localhost", "--empty", "dgx018", "--appliance",
                        "appl01:su2:0,1"},
                       &out, &err),
            0)
      << err;
  const int rc =
      RunRailctl({"discover", base + ".topo", "--cluster", "h100", "--rail-order",
                  "mlx5_0,mlx5_1,mlx5_4,mlx5_5", "--rail-order", "[HCA-1, HCA-2, HCA-5, HCA-6]"},
                 &out, &err);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("\nhost-name: the 3 HCAs on port 5 of su2's leaves (su2-rail0 to su2-rail3) "
                     "are described \"localhost HCA-1\" and so on"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("discovered 3 scalable units, 52 hosts, 4 rails, 11 leaves and 2 spines"),
            std::string::npos)
      << err;
  std::string want = H100With("dgx[001-018]", "dgx[001-017]");
  want.replace(want.find("dgx[019-036]"), 12, "dgx[019-022,024-036]");
  Topology t = Load(want);
  t.sus[1].leaves[2].sw = Switch();
  AssignSwitchGuids(&t);
  t.sus[1].leaves[2].sw = Switch();
  EXPECT_EQ(out, EmitTopologyYaml(t));
  // The same list twice is a usage error.
  EXPECT_EQ(RunRailctl({"discover", base + ".topo", "--rail-order", "HCA-1", "--rail-order",
                        "HCA-1,HCA-2"},
                       &out, &err),
            2);
  std::remove((base + ".yaml").c_str());
  std::remove((base + ".topo").c_str());
}

}  // namespace topo_discover_traits_test
}  // namespace railguard::topo
