// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of discovery on fabrics with several leaves per rail in an SU (one-hop domains, issue
// 14): the B300-style layouts in etc/ and tests/data/topo/ simulated by `railctl topology
// simulate` (topo/fabric_sim.h) must come back as the source YAML, with one SU per SU and the
// right one-hop domains, when the leaf names say which SU each domain is part of.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "tests/topo/discover_test_util.h"
#include "topo/discover.h"
#include "topo/fabric_sim.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace topo_discover_domains_test {

using discover_testing::AllFindings;
using discover_testing::Keys;
using discover_testing::LoadFile;
using discover_testing::Parse;
using discover_testing::ReplaceAll;
using discover_testing::Simulate;

const std::string kB300Dev = RAILGUARD_SOURCE_DIR "/tests/data/topo/b300-2su.yaml";
const std::string kB300 = RAILGUARD_SOURCE_DIR "/etc/superpod-b300.yaml";

// The YAML discovery should give for the file: the same, with the GUIDs and the port counts
// (64 when the file gives none) the simulator gives its switches.
std::string SourceWithGuids(const std::string& path) {
  Topology t = LoadFile(path);
  AssignSwitchGuids(&t);
  for (ScalableUnit& su : t.sus)
    for (Leaf& leaf : su.leaves) leaf.sw.ports = leaf.sw.ports ? leaf.sw.ports : 64;
  for (Switch& sw : t.spines) sw.ports = sw.ports ? sw.ports : 64;
  return EmitTopologyYaml(t);
}

DiscoverOptions Options(const std::string& cluster) {
  DiscoverOptions o;
  o.cluster = cluster;
  o.node_type = "dgx-b300";
  return o;
}

Discovery DiscoverDump(const std::string& dump, const std::string& cluster = "b300dev") {
  return Discover(Parse(dump), Options(cluster));
}

std::vector<std::string> DomainNames(const Topology& t) {
  std::vector<std::string> v;
  for (const Domain& d : t.domains) v.push_back(d.name + " " + std::to_string(d.nodes.size()));
  return v;
}

TEST(DiscoverDomains, TheB300DevLayoutComesBackAsTwoSusOfTwoDomainsEach) {
  const Discovery d = DiscoverDump(Simulate(LoadFile(kB300Dev)));
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(EmitTopologyYaml(d.topology), SourceWithGuids(kB300Dev));
  EXPECT_EQ(DomainNames(d.topology),
            (std::vector<std::string>{"su1-d1 16", "su1-d2 16", "su2-d1 16", "su2-d2 16"}));
  EXPECT_EQ(DiscoverySummary(d),
            "discovered 2 scalable units (4 one-hop domains), 64 hosts, 8 rails, 32 leaves and 0 "
            "spines from 32 switches, 512 CAs (512 compute HCAs, 0 unnamed, 0 non-compute) and "
            "512 links; 0 findings");
  ASSERT_FALSE(d.switches.empty());
  EXPECT_EQ(d.switches[1].name, "su1-r0-b");
  EXPECT_EQ(d.switches[1].su, "su1");
}

TEST(DiscoverDomains, TheB300ReferenceLayoutComesBackWhole) {
  // Leaf names su1-leaf01..16 number the leaves, not the rails: only the SU run is constant
  // within a domain.
  const Discovery d = DiscoverDump(Simulate(LoadFile(kB300)), "superpod-b300");
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(EmitTopologyYaml(d.topology), SourceWithGuids(kB300));
  EXPECT_EQ(DomainNames(d.topology),
            (std::vector<std::string>{"su1-d1 32", "su1-d2 32", "su2-d1 32", "su2-d2 32"}));
}

