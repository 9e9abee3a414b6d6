// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the fabric checks (healthcheck/checks_fabric.cc) and the evidence they read
// (healthcheck/fabric_input.h): a switch-side problem of rail k is a finding of rail k at the
// level of its host-side counterpart, a leaf fault restricts and never drains, stale, missing
// or bad evidence drains nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "healthcheck/act.h"
#include "healthcheck/fabric_input.h"
#include "tests/healthcheck/checks_test_util.h"
#include "wire/fabric_evidence.h"

namespace railguard::health {
namespace healthcheck_checks_fabric_test {

using check_testing::Checks;

class FabricChecks : public Checks {
 protected:
  JudgeInput WithFabric() {
    JudgeInput in = Input();
    fabric_.file = "/var/lib/railguard/fabric-evidence.json";
    fabric_.time = now_ - 300;
    in.fabric = &fabric_;
    return in;
  }
  const Finding* Of(const Verdict& v, const std::string& check) {
    for (const Finding& f : v.findings)
      if (f.check == check) return &f;
    return nullptr;
  }
  NodeFabric fabric_;
};

TEST_F(FabricChecks, SwitchSideErrorsOfRailKRestrictLikeLinkErrorsAndNameLeafAndPort) {
  fabric_.links = {{"n001", 3, "su1-rail3", 1, "errors", "SymbolErrorCounter 42 on the leaf side"}};
  const Verdict v = Judge(WithFabric()).verdict;
  EXPECT_EQ(v.level, Level::kRestrict);
  const Finding* f = Of(v, "fabric.switch_errors");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rail, 3);
  EXPECT_EQ(v.rails[3].status, RailStatus::kDegraded);
  EXPECT_EQ(f->reason, "rail3 mlx5_5 switch side su1-rail3 port 1 errors (fabric sweep)");
  EXPECT_EQ(
      f->message,
      "fabric.switch_errors: rail3 mlx5_5 switch side su1-rail3 port 1: SymbolErrorCounter "
      "42 on the leaf side (fabric sweep 5 min ago, /var/lib/railguard/fabric-evidence.json)");
  // The same act path: the healthy feature goes.
  SlurmNode node;
  node.name = "n001";
  node.features = "su1,rail_healthy";
  const Plan p = PlanActions(v, node, RunState(), cfg_, "rail_healthy", now_);
  ASSERT_TRUE(p.update.features_act.has_value());
  EXPECT_EQ(*p.update.features_act, "su1");
  EXPECT_FALSE(p.update.drain_reason.has_value());
}

TEST_F(FabricChecks, ASwitchSideWidthDownDrainsLikePortRateWithARailcheckReason) {
  fabric_.links = {{"n001", 6, "su1-rail6", 1, "width", "width 1X < 4X"}};
  const Verdict v = Judge(WithFabric()).verdict;
  EXPECT_EQ(v.level, Level::kDrain);
  EXPECT_EQ(DrainReason(v),
            "railcheck: rail6 mlx5_10 switch side su1-rail6 port 1 width down "
            "(fabric sweep)");
}

TEST_F(FabricChecks, ALeafFaultRestrictsAndNeverDrainsEvenWhenConfiguredTo) {
  fabric_.leaves = {{"su1", 1, "su1-rail1", 8, 8}};
  cfg_.actions["fabric.leaf"] = HealthAction::kDrain;
  const Verdict v = Judge(WithFabric()).verdict;
  EXPECT_EQ(v.level, Level::kRestrict);
  const Finding* f = Of(v, "fabric.leaf");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rail, 1);
  EXPECT_NE(f->message.find("su1-rail1 of su1: 8 of 8 host ports"), std::string::npos)
      << f->message;
}

TEST_F(FabricChecks, NoEvidenceIsNoFinding) {
  EXPECT_EQ(Of(Judge(Input()).verdict, "fabric.switch_errors"), nullptr);
  EXPECT_EQ(Of(Judge(WithFabric()).verdict, "fabric.leaf"), nullptr);
}

class FabricInput : public ::testing::Test {
 protected:
  FabricInput() {
    char tmpl[] = "/tmp/railguard-fabric-input.XXXXXX";
    dir_ = mkdtemp(tmpl);
    h_.fabric_evidence = dir_ + "/evidence.json";
  }
  ~FabricInput() override {
    std::remove(h_.fabric_evidence.c_str());
    std::remove(dir_.c_str());
  }
  void Write(const std::string& text) { std::ofstream(h_.fabric_evidence) << text; }
  wire::FabricEvidence Evidence(double time) {
    wire::FabricEvidence e;
    e.time = time;
    e.sweep = "sweep.json";
    e.links = {{"n001", 3, "su1-rail3", 1, "errors", "x"},
               {"n002", 3, "su1-rail3", 2, "errors", "y"}};
    e.leaves = {{"su1", 1, "su1-rail1", 8, 8}, {"su2", 0, "su2-rail0", 4, 8}};
    return e;
  }
  std::string dir_;
  HealthConfig h_;
  double now_ = 1714560000;
};

TEST_F(FabricInput, FreshEvidenceKeepsThisNodesLinksAndItsSusLeaves) {
  Write(wire::FabricEvidenceToJson(Evidence(now_ - 60)));
  NodeFabric f;
  std::string note;
  ASSERT_TRUE(LoadNodeFabric(h_, "n001", "su1", now_, &f, &note)) << note;
  EXPECT_EQ(note, "");
  ASSERT_EQ(f.links.size(), 1u);
  EXPECT_EQ(f.links[0].node, "n001");
  ASSERT_EQ(f.leaves.size(), 1u);
  EXPECT_EQ(f.leaves[0].leaf, "su1-rail1");
}

TEST_F(FabricInput, StaleMissingOrBadEvidenceIsIgnoredWithANote) {
  NodeFabric f;
  std::string note;
  EXPECT_FALSE(LoadNodeFabric(h_, "n001", "su1", now_, &f, &note));  // missing
  EXPECT_EQ(note, "");
  Write(wire::FabricEvidenceToJson(Evidence(now_ - 7200)));
  EXPECT_FALSE(LoadNodeFabric(h_, "n001", "su1", now_, &f, &note));
  EXPECT_EQ(note, "fabric evidence " + h_.fabric_evidence +
                      " is stale: sweep 2.0 h ago, more than "
                      "health.fabric_evidence_max_age_seconds 30 min; ignored, drains nothing");
  Write("{\"railguard_fabric_evidence\": 1,\n \"time\": \"soon\"}");
  EXPECT_FALSE(LoadNodeFabric(h_, "n001", "su1", now_, &f, &note));
  EXPECT_EQ(note, "fabric evidence ignored: " + h_.fabric_evidence +
                      ":2:10: bad or missing \"time\"; expected seconds since the epoch");
  HealthConfig off;
  EXPECT_FALSE(LoadNodeFabric(off, "n001", "su1", now_, &f, &note));
}

}  // namespace healthcheck_checks_fabric_test
}  // namespace railguard::health
