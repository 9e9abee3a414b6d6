// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for building the report (report/report.h): node states, capacity, jobs on degraded
// paths, history windows and repeat offenders, and input problems that do not stop it.
#include "report/report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_report_test {

using testing::Build;
using testing::DevTopology;
using testing::Fault;
using testing::HealthySnapshot;
using testing::kT;
using testing::RowOf;

wire::HealthEvent Ev(double age, const std::string& node, wire::EventKind kind, int rail) {
  wire::HealthEvent e;
  e.time = kT - age;
  e.node = node;
  e.kind = kind;
  e.rail = rail;
  return e;
}

TEST(FleetReport, CountsAHealthyIdleClusterAsFreeEverywhere) {
  const topo::Topology t = DevTopology();
  const Report r = Build(HealthySnapshot(t), t);
  EXPECT_EQ(r.cluster, "raildev");
  EXPECT_EQ(r.nodes.size(), 32u);
  EXPECT_EQ(r.healthy, 32);
  EXPECT_EQ(r.free, 32);
  EXPECT_EQ(r.largest_job, 8);
  ASSERT_GE(r.largest_job_su, 0);
  ASSERT_LT(static_cast<size_t>(r.largest_job_su), r.sus.size());
  EXPECT_EQ(r.sus[static_cast<size_t>(r.largest_job_su)].name, "su1");
  EXPECT_TRUE(r.feature_in_use);
  for (const SuRow& su : r.sus)
    for (const Cell& c : su.cells) EXPECT_EQ(c.ok, 8);
  ASSERT_EQ(r.sus.size(), 4u);
  ASSERT_EQ(r.sus[1].leaves.size(), 8u);
  ASSERT_EQ(r.sus[1].nics.size(), 8u);
  EXPECT_EQ(r.sus[1].leaves[3], "su2-rail3");
  EXPECT_EQ(r.sus[1].nics[3], "mlx5_5");
}

TEST(FleetReport, FreeMeansIdleSchedulableUnrestrictedAndHealthy) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  testing::Node(&s, "n001")->state = "allocated";
  testing::Node(&s, "n002")->flags = {"drain"};
  testing::Node(&s, "n003")->features = "su1";                       // restricted
  testing::Node(&s, "n004")->extra = testing::ExtraFor("odoooooo");  // bad rail, keeps feature
  testing::Node(&s, "n005")->flags = {"maint"};
  testing::Node(&s, "n006")->state = "down";
  testing::Node(&s, "n007")->flags = {"not_responding"};
  const Report r = Build(s, t);
  ASSERT_FALSE(r.sus.empty());
  const SuRow& su1 = r.sus[0];
  EXPECT_EQ(su1.idle, 6);  // all but the allocated and the down one
  EXPECT_EQ(su1.free, 1);  // n008
  EXPECT_EQ(su1.largest_job, 0);
  EXPECT_EQ(su1.drained, 1);
  EXPECT_EQ(su1.restricted, 1);
  EXPECT_EQ(su1.down, 2);
  EXPECT_TRUE(RowOf(r, "n003").restricted);
  EXPECT_FALSE(RowOf(r, "n002").restricted);  // drained, not restricted
  EXPECT_EQ(RowOf(r, "n002").drained_by, "admin");
  EXPECT_EQ(r.largest_job, 8);
}

// Slurm 24.11+ marks the idle nodes of a topology unit that holds a job with --exclusive=topo
// BLOCKED: no other job can start there, so they are neither free nor part of largest_job.
TEST(FleetReport, NodesBlockedByAnExclusiveTopoJobAreNotFree) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  for (const char* name : {"n001", "n002"}) testing::Node(&s, name)->state = "allocated";
  for (const char* name : {"n003", "n004", "n005", "n006", "n007", "n008"})
    testing::Node(&s, name)->flags = {"blocked"};
  const Report r = Build(s, t);
  ASSERT_FALSE(r.sus.empty());
  EXPECT_EQ(r.sus[0].idle, 6);
  EXPECT_EQ(r.sus[0].free, 0);
  EXPECT_EQ(r.sus[0].largest_job, 0);
  EXPECT_FALSE(RowOf(r, "n003").free);
  EXPECT_TRUE(RowOf(r, "n009").free);
}

TEST(FleetReport, WithoutTheFeatureAnywhereNobodyIsRestrictedAndANoteSaysSo) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  for (NodeSnapshot& n : s.nodes) n.features = "gpu";
  const Report r = Build(s, t);
  EXPECT_FALSE(r.feature_in_use);
  EXPECT_EQ(r.restricted, 0);
  EXPECT_EQ(r.free, 32);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes[0].rfind("no node has the feature rail_healthy", 0), 0u) << r.notes[0];
}

TEST(FleetReport, ActiveFeaturesDecideRestrictionWhenSlurmListsThem) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  NodeSnapshot* n = testing::Node(&s, "n009");
  n->features = "su2,rail_healthy";
  n->features_act = "su2";
  EXPECT_TRUE(RowOf(Build(s, t), "n009").restricted);
}

