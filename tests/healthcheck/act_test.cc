// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for planning the Slurm changes (healthcheck/act.h): drain once with a railcheck:
// reason, resume only railcheck's own drains after N clean runs, never an admin's, the
// healthy feature kept or withheld, per-rail health in Extra.
#include "healthcheck/act.h"

#include <gtest/gtest.h>

#include "base/names.h"

namespace railguard::health {
namespace {

Verdict MakeVerdict(Level level, std::vector<Finding> findings = {}) {
  Verdict v;
  v.level = level;
  for (int k = 0; k < 8; ++k) v.rails.push_back(RailHealth{k, "mlx5_" + std::to_string(k)});
  v.findings = std::move(findings);
  return v;
}

Finding RateDown() {
  Finding f;
  f.check = "port.rate";
  f.rail = 3;
  f.severity = Severity::kDegraded;
  f.action = HealthAction::kDrain;
  f.message = "port.rate: rail3 mlx5_5 rate 200 Gb/sec (2X NDR) < expected 400 Gb/sec (4X NDR)";
  f.reason = "rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s";
  return f;
}

SlurmNode Idle() {
  SlurmNode n;
  n.name = "n003";
  n.features = "su1,rail_healthy";
  return n;
}

class Act : public ::testing::Test {
 protected:
  Plan Run(const Verdict& v) {
    Plan p = PlanActions(v, node_, state_, cfg_, "rail_healthy", 1700000000);
    state_ = p.next;
    // Apply what slurmctld would.
    if (p.update.drain_reason) {
      node_.drain = true;
      node_.reason = *p.update.drain_reason;
    }
    if (p.update.resume) {
      node_.drain = false;
      node_.reason.clear();
    }
    if (p.update.features) node_.features = *p.update.features;
    if (p.update.features_act) node_.features_act = *p.update.features_act;
    if (p.update.extra) node_.extra = *p.update.extra;
    return p;
  }