TEST(DiscoverDomains, OneSuWhoseLeavesShareTheSuNumberIsOneSuOfTwoDomains) {
  // su2's leaves renamed su1-r<k>-c and -d: the SU run no longer differs between domains, so
  // all four domains are one SU.
  std::string dump = Simulate(LoadFile(kB300Dev));
  for (int r = 0; r < 8; ++r) {
    const std::string k = std::to_string(r);
    dump = ReplaceAll(dump, "su2-r" + k + "-a:", "su1-r" + k + "-c:");
    dump = ReplaceAll(dump, "su2-r" + k + "-b:", "su1-r" + k + "-d:");
  }
  const Discovery d = DiscoverDump(dump);
  EXPECT_EQ(AllFindings(d), "");
  ASSERT_EQ(d.topology.sus.size(), 1u);
  EXPECT_EQ(d.topology.sus[0].nodes_expr, "n[001-064]");
  EXPECT_EQ(d.topology.domains.size(), 4u);
  EXPECT_EQ(d.topology.sus[0].leaves[3].sw.name, "su1-r0-d");
  EXPECT_EQ(d.topology.sus[0].leaves[3].nodes_expr, "n[049-064]");
}

// b300-2su's dump with leaf su<s>-r<k>-<x> renamed by `rename(s, k, x)`.
template <typename Rename>
std::string Renamed(Rename rename) {
  std::string dump = Simulate(LoadFile(kB300Dev));
  for (int s = 1; s <= 2; ++s)
    for (int r = 0; r < 8; ++r)
      for (char x : {'a', 'b'})
        dump = ReplaceAll(dump, "su" + std::to_string(s) + "-r" + std::to_string(r) + "-" + x + ":",
                          rename(s, r, x) + ":");
  return dump;
}

TEST(DiscoverDomains, AnSuNumberAfterTheRailNumberGroupsDomainsAsDgxLeafNamesDo) {
  const Discovery d = DiscoverDump(Renamed([](int s, int r, char x) {
    return "DGX-LEAF-" + std::to_string(r + 1) + "-" + std::to_string(s) + "-" + x;
  }));
  EXPECT_EQ(AllFindings(d), "");
  ASSERT_EQ(d.topology.sus.size(), 2u);
  EXPECT_EQ(d.topology.domains.size(), 4u);
  EXPECT_EQ(d.topology.sus[1].leaves[1].sw.name, "DGX-LEAF-1-2-b");
  EXPECT_EQ(d.topology.sus[1].leaves[1].nodes_expr, "n[049-064]");
}

TEST(DiscoverDomains, AKeyNothingMarksAsTheSusKeepsItsDomainsApartWithAFinding) {
  // pod<s>-leaf<NN>: the pod could be an SU or a row of SUs.
  const Discovery d = DiscoverDump(Renamed([](int s, int r, char x) {
    const int n = 2 * r + (x == 'b') + 1;
    return "pod" + std::to_string(s) + "-leaf" + (n < 10 ? "0" : "") + std::to_string(n);
  }));
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"su-grouping / pod1-leaf01 0xfc6a1c0300000100 0",
                                               "su-grouping / pod2-leaf01 0xfc6a1c0300000200 0"}))
      << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 2u);
  EXPECT_EQ(d.findings[0].message,
            "leaf names ('pod1-leaf01', ...) give the one-hop domains n[001-016], n[017-032] one "
            "key (pod1), but nothing marks it as the SU's (no \"su\" before it, no rail number "
            "ahead of it), so it may be a pod's or a row's; kept as separate SUs; expected leaf "
            "names that carry the SU as su<N> or after the rail (...-LEAF-<rail>-<su>-...), or "
            "merge them in the YAML by hand (one SU whose leaves list their nodes)");
  EXPECT_EQ(d.topology.sus.size(), 4u);
}

TEST(DiscoverDomains, LeavesWithoutNamesLeaveEachDomainAnSuOfItsOwn) {
  // Nothing but names tells a 32-node SU split at its leaves from two 16-node SUs.
  Topology t = LoadFile(kB300Dev);
  for (ScalableUnit& su : t.sus)
    for (size_t k = 0; k < su.leaves.size(); ++k)
      su.leaves[k].sw.name = "leaf" + std::to_string(100 + k) + su.name.substr(2);
  const Discovery d = DiscoverDump(Simulate(t));
  EXPECT_EQ(AllFindings(d), "");
  EXPECT_EQ(d.topology.sus.size(), 4u);
  EXPECT_EQ(d.topology.domains.size(), 4u);
  EXPECT_EQ(d.topology.sus[1].nodes_expr, "n[017-032]");
}

