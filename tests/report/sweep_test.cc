// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the report's reading of a fabric sweep (report/sweep_input.h) and the root cause
// it gives (report/rootcause_sweep.h): which end errs, leaf ports from the sweep.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "report/evidence_from_sweep.h"
#include "report/render.h"
#include "report/report.h"
#include "report/rootcause_sweep.h"
#include "report/sweep_input.h"
#include "topo/topology_yaml.h"
#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_sweep_test {

using testing::DevTopology;
using testing::HealthySnapshot;
using testing::kSrc;

// Made by the real sweep on ibsim (tests/report/data/README.md).
const std::string kSweep = kSrc + "/tests/report/data/dev4su_sweep.json";

SweepInput LoadFixture() {
  SweepInput s;
  Diags d;
  EXPECT_TRUE(LoadSweepJson(kSweep, &s, &d)) << FormatDiags(d);
  return s;
}

Report BuildWith(const Snapshot& snap, const topo::Topology& t, const SweepInput* sweep) {
  ReportOptions o;
  o.sweep = sweep;
  return BuildReport(snap, "test", t, {}, {}, o);
}

const Suspect* Find(const Report& r, const std::string& kind, const std::string& node, int rail) {
  for (const Suspect& s : r.suspects) {
    if (s.kind != kind || s.rail != rail) continue;
    if (node.empty() || (s.node >= 0 && r.nodes[static_cast<size_t>(s.node)].name == node))
      return &s;
  }
  return nullptr;
}

TEST(SweepInput, ReadsTheLinksFindingsAndMissingHcasOfARealSweep) {
  const SweepInput s = LoadFixture();
  EXPECT_TRUE(s.complete);
  ASSERT_EQ(s.links.size(), 43u);
  ASSERT_EQ(s.missing.size(), 1u);
  EXPECT_EQ(s.missing[0].host, "n019");
  EXPECT_EQ(s.missing[0].rail, "rail2");
  EXPECT_GT(s.time, 0);
  const SweepIndex index(s);
  const SweepLink* l = index.HostLink("n013", "rail3");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->b.name, "su2-rail3");
  EXPECT_EQ(l->b.port, 5);
  EXPECT_EQ(JudgeEnds(*l).end, "switch");
  EXPECT_EQ(JudgeEnds(*index.HostLink("n001", "rail0")).end, "host");
  EXPECT_EQ(JudgeEnds(*index.HostLink("n020", "rail7")).end, "both");
  const EndVerdict w = JudgeEnds(*index.HostLink("n018", "rail6"));
  EXPECT_EQ(w.end, "switch");
  EXPECT_EQ(w.what, "width");
  EXPECT_TRUE(index.Missing("n019", "rail2"));
}

TEST(SweepInput, BadJsonNamesFileLineAndColumn) {
  SweepInput s;
  Diags d;
  EXPECT_FALSE(ParseSweepJson("{\"links\": [\n  {\"kind\": 3}]}", "s.json", &s, &d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].ToString(), "s.json:1:1: no \"missing\" array; expected an array");
  d.clear();
  EXPECT_FALSE(ParseSweepJson(
      "{\"complete\": true, \"missing\": [], \"links\": [\n  {\"kind\": 3}]}", "s.json", &s, &d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].ToString(), "s.json:2:12: bad or missing \"kind\"; expected a string");
  d.clear();
  EXPECT_FALSE(ParseSweepJson("{\"links\": [}", "s.json", &s, &d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].file, "s.json");
  EXPECT_EQ(d[0].line, 1);
  EXPECT_EQ(d[0].column, 12);
  d.clear();
  EXPECT_FALSE(LoadSweepJson(kSrc + "/no/such/sweep.json", &s, &d));
  ASSERT_EQ(d.size(), 1u);
}

