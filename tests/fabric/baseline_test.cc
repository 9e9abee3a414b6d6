// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of the fabric baseline: the sweep JSON reads back to the counters it was written
// from, errors name file:line:column and the expected form, and judging against a baseline
// reports what grew.
#include "fabric/baseline.h"

#include <gtest/gtest.h>

#include <string>

#include "fabric/judge.h"
#include "fabric/render.h"
#include "topo/topology_yaml.h"

namespace railguard::fabric {
namespace fabric_baseline_test {

// One leaf, one host with one HCA (rail 0 of 1), no spine.
const char kYaml[] = R"(cluster: one
rails:
  - {index: 0, link: {rate_gbps: 200, width: 4X, speed: HDR}}
node_types:
  - {name: gpu, gpus: 1, nics: [mlx5_0]}
scalable_units:
  - {name: su1, nodes: "h1", node_type: gpu, leaves: [{rail: 0, ports: 8}]}
spines: []
)";

Sweep OneLink(uint64_t leaf_symbol_errors) {
  Sweep s;
  SweptNode leaf, hca;
  leaf.guid = 0x200;
  leaf.is_switch = true;
  leaf.description = "MF0;su1-rail0:MQM8700/U1";
  leaf.status = hca.status = NodeStatus::kAnswered;
  SweptPort lp, hp;
  lp.port = 3;
  lp.peer_guid = 0x1000;
  lp.peer_port = 1;
  hp.port = 1;
  hp.peer_guid = 0x200;
  hp.peer_port = 3;
  for (SweptPort* p : {&lp, &hp}) {
    p->counters_read = true;
    p->link.width_active = p->link.width_enabled = 4;
    p->link.speed_active = p->link.speed_enabled = "HDR";
  }
  lp.counters[kSymbolErrors] = leaf_symbol_errors;
  lp.counters[kXmitData] = 1ull << 50;
  hp.counters[kLinkDowned] = 1;
  leaf.ports.push_back(lp);
  hca.guid = 0x1000;
  hca.description = "h1 mlx5_0";
  hca.ports.push_back(hp);
  hca.port_lids.push_back(7);
  s.nodes = {leaf, hca};
  return s;
}

topo::Topology One() {
  topo::Topology t;
  Diags d;
  EXPECT_TRUE(topo::LoadTopologyString(kYaml, "one.yaml", &t, &d)) << FormatDiags(d);
  return t;
}

TEST(FabricBaseline, SweepJsonReadsBackToTheCountersOfEveryEnd) {
  const topo::Topology t = One();
  const Sweep s = OneLink(42);
  const std::string json = RenderJson(t, s, JudgeSweep(t, s));
  SweepBaseline b;
  Diags errors;
  ASSERT_TRUE(ParseSweepBaseline(json, "base.json", &b, &errors)) << FormatDiags(errors);
  ASSERT_EQ(b.ports.size(), 2u);
  const auto* leaf = b.Find(0x200, 3);
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ((*leaf)[kSymbolErrors], 42u);
  EXPECT_EQ((*leaf)[kXmitData], 1ull << 50);
  EXPECT_EQ((*b.Find(0x1000, 1))[kLinkDowned], 1u);
  EXPECT_EQ(b.Find(0x200, 4), nullptr);
}

TEST(FabricBaseline, JudgesWhatGrewSinceTheBaselineAndAResetCounterWhole) {
  const topo::Topology t = One();
  SweepBaseline b;
  Diags errors;
  const Sweep before = OneLink(42);
  ASSERT_TRUE(
      ParseSweepBaseline(RenderJson(t, before, JudgeSweep(t, before)), "b.json", &b, &errors));
  // Nothing grew: no finding, where without the baseline both ends err.
  EXPECT_EQ(JudgeSweep(t, OneLink(42)).findings.size(), 2u);
  EXPECT_TRUE(JudgeSweep(t, OneLink(42), &b).findings.empty());
  // 8 more symbol errors on the leaf side.
  FabricReport r = JudgeSweep(t, OneLink(50), &b);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].message, "SymbolErrorCounter +8 on the leaf side (su1-rail0 port 3)");
  // Cleared (perfquery -R) and counting again: below the baseline, so all of it is new.
  r = JudgeSweep(t, OneLink(5), &b);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].message, "SymbolErrorCounter +5 on the leaf side (su1-rail0 port 3)");
}

TEST(FabricBaseline, BadInputNamesFileLineColumnAndTheExpectedForm) {
  SweepBaseline b;
  Diags errors;
  EXPECT_FALSE(
      ParseSweepBaseline("{\"links\": [\n {\"a\": {\"guid\": \"0x12\", \"port\": 1, "
                         "\"counters\": null},\n  \"b\": {\"guid\": \"0x0000000000000200\", "
                         "\"port\": 300, \"counters\": null}}]}",
                         "base.json", &b, &errors));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].ToString(),
            "base.json:2:17: bad or missing \"guid\"; expected \"0x\" and 16 hex digits");
  EXPECT_EQ(errors[1].ToString(),
            "base.json:3:47: bad or missing \"port\"; expected an integer from 1 to 254");
  errors.clear();
  EXPECT_FALSE(ParseSweepBaseline("{\"switches\": 3}", "x.json", &b, &errors));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].ToString(),
            "x.json:1:1: no \"links\" array; expected the JSON of railctl fabric sweep --json");
  errors.clear();
  EXPECT_FALSE(ParseSweepBaseline("{\"links\": [", "t.json", &b, &errors));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, "t.json");
  EXPECT_EQ(errors[0].line, 1);
  errors.clear();
  EXPECT_FALSE(LoadSweepBaseline("/nonexistent/base.json", &b, &errors));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].ToString().find("/nonexistent/base.json"), std::string::npos);
}

}  // namespace fabric_baseline_test
}  // namespace railguard::fabric
