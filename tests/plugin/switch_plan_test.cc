// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the switch tree and node ranking (at start and at reconfigure) that topology/rail
// gives Slurm, and for the NCCL_IB_HCA value of the SPANK plugin.
#include "plugin/core/switch_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plugin/core/nccl.h"
#include "topo/hostlist.h"
#include "tests/plugin/dev_layout.h"
#include "topo/topology_yaml.h"

namespace railguard::plugin {
namespace plugin_switch_plan_test {

topo::Topology Dev4Su() { return Dev4SuTopology(); }

std::vector<std::string> Hosts(const char* expr) {
  std::vector<std::string> out;
  std::string err;
  EXPECT_TRUE(ExpandHostlist(expr, &out, &err)) << err;
  return out;
}

// The names of `plan`'s nodes under switch `sw`, as a hostlist.
std::string NodesOf(const SwitchPlan& plan, const std::vector<std::string>& names, int sw) {
  std::vector<std::string> nodes;
  for (int i : plan.switches.at(sw).nodes) nodes.push_back(names.at(i));
  return CompressHostlist(nodes);
}

TEST(SwitchPlan, EachSuIsALeafUnderOneTopSwitch) {
  const std::vector<std::string> nodes = Hosts("n[001-032]");
  SwitchPlan plan = PlanSwitches(Dev4Su(), nodes, "dev-4su.yaml");
  ASSERT_EQ(plan.switches.size(), 5u);
  EXPECT_EQ(plan.levels, 1);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(plan.switches[s].name, "su" + std::to_string(s + 1));
    EXPECT_EQ(plan.switches[s].level, 0);
    EXPECT_EQ(plan.switches[s].parent, 4);
    EXPECT_EQ(plan.switches[s].link_speed, 3200u);  // 8 rails x 400 Gb/s
    EXPECT_TRUE(plan.switches[s].children.empty());
  }
  EXPECT_EQ(NodesOf(plan, nodes, 0), "n[001-008]");
  EXPECT_EQ(NodesOf(plan, nodes, 3), "n[025-032]");
  const PlannedSwitch& top = plan.switches[4];
  EXPECT_EQ(top.name, "raildev-spine");
  EXPECT_EQ(top.level, 1);
  EXPECT_EQ(top.parent, 4);
  EXPECT_EQ(top.children, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(top.descendants, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(top.children_expr, "su[1-4]");
  EXPECT_EQ(plan.switches[0].dist, (std::vector<uint32_t>{0, 2, 2, 2, 1}));
  EXPECT_EQ(top.dist, (std::vector<uint32_t>{1, 1, 1, 1, 0}));
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_FALSE(plan.notes[0].warning);
  EXPECT_EQ(plan.notes[0].text,
            "cluster raildev: 4 leaf switch(es) su[1-4] under raildev-spine, 32 nodes ranked "
            "scalable unit by scalable unit");
}

TEST(SwitchPlan, NodesAreRankedSuBySuWhateverOrderSlurmListsThem) {
  // slurm.conf order: SU 4 first, then the others backwards.
  std::vector<std::string> nodes = Hosts("n[025-032]");
  std::vector<std::string> rest = Hosts("n[001-024]");
  nodes.insert(nodes.end(), rest.rbegin(), rest.rend());
  SwitchPlan plan = PlanSwitches(Dev4Su(), nodes, "dev-4su.yaml");
  ASSERT_EQ(plan.rank.size(), nodes.size());
  std::vector<std::string> by_rank(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) by_rank.at(plan.rank[i]) = nodes[i];
  EXPECT_EQ(CompressHostlist(by_rank), "n[001-032]");
}

TEST(SwitchPlan, NodesOnOneSideOnlyAreNamedAndUnknownNodesStayUsable) {
  // slurm.conf lacks SU 4 and n009, and has two nodes the rail topology does not list.
  std::vector<std::string> nodes = Hosts("n[001-008,010-024],login[2,1]");
  SwitchPlan plan = PlanSwitches(Dev4Su(), nodes, "dev-4su.yaml");
  ASSERT_EQ(plan.switches.size(), 5u);  // su1..su3, the unmapped leaf, the top
  EXPECT_EQ(plan.switches[1].name, "su2");
  EXPECT_EQ(NodesOf(plan, nodes, 1), "n[010-016]");
  EXPECT_EQ(plan.switches[3].name, "raildev-unmapped");
  EXPECT_EQ(plan.switches[3].level, 0);
  EXPECT_TRUE(plan.switches[3].unmapped);  // not a one-hop domain: placement skips it
  EXPECT_FALSE(plan.switches[0].unmapped);
  EXPECT_FALSE(plan.switches[4].unmapped);
  EXPECT_EQ(NodesOf(plan, nodes, 3), "login[1-2]");
  EXPECT_EQ(plan.switches[4].children_expr, "su[1-3],raildev-unmapped");
  // Unmapped nodes rank after every SU node, in sorted order.
  ASSERT_EQ(plan.rank.size(), nodes.size());
  EXPECT_EQ(plan.rank[nodes.size() - 1], 23u);  // login1
  EXPECT_EQ(plan.rank[nodes.size() - 2], 24u);  // login2
  ASSERT_EQ(plan.notes.size(), 4u);
  EXPECT_TRUE(plan.notes[0].warning);
  EXPECT_EQ(plan.notes[0].text,
            "scalable unit su4 has none of its nodes in slurm.conf; it gets no switch");
  EXPECT_EQ(plan.notes[1].text,
            "9 node(s) of dev-4su.yaml are not in slurm.conf: n[009,025-032]; left out of "
            "the topology");
  EXPECT_EQ(plan.notes[2].text,
            "2 node(s) of slurm.conf are not in dev-4su.yaml: login[1-2]; they go under "
            "switch raildev-unmapped, usable but outside every scalable unit");
  EXPECT_FALSE(plan.notes[3].warning);
}

TEST(SwitchPlan, GeneratedNamesDoNotCollideWithTheTopologysSwitches) {
  topo::Topology t;
  Diags diags;
  ASSERT_TRUE(topo::LoadTopologyString(
      "cluster: c\n"
      "rails:\n"
      "  - {index: 0, link: {rate_gbps: 200, width: 4X, speed: HDR}}\n"
      "node_types:\n"
      "  - {name: x, gpus: 4, nics: [mlx5_0]}\n"
      "scalable_units:\n"
      "  - {name: c-spine, nodes: 'a[1-2]', node_type: x, leaves: [{rail: 0}]}\n"
      "  - {name: c-unmapped, nodes: 'b[1-2]', node_type: x, leaves: [{rail: 0}]}\n",
      "t.yaml", &t, &diags))
      << FormatDiags(diags);
  SwitchPlan plan = PlanSwitches(t, {"a1", "a2", "b1", "b2", "z1"}, "t.yaml");
  ASSERT_EQ(plan.switches.size(), 4u);
  EXPECT_EQ(plan.switches[2].name, "c-unmapped-2");
  EXPECT_EQ(plan.switches[3].name, "c-spine-2");
  EXPECT_EQ(plan.switches[0].link_speed, 200u);
}

TEST(SwitchPlan, NoNodesMeansNoSwitches) {
  SwitchPlan plan = PlanSwitches(Dev4Su(), {}, "dev-4su.yaml");
  EXPECT_TRUE(plan.switches.empty());
  EXPECT_EQ(plan.levels, 0);
}

// The node names in the order `rank` puts them, space-separated.
std::string ByRank(const std::vector<std::string>& nodes, const std::vector<uint32_t>& rank) {
  std::vector<std::string> by_rank(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) by_rank.at(rank.at(i)) = nodes[i];
  std::string out;
  for (const std::string& n : by_rank) out += (out.empty() ? "" : " ") + n;
  return out;
}

TEST(RankNodes, TheFirstRankingIsTheSuOrder) {
  const std::vector<std::string> nodes = {"n3", "n1", "n2"};
  const std::vector<uint32_t> fresh = {2, 0, 1};
  const Ranking r = RankNodes(nodes, fresh, {{}, 5}, "t.yaml");  // nothing ranked before
  EXPECT_EQ(r.rank, fresh);
  EXPECT_FALSE(r.kept);
  EXPECT_TRUE(r.notes.empty());
}

TEST(RankNodes, WithNoMultiNodeJobTheNewSuOrderApplies) {
  const std::vector<std::string> nodes = {"n1", "n2", "n3", "n4"};
  const std::vector<uint32_t> fresh = {2, 3, 0, 1};  // su of n3,n4 now first
  const Ranking r = RankNodes(nodes, fresh, {{"n1", "n2", "n3", "n4"}, 0}, "t.yaml");
  EXPECT_EQ(r.rank, fresh);
  EXPECT_FALSE(r.kept);
  EXPECT_TRUE(r.notes.empty());
}

TEST(RankNodes, WhileAMultiNodeJobRunsEveryNodeKeepsItsPlaceAndNewNodesComeAfter) {
  // Before: n1 n2 n3 n4 (n5 did not exist). The new topology ranks n5 n3 n4 n1 n2; slurm.conf
  // lists them in yet another order.
  const std::vector<std::string> nodes = {"n4", "n5", "n1", "n3", "n2"};
  const std::vector<uint32_t> fresh = {2, 0, 3, 1, 4};
  const Ranking r = RankNodes(nodes, fresh, {{"n1", "n2", "n3", "n4"}, 2}, "t.yaml");
  EXPECT_EQ(ByRank(nodes, r.rank), "n1 n2 n3 n4 n5");
  EXPECT_TRUE(r.kept);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_FALSE(r.notes[0].warning);
  EXPECT_EQ(r.notes[0].text,
            "2 job(s) run on more than one node: the node order stays as it was (1 new node(s) "
            "after the others); the scalable-unit order of t.yaml applies at the first "
            "reconfigure while none does");
}

TEST(RankNodes, NewNodesFollowInSuOrderAndRemovedNodesLeaveNoGap) {
  // n2 left slurm.conf; m1 and m2 are new, the topology ranks m2 before m1.
  const std::vector<std::string> nodes = {"m1", "n3", "m2", "n1"};
  const std::vector<uint32_t> fresh = {3, 0, 2, 1};
  const Ranking r = RankNodes(nodes, fresh, {{"n1", "n2", "n3"}, 1}, "t.yaml");
  EXPECT_EQ(ByRank(nodes, r.rank), "n1 n3 m2 m1");
  EXPECT_TRUE(r.kept);
}

TEST(RankNodes, AnUnchangedOrderIsNotReportedAsKept) {
  // Jobs run, but the topology ranks the nodes as before (new node last): nothing to defer.
  const std::vector<std::string> nodes = {"n2", "n1", "n3"};
  const std::vector<uint32_t> fresh = {1, 0, 2};
  const Ranking r = RankNodes(nodes, fresh, {{"n1", "n2"}, 3}, "t.yaml");
  EXPECT_EQ(r.rank, fresh);
  EXPECT_FALSE(r.kept);
  EXPECT_TRUE(r.notes.empty());
}

TEST(RankNodes, KeepsTheSwappedSusOfARunningClusterInPlace) {
  // The daemon test's case on etc/dev-4su.yaml: the table was su4's nodes first; the
  // topology as shipped ranks n001 first again; jobs run: the old table order stays.
  std::vector<std::string> previous = Hosts("n[025-032]");
  for (const std::string& n : Hosts("n[009-024],n[001-008]")) previous.push_back(n);
  const std::vector<std::string> nodes = Hosts("n[001-032]");  // slurm.conf order
  const SwitchPlan plan = PlanSwitches(Dev4Su(), nodes, "dev-4su.yaml");
  const Ranking kept = RankNodes(nodes, plan.rank, {previous, 1}, "dev-4su.yaml");
  std::vector<std::string> by_rank(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) by_rank.at(kept.rank[i]) = nodes[i];
  EXPECT_EQ(by_rank, previous);
  const Ranking idle = RankNodes(nodes, plan.rank, {previous, 0}, "dev-4su.yaml");
  EXPECT_EQ(idle.rank, plan.rank);
}

TEST(RankNodes, AtStartTheSavedOrderIsKeptBeforeTheJobsAreKnown) {
  const std::vector<std::string> nodes = {"n1", "n2", "n3"};
  const std::vector<uint32_t> fresh = {1, 2, 0};
  RankingFacts facts{{"n1", "n2", "n3"}, 0};
  facts.jobs_known = false;  // slurmctld's start: no job recovered yet, so 0 says nothing
  const Ranking r = RankNodes(nodes, fresh, facts, "t.yaml");
  EXPECT_EQ(ByRank(nodes, r.rank), "n1 n2 n3");
  EXPECT_TRUE(r.kept);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0].text,
            "slurmctld ranks nodes before it recovers its jobs: the node order it saved "
            "(railguard_node_order) stays; the scalable-unit order of t.yaml applies at the "
            "first reconfigure while no job runs on more than one node");
}

TEST(NodeOrderFile, WhatIsWrittenReadsBackInOrder) {
  const std::vector<std::string> order = {"n025", "n001", "login1"};
  const std::string text = FormatNodeOrder(order);
  EXPECT_EQ(text.substr(0, 2), "# ");
  std::vector<std::string> back;
  std::string error;
  ASSERT_TRUE(ParseNodeOrder(text, "s/railguard_node_order", &back, &error)) << error;
  EXPECT_EQ(back, order);
  ASSERT_TRUE(ParseNodeOrder("", "f", &back, &error));
  EXPECT_TRUE(back.empty());
  ASSERT_TRUE(ParseNodeOrder("n1\n\nn2", "f", &back, &error));  // no final newline
  EXPECT_EQ(back, (std::vector<std::string>{"n1", "n2"}));
}

TEST(NodeOrderFile, BadLinesAreNamedWithFileAndLine) {
  std::vector<std::string> back;
  std::string error;
  EXPECT_FALSE(ParseNodeOrder("# c\nn1\nn2 n3\n", "s/o", &back, &error));
  EXPECT_EQ(error, "s/o:3: 'n2 n3' has blanks; expected one node name per line");
  EXPECT_TRUE(back.empty());
  EXPECT_FALSE(ParseNodeOrder("n1\nn2\nn1\n", "s/o", &back, &error));
  EXPECT_EQ(error, "s/o:3: node n1 is listed twice; expected one node name per line");
  EXPECT_FALSE(ParseNodeOrder("n1\r\n", "s/o", &back, &error));
  EXPECT_EQ(error, "s/o:1: 'n1\r' has blanks; expected one node name per line");
}

TEST(NcclIbHca, ListsTheNodesRailNicsInRailOrderForExactMatch) {
  const topo::Topology t = Dev4Su();
  EXPECT_EQ(NcclIbHca(t, "n017").value_or("none"),
            "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11");
  EXPECT_FALSE(NcclIbHca(t, "login1").has_value());
}

}  // namespace plugin_switch_plan_test
}  // namespace railguard::plugin