TEST(SweepRootCause, EachInjectedFaultIsItsSuspectWithTheEndThatErrs) {
  const topo::Topology t = DevTopology();
  const SweepInput sweep = LoadFixture();
  const Report r = BuildWith(HealthySnapshot(t), t, &sweep);
  EXPECT_EQ(r.sweep_file, kSweep);
  const Suspect* leaf = Find(r, "leaf", "", 1);
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->leaf, "su4-rail1");
  EXPECT_EQ(leaf->end, "leaf");
  EXPECT_EQ(leaf->nodes.size(), 8u);
  EXPECT_EQ(leaf->rank, 1);
  const Suspect* sw = Find(r, "cable", "n013", 3);
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->end, "switch");
  EXPECT_EQ(sw->leaf, "su2-rail3");
  EXPECT_EQ(sw->port, 5);
  EXPECT_EQ(sw->port_source, "sweep");
  EXPECT_EQ(sw->title,
            "switch side only (switch port or its transceiver): n013 rail3 (mlx5_5) -> su2-rail3 "
            "port 5");
  ASSERT_NE(Find(r, "cable", "n001", 0), nullptr);
  EXPECT_EQ(Find(r, "cable", "n001", 0)->end, "host");
  ASSERT_NE(Find(r, "cable", "n020", 7), nullptr);
  EXPECT_EQ(Find(r, "cable", "n020", 7)->end, "both");
  const Suspect* width = Find(r, "cable", "n018", 6);
  ASSERT_NE(width, nullptr);
  EXPECT_EQ(width->port, 2);
  EXPECT_NE(width->title.find("width down: the switch end negotiated it"), std::string::npos)
      << width->title;
  ASSERT_NE(Find(r, "cable", "n019", 2), nullptr);
  EXPECT_EQ(Find(r, "cable", "n019", 2)->end, "link-down");
  int spines = 0;
  for (const Suspect& s : r.suspects) {
    if (s.kind != "spine") continue;
    ++spines;
    EXPECT_EQ(s.component, "spine1");
    EXPECT_EQ(s.end, "spine");
  }
  EXPECT_EQ(spines, 1);
  EXPECT_EQ(r.suspects.size(), 7u);  // one per fault: no suspect per node of the leaf
}

// A spine-core link of a three-tier fabric, with a finding on the core end when `bad`.
SweepLink CoreLink(const std::string& spine, int spine_port, const std::string& core, int port,
                   bool bad) {
  SweepLink l;
  l.kind = "core";
  l.a.name = spine;
  l.a.port = spine_port;
  l.b.name = core;
  l.b.port = port;
  if (bad) l.findings.push_back({"errors", "core", "SymbolErrorCounter 77 on the core side"});
  return l;
}

TEST(SweepRootCause, CoreSwitchFaultsAreNamedAsSuchInAThreeTierFabric) {
  const topo::Topology t = DevTopology();
  SweepInput sweep = LoadFixture();
  // core1 errs on two spines' links (the switch), core2 on one (that link), core3 on none.
  sweep.links.push_back(CoreLink("spine1", 40, "core1", 1, true));
  sweep.links.push_back(CoreLink("spine2", 40, "core1", 2, true));
  sweep.links.push_back(CoreLink("spine1", 41, "core2", 1, true));
  sweep.links.push_back(CoreLink("spine2", 41, "core2", 2, false));
  sweep.links.push_back(CoreLink("spine1", 42, "core3", 1, false));
  const Report r = BuildWith(HealthySnapshot(t), t, &sweep);
  const Suspect* core = nullptr;
  const Suspect* link = nullptr;
  for (const Suspect& s : r.suspects) {
    if (s.kind == "core") core = &s;
    if (s.kind == "core-link") link = &s;
    EXPECT_EQ(s.component.find("core3"), std::string::npos) << s.title;
  }
  ASSERT_NE(core, nullptr);
  EXPECT_EQ(core->component, "core1");
  EXPECT_EQ(core->end, "core");
  EXPECT_EQ(core->title,
            "spine-core links or a core switch's ports core1: 2 spine links have findings");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->title,
            "spine-core links or a core switch's ports: spine-core link spine1 port 41 <-> core2 "
            "port 1");
  EXPECT_EQ(link->leaf, "");
  EXPECT_EQ(r.suspects.size(), 9u);  // the fixture's 7 and these 2
}

