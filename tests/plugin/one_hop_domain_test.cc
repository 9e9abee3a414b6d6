// SPDX-License-Identifier: GPL-2.0-or-later
// Tests that placement, the hetjob choice and topology/rail's switch tree work on one-hop
// domains when an SU has several leaves per rail (tests/data/topo/b300-2su.yaml: 2 SUs of 32
// nodes, each two domains of 16).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "base/diag.h"
#include "plugin/core/hetjob.h"
#include "plugin/core/placement.h"
#include "plugin/core/switch_plan.h"
#include "topo/hostlist.h"
#include "topo/topology_yaml.h"

namespace railguard::plugin {
namespace plugin_one_hop_domain_test {

topo::Topology B300Dev() {
  topo::Topology t;
  Diags diags;
  EXPECT_TRUE(topo::LoadTopologyFile(RAILGUARD_SOURCE_DIR "/tests/data/topo/b300-2su.yaml", &t,
                                     &diags))
      << FormatDiags(diags);
  return t;
}

std::vector<std::string> Hosts(const char* expr) {
  std::vector<std::string> out;
  std::string err;
  EXPECT_TRUE(ExpandHostlist(expr, &out, &err)) << err;
  return out;
}

TEST(OneHopPlacement, FabricSizesAreThoseOfTheDomains) {
  const Fabric f = FabricOf(B300Dev());
  EXPECT_EQ(f.su_sizes, (std::vector<uint32_t>{16, 16, 16, 16}));
  EXPECT_TRUE(f.split);
  EXPECT_EQ(f.gpus_per_node, 8u);
}

TEST(OneHopPlacement, ANodeListCountsPerDomain) {
  const std::vector<std::string> names = Hosts("n[001-004],n[017-032]");
  std::vector<const char*> ptrs;
  for (const std::string& n : names) ptrs.push_back(n.c_str());
  uint32_t healthy = 0;
  const Fabric f = FabricOfNodes(B300Dev(), ptrs.data(), nullptr, ptrs.size(), "", &healthy);
  EXPECT_EQ(f.su_sizes, (std::vector<uint32_t>{4, 16, 0, 0}));
}

TEST(OneHopPlacement, AJobOfOneDomainsSizeIsBoundToOneLeafSwitch) {
  JobFacts job;
  job.min_nodes = 16;
  PlacementConfig config;
  config.default_mode = PlacementMode::kStrict;
  const Decision d = DecidePlacement(job, config, FabricOf(B300Dev()));
  ASSERT_TRUE(d.set_switches) << d.message;
  EXPECT_EQ(d.req_switch, 1u);
  EXPECT_NE(d.message.find("16 nodes in 1 one-hop domain;"), std::string::npos) << d.message;
  job.min_nodes = 17;  // one more than a domain: two of them, though one SU holds it
  EXPECT_EQ(DecidePlacement(job, config, FabricOf(B300Dev())).req_switch, 2u);
}

TEST(OneHopPlacement, TogetherHetjobsGoToTheBestFittingDomain) {
  const topo::Topology t = B300Dev();
  std::vector<ScopeNode> scope;
  // Idle: 10 nodes of su1-d1, 12 of su1-d2, all 16 of su2-d1, none of su2-d2.
  for (const std::string& n : Hosts("n[001-064]")) {
    ScopeNode s;
    s.name = n;
    s.healthy = true;
    const int i = std::stoi(n.substr(1));
    s.idle = (i <= 10) || (i >= 17 && i <= 28) || (i >= 33 && i <= 48);
    scope.push_back(s);
  }
  // 12 nodes: su1 has 22 idle, but split 10 + 12; su1-d2 holds it most tightly.
  const TogetherChoice c = ChooseTogetherSu(t, scope, 12);
  ASSERT_EQ(c.domain, 1);
  EXPECT_EQ(t.domains[1].name, "su1-d2");
  EXPECT_EQ(c.su, 0);
  EXPECT_EQ(c.idle_healthy, 12u);
  EXPECT_EQ(c.outside.size(), 48u);
  EXPECT_EQ(c.outside[16], "n033");
}

TEST(OneHopSwitchPlan, EachDomainIsALeafUnderItsSuUnderTheTop) {
  const std::vector<std::string> nodes = Hosts("n[001-064]");
  const SwitchPlan plan = PlanSwitches(B300Dev(), nodes, "b300-2su.yaml");
  ASSERT_EQ(plan.switches.size(), 7u);
  EXPECT_EQ(plan.levels, 2);
  const std::vector<std::string> names = {"su1-d1", "su1-d2", "su1",   "su2-d1",
                                          "su2-d2", "su2",    "b300dev-spine"};
  const std::vector<int> levels = {0, 0, 1, 0, 0, 1, 2};
  const std::vector<int> parents = {2, 2, 6, 5, 5, 6, 6};
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(plan.switches[i].name, names[i]);
    EXPECT_EQ(plan.switches[i].level, levels[i]) << names[i];
    EXPECT_EQ(plan.switches[i].parent, parents[i]) << names[i];
  }
  std::vector<std::string> under;
  for (int i : plan.switches[1].nodes) under.push_back(nodes[static_cast<size_t>(i)]);
  EXPECT_EQ(CompressHostlist(under), "n[017-032]");
  EXPECT_EQ(plan.switches[2].children, (std::vector<int>{0, 1}));
  EXPECT_EQ(plan.switches[2].children_expr, "su1-d[1-2]");
  EXPECT_EQ(plan.switches[6].children, (std::vector<int>{2, 5}));
  EXPECT_EQ(plan.switches[6].descendants, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(plan.switches[0].dist, (std::vector<uint32_t>{0, 2, 1, 4, 4, 3, 2}));
  EXPECT_EQ(plan.switches[6].dist, (std::vector<uint32_t>{2, 2, 1, 2, 2, 1, 0}));
  EXPECT_EQ(plan.rank[16], 16u);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_EQ(plan.notes[0].text,
            "cluster b300dev: 4 leaf switch(es) (one per one-hop domain) in su[1-2] under "
            "b300dev-spine, 64 nodes ranked scalable unit by scalable unit");
}

}  // namespace plugin_one_hop_domain_test
}  // namespace railguard::plugin