TEST(FleetReport, JobsOnDegradedPathsListTheirBadNodesAndSus) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  Fault(&s, "n003", "oooooxoo", false);
  auto job = [&](uint32_t id, const std::string& nodes, const std::string& state) {
    JobSnapshot j;
    j.id = id;
    j.state = state;
    j.nodes = nodes;
    s.jobs.push_back(j);
  };
  job(7, "n[001-004],n009", "running");
  job(8, "n[005-008]", "running");
  job(9, "n003", "suspended");
  job(10, "n[003-", "running");
  const Report r = Build(s, t);
  ASSERT_EQ(r.degraded_jobs.size(), 1u);
  EXPECT_EQ(r.degraded_jobs[0].id, 7u);
  EXPECT_EQ(r.degraded_jobs[0].node_count, 5);
  EXPECT_EQ(r.degraded_jobs[0].sus, (std::vector<std::string>{"su1", "su2"}));
  ASSERT_EQ(r.degraded_jobs[0].bad_nodes.size(), 1u);
  EXPECT_EQ(r.nodes[static_cast<size_t>(r.degraded_jobs[0].bad_nodes[0])].name, "n003");
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].ToString(),
            "slurm job 10: job 10: node list 'n[003-': unbalanced '[' in 'n[003-'; expected "
            "name[ranges] such as n[001-032,040]");
}

TEST(FleetReport, BadExtraIsAProblemWithItsPlaceAndTheNodeIsUnknown) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  testing::Node(&s, "n001")->extra = "{\"railcheck\":{\"time\":1,\"verdict\":\"ok\"";
  testing::Node(&s, "n001")->extra_line = 3;
  testing::Node(&s, "n002")->extra =
      "{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[\"ok\",\"ok\"]}}";
  testing::Node(&s, "n003")->extra = "hand-written note by an admin";
  const Report r = Build(s, t);
  ASSERT_EQ(r.problems.size(), 3u);
  EXPECT_EQ(r.problems[0].ToString(),
            "snap.json:3: node n001: Extra column 38: unexpected end of input; expected ',' or "
            "'}'; expected {\"railcheck\":{\"time\":T,\"verdict\":\"drain|restrict|warn|ok\","
            "\"rails\":[\"ok|degraded|down\",...],\"failed\":[\"railN:check\",...]}}; rails of "
            "n001 unknown");
  EXPECT_EQ(r.problems[1].ToString(),
            "slurm node n002: node n002: Extra lists 2 rails; expected 8 (the topology's "
            "rails); rails of n002 unknown");
  EXPECT_EQ(RowOf(r, "n001").source, HealthSource::kNone);
  ASSERT_EQ(RowOf(r, "n001").rails.size(), 8u);
  EXPECT_EQ(RowOf(r, "n001").rails[0], RailState::kUnknown);
  EXPECT_EQ(r.no_report, 3);
  ASSERT_FALSE(r.sus.empty());
  ASSERT_FALSE(r.sus[0].cells.empty());
  EXPECT_EQ(r.sus[0].cells[0].unknown, 3);
  EXPECT_TRUE(r.suspects.empty());
}

TEST(FleetReport, NodesOutsideTheTopologyAndMissingFromSlurmAreNoted) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  s.nodes.erase(s.nodes.begin());  // n001
  NodeSnapshot login;
  login.name = "login1";
  login.state = "idle";
  s.nodes.push_back(login);
  const Report r = Build(s, t);
  EXPECT_EQ(r.extra_nodes, std::vector<std::string>{"login1"});
  EXPECT_FALSE(RowOf(r, "n001").in_slurm);
  EXPECT_FALSE(RowOf(r, "n001").free);
  bool noted = false;
  for (const std::string& n : r.notes) noted = noted || n == "1 topology nodes are not in Slurm";
  EXPECT_TRUE(noted);
}

TEST(FleetReport, StaleReportsAreFlagged) {
  const topo::Topology t = DevTopology();
  Snapshot s = HealthySnapshot(t);
  testing::Node(&s, "n001")->extra = testing::ExtraFor("oooooooo", "x", kT - 3 * 3600);
  const Report r = Build(s, t);
  EXPECT_TRUE(RowOf(r, "n001").stale);
  EXPECT_EQ(r.stale, 1);
}