TEST(SweepRootCause, NodeHealthSuspectsTakeTheirPortAndEndFromTheSweep) {
  const topo::Topology t = DevTopology();
  const SweepInput sweep = LoadFixture();
  Snapshot snap = HealthySnapshot(t);
  testing::Fault(&snap, "n013", "oooxoooo");  // rail3 down: the sweep says the switch end
  testing::Fault(&snap, "n014", "ooodoooo");  // rail3 too: clean in the sweep
  const Report r = BuildWith(snap, t, &sweep);
  const Suspect* sw = Find(r, "cable", "n013", 3);
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->end, "switch");
  EXPECT_EQ(sw->port, 5);
  for (const std::string& e : sw->evidence) EXPECT_EQ(e.find("guess"), std::string::npos) << e;
  const Suspect* clean = Find(r, "cable", "n014", 3);
  ASSERT_NE(clean, nullptr);
  EXPECT_EQ(clean->end, "");
  EXPECT_EQ(clean->port, 6);
  EXPECT_EQ(clean->port_source, "sweep");
  bool said = false;
  for (const std::string& e : clean->evidence)
    said = said || e.find("clean on both ends") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(testing::RowOf(r, "n014").leaf_ports[3], 6);
  int n013 = 0;
  for (const Suspect& s : r.suspects)
    n013 += s.node >= 0 && r.nodes[static_cast<size_t>(s.node)].name == "n013";
  EXPECT_EQ(n013, 1);
}

}  // namespace report_sweep_test
}  // namespace railguard::report