TEST(DiscoverDomains, DomainsNamedIntoOneSuButShortOfALeafStayApartWithAFinding) {
  const Discovery d = DiscoverDump(Simulate(LoadFile(kB300Dev), {{"drop-leaf", "su1:3"}}));
  EXPECT_EQ(Keys(d), (std::vector<std::string>{
                         "su-grouping / su1-r0-a 0xfc6a1c0300000100 0",
                         "missing-leaf /mlx5_3   0", "missing-leaf /mlx5_3   0"}))
      << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 3u);
  EXPECT_EQ(d.findings[0].message,
            "leaf names (su1...) put the one-hop domains n[001-016], n[017-032] in one scalable "
            "unit, but the leaves of n[001-016] have no leaf for rail 3; kept as separate SUs; "
            "expected every domain of an SU with a leaf per rail and one node type (mend the "
            "cabling or the leaf names to decide it)");
  EXPECT_EQ(d.findings[1].message,
            "su1 has no leaf for rail 3 (mlx5_3): none of its 16 hosts (n[001-016]) has a mlx5_3 "
            "link; expected one leaf per rail in every SU");
  EXPECT_EQ(d.findings[2].message.substr(0, 28), "su2 has no leaf for rail 3 (");
  // su2 of the source is still one SU, now the third.
  ASSERT_EQ(d.topology.sus.size(), 3u);
  EXPECT_EQ(d.topology.sus[2].nodes_expr, "n[033-064]");
  EXPECT_EQ(d.topology.domains[2].name, "su3-d1");
}

TEST(DiscoverDomains, ADomainWhoseLeafNamesFollowNoPatternIsAnSuOfItsOwnWithAFinding) {
  std::string dump = Simulate(LoadFile(kB300Dev));
  for (int r = 0; r < 8; ++r)
    dump = ReplaceAll(dump, "su2-r" + std::to_string(r) + "-b:", "spare-" +
                                                                      std::string(1, 'a' + r) + ":");
  const Discovery d = DiscoverDump(dump);
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"su-grouping / spare-a 0xfc6a1c0301000200 0"}))
      << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].message,
            "the leaves of the one-hop domain n[049-064] have names ('spare-a') that do not "
            "follow the pattern of the other leaves ('su1-r0-a'), so they cannot say which "
            "scalable unit it is part of; kept as an SU of its own; expected leaf names that "
            "carry the SU in the same place");
  ASSERT_EQ(d.topology.sus.size(), 3u);
  EXPECT_EQ(d.topology.sus[1].nodes_expr, "n[033-048]");
  EXPECT_EQ(d.topology.sus[2].nodes_expr, "n[049-064]");
  EXPECT_EQ(d.topology.sus[2].leaves[0].nodes_expr, "");
}

TEST(DiscoverDomains, ACableToTheOtherDomainsLeafNamesBothDomains) {
  Topology t = LoadFile(kB300Dev);
  // n001's rail-0 HCA on su2's first rail-0 leaf: an su-mismatch naming the domains.
  const Discovery d = DiscoverDump(Simulate(t, {{"cross-su", "n001:0:su2"}}));
  ASSERT_EQ(Keys(d), (std::vector<std::string>{
                         "su-mismatch n001/mlx5_0 su2-r0-a 0xfc6a1c0300000200 17"}))
      << AllFindings(d);
  EXPECT_EQ(d.findings[0].message,
            "n001 mlx5_0 is cabled to su2-r0-a port 17, a leaf of su2-d1; expected su1-r0-a, the "
            "rail 0 (mlx5_0) leaf of its own SU su1-d1");
  EXPECT_EQ(EmitTopologyYaml(d.topology), SourceWithGuids(kB300Dev));
}