TEST(FleetReport, HistoryCountsFlapsDrainsAndRatesPerWindow) {
  const topo::Topology t = DevTopology();
  using K = wire::EventKind;
  std::vector<wire::HealthEvent> ev = {
      Ev(3600, "n003", K::kFlap, 5),          Ev(2 * 86400, "n003", K::kFlap, 5),
      Ev(6 * 86400, "n003", K::kDegraded, 5), Ev(8 * 86400, "n003", K::kFlap, 5),  // too old
      Ev(-60, "n003", K::kFlap, 5),  // after the snapshot: ignored
      Ev(600, "n003", K::kDrained, -1),       Ev(60, "nobody", K::kFlap, 0),
  };
  ev[0].counters = {{"symbol_error", 100, 10, 600}, {"port_rcv_errors", 5, 1, 600}};
  ev[1].counters = {{"symbol_error", 90, 99, 600}};  // older: not the latest rates
  const Report r = Build(HealthySnapshot(t), t, ev);
  const NodeRow& n = RowOf(r, "n003");
  ASSERT_EQ(n.history.size(), 8u);
  EXPECT_EQ(n.history[5].flaps[k24h], 1);
  EXPECT_EQ(n.history[5].flaps[k7d], 2);
  EXPECT_EQ(n.history[5].degradations[k24h], 0);
  EXPECT_EQ(n.history[5].degradations[k7d], 1);
  EXPECT_EQ(n.drains[k24h], 1);
  ASSERT_EQ(n.history[5].rates.size(), 2u);
  EXPECT_EQ(n.history[5].rates[0].name, "symbol_error");
  EXPECT_EQ(n.history[5].rates[0].per_hour, 60);
  EXPECT_EQ(n.history[5].rates[1].per_hour, 6);
  EXPECT_EQ(r.history_events, 4);
  ASSERT_EQ(r.offenders.size(), 1u);
  EXPECT_EQ(r.nodes[static_cast<size_t>(r.offenders[0].node)].name, "n003");
  EXPECT_EQ(r.offenders[0].events, 4);
  EXPECT_EQ(r.offenders[0].incidents, 3);  // 600 s and 3600 s ago are one incident
  EXPECT_EQ(n.incidents[k24h], 1);
  EXPECT_EQ(n.incidents[k7d], 3);
  EXPECT_EQ(r.offenders[0].rails, std::vector<int>{5});
  EXPECT_TRUE(n.attention);
  ASSERT_EQ(n.events.size(), 4u);
  EXPECT_EQ(n.events[0].kind, "drained");  // newest first
}

// One leaf fault: every node of su2 logs rail 3 degraded, then drained and restricted a few
// seconds later (what railcheck writes for one drain). That is one incident per node.
std::vector<wire::HealthEvent> LeafFaultEvents(double age) {
  using K = wire::EventKind;
  std::vector<wire::HealthEvent> ev;
  for (int i = 9; i <= 16; ++i) {
    const std::string node = testing::N(i);
    ev.push_back(Ev(age, node, K::kDegraded, 3));
    ev.push_back(Ev(age - 2, node, K::kDrained, -1));
    ev.push_back(Ev(age - 3, node, K::kRestricted, -1));
  }
  return ev;
}

TEST(FleetReport, OneLeafFaultMakesNoRepeatOffenders) {
  const topo::Topology t = DevTopology();
  const Report r = Build(HealthySnapshot(t), t, LeafFaultEvents(1800));
  EXPECT_EQ(r.history_events, 24);
  EXPECT_TRUE(r.offenders.empty());
  EXPECT_EQ(RowOf(r, "n009").incidents[k7d], 1);
  EXPECT_EQ(RowOf(r, "n009").incidents[k24h], 1);
}

TEST(FleetReport, TwoSeparateIncidentsMakeARepeatOffender) {
  const topo::Topology t = DevTopology();
  std::vector<wire::HealthEvent> ev = LeafFaultEvents(1800);
  using K = wire::EventKind;
  ev.push_back(Ev(1800 + 200, "n012", K::kRecovered, 3));  // no problem: no incident
  ev.push_back(Ev(3 * 86400, "n012", K::kDown, 3));        // days earlier: a second incident
  ev.push_back(Ev(3 * 86400 - 5, "n012", K::kDrained, -1));
  const Report r = Build(HealthySnapshot(t), t, ev);
  ASSERT_EQ(r.offenders.size(), 1u);
  EXPECT_EQ(r.nodes[static_cast<size_t>(r.offenders[0].node)].name, "n012");
  EXPECT_EQ(r.offenders[0].incidents, 2);
  EXPECT_EQ(RowOf(r, "n012").incidents[k24h], 1);
}

TEST(FleetReport, TheFixtureGivesTheExpectedCapacity) {
  const topo::Topology t = DevTopology();
  Snapshot s;
  Diags d;
  ASSERT_TRUE(LoadSnapshotFile(testing::kFaultsSnapshot, &s, &d)) << FormatDiags(d);
  const Report r = BuildReport(s, testing::kFaultsSnapshot, t, {}, {}, ReportOptions());
  EXPECT_EQ(r.free, 15);
  EXPECT_EQ(r.drained, 11);
  EXPECT_EQ(r.restricted, 1);
  EXPECT_EQ(r.largest_job, 7);
  EXPECT_EQ(r.sus[static_cast<size_t>(r.largest_job_su)].name, "su3");
  EXPECT_EQ(r.degraded_jobs.size(), 3u);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].line, 29);
}

TEST(FleetReport, FormatsTimesAndAges) {
  EXPECT_EQ(FormatTime(kT), "2024-05-01 10:40");
  EXPECT_EQ(FormatTime(0), "-");
  EXPECT_EQ(FormatAge(45), "45s");
  EXPECT_EQ(FormatAge(20 * 60 + 59), "20m");
  EXPECT_EQ(FormatAge(5400), "1.5h");
  EXPECT_EQ(FormatAge(2 * 86400), "2.0d");
}

}  // namespace report_report_test
}  // namespace railguard::report