  SlurmNode node_ = Idle();
  RunState state_;
  HealthConfig cfg_;
};

TEST_F(Act, ADrainVerdictDrainsWithARailcheckReasonAndRemovesTheFeature) {
  Plan p = Run(MakeVerdict(Level::kDrain, {RateDown()}));
  ASSERT_TRUE(p.update.drain_reason);
  EXPECT_EQ(*p.update.drain_reason, "railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s");
  EXPECT_EQ(*p.update.features, "su1");
  EXPECT_EQ(*p.update.features_act, "su1");
  EXPECT_EQ(p.lines, (std::vector<std::string>{
                         "drain n003: railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s",
                         "remove feature rail_healthy"}));
  EXPECT_EQ(state_.drains, 1);
  EXPECT_TRUE(state_.feature_held);
}

TEST_F(Act, ANodeIsDrainedOnceAndItsReasonKeptWhileItStaysBad) {
  Run(MakeVerdict(Level::kDrain, {RateDown()}));
  Finding flap = RateDown();
  flap.check = "link.flap";
  flap.reason = "rail3 mlx5_5 link flapping (2 in 60 min)";
  for (int i = 0; i < 5; ++i) {
    Plan p = Run(MakeVerdict(Level::kDrain, {flap}));
    EXPECT_FALSE(p.update.drain_reason);
    EXPECT_FALSE(p.update.resume);
    ASSERT_FALSE(p.lines.empty());
    EXPECT_EQ(p.lines[0],
              "already drained by railcheck (railcheck: rail3 mlx5_5 rate 200 Gb/s "
              "< 400 Gb/s); reason kept");
  }
  EXPECT_EQ(state_.drains, 1);
}

TEST_F(Act, RailchecksOwnDrainIsResumedAfterNCleanRunsAndAFailedRunRestartsTheCount) {
  cfg_.resume_after_clean_runs = 3;
  Run(MakeVerdict(Level::kDrain, {RateDown()}));
  Plan p = Run(MakeVerdict(Level::kOk));
  ASSERT_FALSE(p.lines.empty());
  EXPECT_EQ(p.lines[0],
            "stays drained by railcheck until 3 consecutive clean runs (1 of 3 "
            "clean runs)");
  Run(MakeVerdict(Level::kDrain, {RateDown()}));  // flapped again
  Run(MakeVerdict(Level::kOk));
  p = Run(MakeVerdict(Level::kWarn));  // warnings are clean
  EXPECT_FALSE(p.update.resume);
  EXPECT_FALSE(p.update.features);
  EXPECT_EQ(p.lines, (std::vector<std::string>{
                         "stays drained by railcheck until 3 consecutive clean runs (2 of 3 "
                         "clean runs)",
                         "feature rail_healthy withheld until 3 consecutive clean runs (2 so "
                         "far)"}));
  p = Run(MakeVerdict(Level::kOk));
  EXPECT_TRUE(p.update.resume);
  EXPECT_EQ(*p.update.features, "su1,rail_healthy");
  EXPECT_EQ(p.lines, (std::vector<std::string>{
                         "resume n003: no drain finding in 3 consecutive runs",
                         "feature rail_healthy restored after 3 consecutive clean runs",
                         "add feature rail_healthy"}));
  EXPECT_EQ(state_.resumes, 1);
  EXPECT_FALSE(state_.feature_held);
  EXPECT_FALSE(node_.drain);
}

TEST_F(Act, ADrainTheRunStateMissedStillWaitsForItsCleanRuns) {
  cfg_.resume_after_clean_runs = 3;
  for (int i = 0; i < 5; ++i) Run(MakeVerdict(Level::kOk));
  const RunState recorded = state_;  // what state.json holds while the disk is full
  Run(MakeVerdict(Level::kDrain, {RateDown()}));
  ASSERT_TRUE(node_.drain);
  state_ = recorded;  // the drain could not be written
  Plan p = Run(MakeVerdict(Level::kOk));
  EXPECT_FALSE(p.update.resume);
  EXPECT_FALSE(p.update.features);
  EXPECT_EQ(p.lines, (std::vector<std::string>{
                         "stays drained by railcheck until 3 consecutive clean runs (1 of 3 "
                         "clean runs)",
                         "feature rail_healthy withheld until 3 consecutive clean runs (1 so "
                         "far)"}));
  Run(MakeVerdict(Level::kOk));
  EXPECT_TRUE(node_.drain);
  p = Run(MakeVerdict(Level::kOk));
  EXPECT_TRUE(p.update.resume);
  EXPECT_EQ(*p.update.features, "su1,rail_healthy");
  EXPECT_FALSE(state_.feature_held);
}

TEST_F(Act, AnAdminsDrainIsNeverResumedNorItsReasonChanged) {
  node_.drain = true;
  node_.reason = "bad DIMM, ticket 4711";
  for (int i = 0; i < 10; ++i) {
    Plan p = Run(MakeVerdict(Level::kOk));
    EXPECT_FALSE(p.update.resume);
    EXPECT_FALSE(p.update.drain_reason);
    ASSERT_FALSE(p.lines.empty());
    EXPECT_EQ(p.lines[0],
              "drained by someone else (reason 'bad DIMM, ticket 4711'); railcheck "
              "never resumes it");
  }
  Plan p = Run(MakeVerdict(Level::kDrain, {RateDown()}));
  EXPECT_FALSE(p.update.drain_reason);
  ASSERT_FALSE(p.lines.empty());
  EXPECT_EQ(p.lines[0],
            "drained by someone else (reason 'bad DIMM, ticket 4711'); railcheck "
            "leaves it alone");
  EXPECT_EQ(node_.reason, "bad DIMM, ticket 4711");
}

TEST_F(Act, ARestrictVerdictOnlyTakesTheFeature) {
  Finding errs = RateDown();
  errs.check = "link.errors";
  errs.action = HealthAction::kRestrict;
  Plan p = Run(MakeVerdict(Level::kRestrict, {errs}));
  EXPECT_FALSE(p.update.drain_reason);
  EXPECT_EQ(*p.update.features, "su1");
  EXPECT_EQ(p.lines, (std::vector<std::string>{"remove feature rail_healthy"}));
}

TEST_F(Act, TheFeatureIsReappliedEveryCleanRunBecauseReconfigureDropsIt) {
  node_.features = "su1";  // what `scontrol reconfigure` leaves
  Plan p = Run(MakeVerdict(Level::kOk));
  EXPECT_EQ(*p.update.features, "su1,rail_healthy");
  EXPECT_EQ(*p.update.features_act, "su1,rail_healthy");
  p = Run(MakeVerdict(Level::kOk));
  EXPECT_FALSE(p.update.features);  // nothing to change
}

TEST_F(Act, ExtraCarriesPerRailHealthAndKeepsOtherKeys) {
  Verdict v = MakeVerdict(Level::kDrain, {RateDown()});
  v.rails[3].status = RailStatus::kDegraded;
  EXPECT_EQ(*ExtraJson(v, 1700000000.7, ""),
            "{\"railcheck\":{\"failed\":[\"rail3:port.rate\"],\"rails\":[\"ok\",\"ok\",\"ok\","
            "\"degraded\",\"ok\",\"ok\",\"ok\",\"ok\"],\"time\":1700000000,\"verdict\":"
            "\"drain\"}}");
  EXPECT_EQ(ExtraJson(v, 1, "{\"rack\":\"r12\"}")->rfind("{\"rack\":\"r12\",\"railcheck\":{", 0),
            0u);
  EXPECT_FALSE(ExtraJson(v, 1, "rack r12").has_value());
  node_.extra = "rack r12";
  Plan p = Run(v);
  EXPECT_FALSE(p.update.extra);
  EXPECT_EQ(p.lines.back(),
            "Extra holds text that is not a JSON object; per-rail health not "
            "published there");
}

TEST(DrainReason, IsBoundedPrintableAndCountsTheOthers) {
  Finding a = RateDown();
  Finding b = RateDown();
  b.reason = "rail4 mlx5_6 port DOWN";
  Finding warn = RateDown();
  warn.action = HealthAction::kWarn;
  EXPECT_EQ(DrainReason(MakeVerdict(Level::kDrain, {a, b, warn})),
            "railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s (+1 more)");
  a.reason = std::string(200, 'x') + "\n\x01";
  const std::string r = DrainReason(MakeVerdict(Level::kDrain, {a, b}));
  EXPECT_EQ(r.size(), wire::kMaxReasonChars);
  EXPECT_EQ(r.substr(r.size() - 13), "... (+1 more)");
  for (char c : r) EXPECT_TRUE(c >= 0x20 && c < 0x7f);
}

TEST(WithFeature, AddsAndRemovesOneNameKeepingTheOthersInOrder) {
  EXPECT_EQ(WithFeature("su1,rail_healthy,gpu", "rail_healthy", false), "su1,gpu");
  EXPECT_EQ(WithFeature("su1", "rail_healthy", true), "su1,rail_healthy");
  EXPECT_EQ(WithFeature("", "rail_healthy", true), "rail_healthy");
  EXPECT_EQ(WithFeature("rail_healthy,rail_healthy", "rail_healthy", true), "rail_healthy");
  EXPECT_FALSE(HasFeature("rail_healthy_old", "rail_healthy"));
}

}  // namespace
}  // namespace railguard::health