TEST(DiscoverDomains, TraitsInASplitSuGiveExactlyTheirFindingsNamingTheDomain) {
  const Discovery d = DiscoverDump(Simulate(LoadFile(kB300Dev), {{"host-name", "n020:localhost"},
                                                                 {"empty", "n040"},
                                                                 {"appliance", "stor1:su2:0,1"},
                                                                 {"drop", "n050:2"}}));
  EXPECT_EQ(Keys(d), (std::vector<std::string>{
                         "missing-link n050/mlx5_2 su2-r2-b 0xfc6a1c0301000202 2",
                         "host-name n020/ su1-r0-b 0xfc6a1c0301000100 4",
                         "non-compute stor1/mlx5_0 su2-r0-a 0xfc6a1c0300000200 17",
                         "non-compute stor1/mlx5_1 su2-r1-a 0xfc6a1c0300000201 17"}))
      << AllFindings(d);
  ASSERT_EQ(d.findings.size(), 4u);
  EXPECT_EQ(d.findings[1].message,
            "the 8 HCAs on port 4 of su1-d2's leaves (su1-r0-b to su1-r7-b) are described "
            "\"localhost mlx5_0\" and so on: a default host name, so the host is left out of the "
            "topology; probably n020 (su1-d2's hosts are named by port); expected the host's own "
            "name (set it, then restart rdma-ndd)");
  EXPECT_EQ(d.findings[2].message,
            "stor1 mlx5_0 on su2-r0-a port 17 is not a compute host: it has links on 2 of "
            "su2-d1's 8 rails, on ports beyond the 1 to 16 su2-d1's hosts use; left out of the "
            "topology");
  ASSERT_EQ(d.topology.sus.size(), 2u);
  EXPECT_EQ(d.topology.sus[0].nodes_expr, "n[001-019,021-032]");
  EXPECT_EQ(d.topology.sus[1].leaves[0].nodes_expr, "n[033-039,041-048]");
  EXPECT_EQ(d.topology.sus[1].leaves[5].nodes_expr, "n[049-064]");  // n050 lacks rail 2 only
  EXPECT_EQ(d.topology.domains.size(), 4u);
}

// Runs `railctl topology <args>` in-process; returns its exit code, stdout in `*out`.
int RunTopology(int (*cmd)(int, char**), std::vector<std::string> args, std::string* out) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = cmd(static_cast<int>(argv.size()), argv.data());
  *out = ::testing::internal::GetCapturedStdout();
  ::testing::internal::GetCapturedStderr();
  return rc;
}

TEST(DiscoverDomainsCli, SimulateThenDiscoverGivesBackWhatShowSeesInTheSource) {
  const std::string base = ::testing::TempDir() + "/domains_" + std::to_string(getpid());
  for (const std::string& src : {kB300Dev, kB300}) {
    std::string out;
    ASSERT_EQ(RunTopology(cli::TopologySimulate, {"simulate", src, "-o", base + ".topo"}, &out), 0);
    ASSERT_EQ(RunTopology(cli::TopologyDiscover,
                          {"discover", base + ".topo", "--cluster",
                           src == kB300 ? "superpod-b300" : "b300dev", "--node-type", "dgx-b300",
                           "-o", base + ".yaml"},
                          &out),
              0)
        << src;
    std::string shown;
    std::string want;
    ASSERT_EQ(RunTopology(cli::TopologyShow, {"show", base + ".yaml"}, &shown), 0);
    ASSERT_EQ(RunTopology(cli::TopologyShow, {"show", src}, &want), 0);
    EXPECT_EQ(shown, want) << src;
    EXPECT_NE(shown.find("4 one-hop domains"), std::string::npos) << shown;
  }
  // --json lists the one-hop domains with their SU and leaves.
  std::string out;
  ASSERT_EQ(RunTopology(cli::TopologyDiscover, {"discover", base + ".topo", "--json"}, &out), 0);
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.contains("domains")) << out.substr(0, 400);
  ASSERT_EQ(j["domains"].size(), 4u);
  EXPECT_EQ(j["domains"][3]["name"], "su2-d2");
  EXPECT_EQ(j["domains"][3]["su"], "su2");
  EXPECT_EQ(j["domains"][3]["nodes"], "dgx[097-128]");
  EXPECT_EQ(j["domains"][3]["leaves"][0], "su2-leaf02");
  EXPECT_EQ(j["sus"].size(), 2u);
  std::remove((base + ".topo").c_str());
  std::remove((base + ".yaml").c_str());
}

}  // namespace topo_discover_domains_test
}  // namespace railguard::topo