namespace railguard::report {
namespace report_sweep_test {

TEST(EvidenceFromSweep, SwitchSideProblemsPerNodeRailAndTheLeafFaultOfARealSweep) {
  const topo::Topology t = DevTopology();
  const wire::FabricEvidence e = EvidenceFromSweep(LoadFixture(), t);
  EXPECT_GT(e.time, 0);
  EXPECT_EQ(e.sweep, kSweep);
  auto has = [&](const std::string& node, int rail, const std::string& problem, int port) {
    for (const wire::SwitchSideProblem& p : e.links)
      if (p.node == node && p.rail == rail && p.problem == problem && p.port == port) return true;
    return false;
  };
  EXPECT_TRUE(has("n013", 3, "errors", 5));
  EXPECT_TRUE(has("n018", 6, "width", 2));
  EXPECT_TRUE(has("n020", 7, "errors", 4));  // both ends: the switch end is one
  EXPECT_TRUE(has("n025", 1, "errors", 1));
  for (const wire::SwitchSideProblem& p : e.links) EXPECT_NE(p.node, "n001");  // host side only
  EXPECT_EQ(e.links.size(), 11u);
  ASSERT_EQ(e.leaves.size(), 1u);
  EXPECT_EQ(e.leaves[0].su, "su4");
  EXPECT_EQ(e.leaves[0].rail, 1);
  EXPECT_EQ(e.leaves[0].leaf, "su4-rail1");
  EXPECT_EQ(e.leaves[0].bad_ports, 8);
}

TEST(EvidenceFromSweep, ALeafFaultIsGivenForEachOneHopDomainTheLeafServes) {
  // dev-4su with su4 split as a B300-style SU: every rail has two leaves of 4 nodes, the rail-1
  // pair named su4-rail1 (the faulty leaf of the fixture) and su4-rail1b.
  std::ifstream in(testing::kDevYaml);
  std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string su4 = "    nodes: \"n[025-032]\"\n    node_type: dgx-h100\n    leaves: *leaves8\n";
  ASSERT_NE(yaml.find(su4), std::string::npos);
  std::string leaves;
  for (int r = 0; r < 8; ++r) {
    const std::string name = r == 1 ? "su4-rail1" : "su4-r" + std::to_string(r) + "a";
    leaves += "      - {rail: " + std::to_string(r) + ", name: " + name +
              ", nodes: \"n[025-028]\"}\n      - {rail: " + std::to_string(r) + ", name: su4-r" +
              std::to_string(r) + "b, nodes: \"n[029-032]\"}\n";
  }
  yaml.replace(yaml.find(su4), su4.size(),
               "    nodes: \"n[025-032]\"\n    node_type: dgx-h100\n    leaves:\n" + leaves);
  topo::Topology t;
  Diags d;
  ASSERT_TRUE(topo::LoadTopologyString(yaml, "split.yaml", &t, &d)) << FormatDiags(d);
  // The fixture's su4-rail1 serves n025-n032, all erring: hosts of both domains.
  const wire::FabricEvidence e = EvidenceFromSweep(LoadFixture(), t);
  ASSERT_EQ(e.leaves.size(), 2u);
  EXPECT_EQ(e.leaves[0].su, "su4-d1");
  EXPECT_EQ(e.leaves[1].su, "su4-d2");
  for (const wire::LeafFault& f : e.leaves) {
    EXPECT_EQ(f.leaf, "su4-rail1");
    EXPECT_EQ(f.rail, 1);
  }
}

TEST(SweepRootCause, ALeafSuspectWhoseLinksTheSweepSeesCleanSaysSo) {
  const topo::Topology t = DevTopology();
  Snapshot snap = HealthySnapshot(t);
  for (int i = 9; i <= 16; ++i) testing::Fault(&snap, testing::N(i), "ooodoooo", true, "port.rate");
  SweepInput sweep = LoadFixture();  // su2-rail3: all 8 host links, one erring; made clean here
  for (SweepLink& l : sweep.links)
    if (l.b.name == "su2-rail3") l.findings.clear();
  const Report r = BuildWith(snap, t, &sweep);
  const Suspect* leaf = Find(r, "leaf", "", 3);
  ASSERT_NE(leaf, nullptr);
  bool said = false;
  for (const std::string& e : leaf->evidence)
    said |= e.find("0 of 8 host ports of su2-rail3 have findings: the sweep sees this leaf's links "
                   "clean") != std::string::npos;
  std::string all;
  for (const std::string& e : leaf->evidence) all += e + "\n";
  EXPECT_TRUE(said) << all;
}

TEST(SweepInput, TakesTheTimeFromTheSweepsSummaryWhenItHasOne) {
  const std::string text =
      R"({"complete": true, "summary": {"time": 1764600000.5}, "links": [], "missing": []})";
  SweepInput s;
  s.time = 12;  // what LoadSweepJson sets from the file's modification time
  Diags d;
  ASSERT_TRUE(ParseSweepJson(text, "s.json", &s, &d)) << FormatDiags(d);
  EXPECT_DOUBLE_EQ(s.time, 1764600000.5);
  SweepInput old;
  old.time = 12;
  ASSERT_TRUE(ParseSweepJson(R"({"complete": true, "links": [], "missing": []})", "o.json", &old, &d));
  EXPECT_DOUBLE_EQ(old.time, 12);
  SweepInput bad;
  EXPECT_FALSE(ParseSweepJson(R"({"complete": true, "summary": {"time": "now"}, "links": [],
    "missing": []})", "b.json", &bad, &d));
  EXPECT_EQ(FormatDiags(d),
            "b.json:1:40: bad \"summary\": {\"time\"}; expected the sweep's Unix time in seconds, "
            "a number >= 0\n");
}

}  // namespace report_sweep_test
}  // namespace railguard::report

namespace railguard::report {
namespace report_sweep_test {

TEST(SweepRender, EveryFormatNamesTheEndAndTheSweep) {
  const topo::Topology t = DevTopology();
  const SweepInput sweep = LoadFixture();
  const Report r = BuildWith(HealthySnapshot(t), t, &sweep);
  const std::string text = RenderText(r);
  EXPECT_NE(text.find(" 1. [high, end: leaf] many ports of one leaf: leaf switch su4-rail1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fabric sweep: " + kSweep.substr(0, 60)), std::string::npos);
  const std::string json = RenderJson(r);
  EXPECT_NE(json.find("\"port_source\":\"sweep\",\"end\":\"switch\""), std::string::npos);
  EXPECT_NE(json.find("\"sweep\":{\"file\":"), std::string::npos);
  EXPECT_NE(RenderHtml(r).find("data-end=\"spine\""), std::string::npos);
  EXPECT_NE(RenderPrometheus(r).find("kind=\"leaf\",component=\"su4-rail1\",confidence=\"high\",end=\"leaf\""),
            std::string::npos);
}

}  // namespace report_sweep_test
}  // namespace railguard::report
