// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for planning the Slurm changes (healthcheck/act.h): drain once with a railcheck:
// reason, resume only railcheck's own drains after N clean runs, never an admin's, the
// healthy feature kept or withheld, per-rail health in Extra.
#include "healthcheck/act.h"

#include <gtest/gtest.h>

#include "base/names.h"
#include "wire/extra_json.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace healthcheck_act_test {

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
  Plan Run(const Verdict& v, const PlanOptions& opt = PlanOptions()) {
    Plan p = PlanActions(v, node_, state_, cfg_, "rail_healthy", now_, opt);
    now_ += 300;
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
  double now_ = 1700000000;
};

TEST_F(Act, ADrainVerdictDrainsWithARailcheckReasonAndRemovesTheActiveFeature) {
  Plan p = Run(MakeVerdict(Level::kDrain, {RateDown()}));
  ASSERT_TRUE(p.update.drain_reason);
  EXPECT_EQ(*p.update.drain_reason, "railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s");
  // Available stays: a change of the available list alone splits Slurm's config records.
  EXPECT_FALSE(p.update.features);
  ASSERT_TRUE(p.update.features_act);
  EXPECT_EQ(*p.update.features_act, "su1");
  EXPECT_EQ(p.lines, (std::vector<std::string>{
                         "drain n003: railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s",
                         "remove feature rail_healthy"}));
  EXPECT_EQ(state_.drains, 1);
  EXPECT_TRUE(state_.feature_held);
}

TEST_F(Act, ANodeIsDrainedOnceAndNothingIsSentWhileTheSameFaultStays) {
  Run(MakeVerdict(Level::kDrain, {RateDown()}));
  for (int i = 0; i < 5; ++i) {
    Plan p = Run(MakeVerdict(Level::kDrain, {RateDown()}));
    EXPECT_TRUE(p.update.empty());
    ASSERT_FALSE(p.lines.empty());
    EXPECT_EQ(p.lines[0],
              "already drained by railcheck (railcheck: rail3 mlx5_5 rate 200 Gb/s "
              "< 400 Gb/s); reason kept");
  }
  EXPECT_EQ(state_.drains, 1);
}

TEST_F(Act, TheReasonIsRefreshedWhenTheFaultChangesWithoutCountingANewDrain) {
  Run(MakeVerdict(Level::kDrain, {RateDown()}));
  // Rail 3 repaired, rail 5 now down: the reason still named rail 3.
  Finding down = RateDown();
  down.check = "port.state";
  down.rail = 5;
  down.severity = Severity::kDown;
  down.reason = "rail5 mlx5_9 phys_state 2 (Polling) != 5 LinkUp";
  Finding flap = down;
  flap.check = "link.flap";
  flap.severity = Severity::kDegraded;
  flap.reason = "rail5 mlx5_9 link flapping (1 in 0 s)";
  Plan p = Run(MakeVerdict(Level::kDrain, {down, flap}));
  ASSERT_TRUE(p.update.drain_reason);
  EXPECT_EQ(*p.update.drain_reason,
            "railcheck: rail5 mlx5_9 phys_state 2 (Polling) != 5 LinkUp (+1 more)");
  EXPECT_EQ(p.lines[0],
            "reason refreshed, the fault changed: railcheck: rail5 mlx5_9 phys_state 2 (Polling) "
            "!= 5 LinkUp (+1 more) (was: railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s)");
  EXPECT_EQ(state_.drains, 1);
  p = Run(MakeVerdict(Level::kDrain, {down, flap}));
  EXPECT_TRUE(p.update.empty());
  // The port flaps: up again, only link.flap on rail 5. The reason still names rail 5's
  // fault: kept, no RPC for the reason (Extra changes: its failed list is shorter).
  p = Run(MakeVerdict(Level::kDrain, {flap}));
  EXPECT_FALSE(p.update.drain_reason);
  p = Run(MakeVerdict(Level::kDrain, {flap}));
  EXPECT_TRUE(p.update.empty());
  EXPECT_EQ(node_.reason, "railcheck: rail5 mlx5_9 phys_state 2 (Polling) != 5 LinkUp (+1 more)");
}

TEST_F(Act, AHealthyUnchangedNodeGetsNoUpdateThoughTimePasses) {
  Plan p = Run(MakeVerdict(Level::kOk));
  EXPECT_TRUE(p.update.extra);  // first publication
  for (int i = 0; i < 5; ++i) {
    p = Run(MakeVerdict(Level::kOk));
    EXPECT_TRUE(p.update.empty()) << "run " << i << " sends Extra " << p.update.extra.value_or("");
  }
  // The health changes: Extra is rewritten, with this run's time.
  Verdict v = MakeVerdict(Level::kRestrict);
  v.rails[2].status = RailStatus::kDegraded;
  p = Run(v);
  ASSERT_TRUE(p.update.extra);
  EXPECT_NE(p.update.extra->find("\"time\":" + std::to_string(static_cast<long long>(now_ - 300))),
            std::string::npos);
}

TEST_F(Act, APeriodicRunRefreshesAnOldUnchangedExtraAPrologNever) {
  Run(MakeVerdict(Level::kOk));
  PlanOptions periodic;
  periodic.extra_refresh_seconds = 3600;
  for (int i = 0; i < 11; ++i) EXPECT_TRUE(Run(MakeVerdict(Level::kOk), periodic).update.empty());
  Plan prolog = PlanActions(MakeVerdict(Level::kOk), node_, state_, cfg_, "rail_healthy", now_);
  EXPECT_TRUE(prolog.update.empty());
  Plan p = Run(MakeVerdict(Level::kOk), periodic);  // 3600 s after the publication
  ASSERT_TRUE(p.update.extra);
  EXPECT_EQ(p.lines.back(), "Extra refreshed: the same health, published 60 min ago");
}

TEST_F(Act, APendingRebootIsNeverCancelledByAResume) {
  cfg_.resume_after_clean_runs = 2;
  Run(MakeVerdict(Level::kDrain, {RateDown()}));
  node_.held_flags = {"REBOOT_REQUESTED"};
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(Run(MakeVerdict(Level::kOk)).update.resume);
  Plan p = Run(MakeVerdict(Level::kOk));
  EXPECT_EQ(p.lines[0],
            "stays drained: the node is REBOOT_REQUESTED (resuming would cancel a pending reboot "
            "or power action); 5 clean runs so far");
  node_.held_flags.clear();  // rebooted
  EXPECT_TRUE(Run(MakeVerdict(Level::kOk)).update.resume);
}

TEST_F(Act, SomeoneElsesReasonOnANodeNotDrainedIsNotOverwritten) {
  node_.down = true;
  node_.reason = "power supply, ticket 99";
  Plan p = Run(MakeVerdict(Level::kDrain, {RateDown()}));
  EXPECT_FALSE(p.update.drain_reason);
  EXPECT_EQ(p.lines[0],
            "not drained but carries someone else's reason ('power supply, ticket 99'); "
            "railcheck leaves it alone");
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
  EXPECT_FALSE(p.update.features);  // still available
  ASSERT_TRUE(p.update.features_act);
  EXPECT_EQ(*p.update.features_act, "su1,rail_healthy");
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
  ASSERT_TRUE(p.update.features_act);
  EXPECT_EQ(*p.update.features_act, "su1,rail_healthy");
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
  EXPECT_FALSE(p.update.features);
  ASSERT_TRUE(p.update.features_act);
  EXPECT_EQ(*p.update.features_act, "su1");
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

// health.mode: observe. The plan is judged as in enforce mode, but nothing is sent to Slurm
// except Extra, which says what would have been done.
TEST_F(Act, ObserveModeDrainsNothingAndPublishesWhatItWouldDo) {
  cfg_.mode = HealthMode::kObserve;
  PlanOptions prolog;
  prolog.prolog = true;
  for (int run = 0; run < 3; ++run) {  // nothing changes, so every run says the same
    Plan p = Run(MakeVerdict(Level::kDrain, {RateDown()}), prolog);
    EXPECT_FALSE(p.update.drain_reason);
    EXPECT_FALSE(p.update.resume);
    EXPECT_FALSE(p.update.features);
    EXPECT_FALSE(p.update.features_act);
    EXPECT_EQ(p.lines,
              (std::vector<std::string>{
                  "would drain n003: railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s (observe "
                  "mode: not done)",
                  "would remove feature rail_healthy (observe mode: not done)",
                  "would fail the Prolog, and Slurm requeue the job (observe mode: not done)"}));
  }
  EXPECT_FALSE(node_.drain);
  EXPECT_EQ(node_.features, "su1,rail_healthy");
  EXPECT_EQ(state_.drains, 0);
  wire::RailcheckExtra published;
  std::string err;
  ASSERT_EQ(wire::ReadExtra(node_.extra, wire::ExtraReadMode::kStrict, &published, &err),
            wire::ExtraStatus::kOk)
      << err;
  ASSERT_TRUE(published.would);
  EXPECT_EQ(*published.would, (std::vector<std::string>{"drain", "requeue"}));
  EXPECT_EQ(published.verdict, "drain");

  // A restrict finding in a periodic run: "restrict", no requeue.
  Finding errs = RateDown();
  errs.check = "link.errors";
  errs.action = HealthAction::kRestrict;
  Plan p = Run(MakeVerdict(Level::kRestrict, {errs}));
  EXPECT_TRUE(p.update.extra);
  ASSERT_EQ(wire::ReadExtra(node_.extra, wire::ExtraReadMode::kStrict, &published, &err),
            wire::ExtraStatus::kOk);
  EXPECT_EQ(*published.would, (std::vector<std::string>{"restrict"}));
  EXPECT_EQ(node_.features, "su1,rail_healthy");

  // Healthy: an empty "would" (observe mode, nothing to do).
  Run(MakeVerdict(Level::kOk));
  ASSERT_EQ(wire::ReadExtra(node_.extra, wire::ExtraReadMode::kStrict, &published, &err),
            wire::ExtraStatus::kOk);
  ASSERT_TRUE(published.would);
  EXPECT_TRUE(published.would->empty());

  // Enforce mode writes no "would" at all.
  cfg_.mode = HealthMode::kEnforce;
  Run(MakeVerdict(Level::kOk));
  ASSERT_EQ(wire::ReadExtra(node_.extra, wire::ExtraReadMode::kStrict, &published, &err),
            wire::ExtraStatus::kOk);
  EXPECT_FALSE(published.would);
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

// A slurmctld in memory where someone else acts too: `admin` runs before RPC number `at`
// (0-based) is served, as an admin's scontrol would land between railcheck's RPCs.
class RacingSlurm : public testing::FakeSlurm {
 public:
  int calls = 0;
  int at = -1;
  std::function<void(SlurmNode*)> admin;

  bool GetNode(const std::string& name, SlurmNode* out, std::string* err) override {
    Before(name);
    return FakeSlurm::GetNode(name, out, err);
  }
  bool UpdateNode(const std::string& name, const NodeUpdate& u, std::string* err) override {
    Before(name);
    return FakeSlurm::UpdateNode(name, u, err);
  }

 private:
  void Before(const std::string& name) {
    if (calls++ == at && admin) admin(&nodes[name]);
  }
};

void AdminDrains(SlurmNode* n) {
  n->drain = true;
  n->reason = "admin: reseat GPU 3, ticket 4711";
}

class ActOn : public ::testing::Test {
 protected:
  void SetUp() override { slurm_.nodes["n003"] = Idle(); }

  ActResult Act(const Verdict& v) {
    ActRequest rq;
    rq.node = "n003";
    rq.verdict = &v;
    rq.next = state_;
    rq.health = &cfg_;
    rq.feature = "rail_healthy";
    rq.now = now_;
    rq.pause_before_write = pause_;
    now_ += 300;
    slurm_.calls = 0;
    ActResult a = ActOnNode(&slurm_, rq);
    if (a.ok) state_ = a.plan.next;
    return a;
  }
  const SlurmNode& Node() { return slurm_.nodes["n003"]; }

  RacingSlurm slurm_;
  RunState state_;
  HealthConfig cfg_;
  double now_ = 1700000000;
  std::function<void()> pause_;
};

TEST_F(ActOn, AHealthyUnchangedNodeCostsOneReadAndNoWrite) {
  ActResult a = Act(MakeVerdict(Level::kOk));
  EXPECT_EQ(a.reads, 1);
  EXPECT_EQ(a.writes, 1);  // the feature and the first Extra
  for (int i = 0; i < 3; ++i) {
    a = Act(MakeVerdict(Level::kOk));
    EXPECT_TRUE(a.ok);
    EXPECT_EQ(a.reads, 1);
    EXPECT_EQ(a.writes, 0);
  }
  EXPECT_EQ(slurm_.updates.size(), 1u);
}

TEST_F(ActOn, ADrainIsReadAgainBeforeItsWriteAndReadBackAfter) {
  ActResult a = Act(MakeVerdict(Level::kDrain, {RateDown()}));
  EXPECT_TRUE(a.ok);
  EXPECT_EQ(a.reads, 3);
  EXPECT_EQ(a.writes, 1);
  EXPECT_EQ(Node().reason, "railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s");
  EXPECT_TRUE(a.problems.empty());
}

TEST_F(ActOn, AnAdminsDrainBetweenRailchecksReadAndWriteIsKept) {
  slurm_.at = 1;  // after the read the plan is made from, before the write
  slurm_.admin = AdminDrains;
  ActResult a = Act(MakeVerdict(Level::kDrain, {RateDown()}));
  EXPECT_TRUE(a.ok);
  EXPECT_TRUE(Node().drain);
  EXPECT_EQ(Node().reason, "admin: reseat GPU 3, ticket 4711");
  for (const NodeUpdate& u : slurm_.updates) EXPECT_FALSE(u.drain_reason);
  ASSERT_GE(a.plan.lines.size(), 2u);
  EXPECT_EQ(a.plan.lines[0],
            "the node changed in slurmctld after it was read (reason 'admin: reseat GPU 3, "
            "ticket 4711'): planned again");
  EXPECT_EQ(a.plan.lines[1],
            "drained by someone else (reason 'admin: reseat GPU 3, ticket 4711'); railcheck "
            "leaves it alone");
  EXPECT_EQ(a.plan.next.drains, 0);
  // And it is never resumed, however many clean runs follow.
  slurm_.at = -1;
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(Act(MakeVerdict(Level::kOk)).plan.update.resume);
  EXPECT_EQ(Node().reason, "admin: reseat GPU 3, ticket 4711");
}

TEST_F(ActOn, AnAdminsDrainDuringThePauseBeforeAResumeIsNotResumed) {
  cfg_.resume_after_clean_runs = 1;
  Act(MakeVerdict(Level::kDrain, {RateDown()}));
  ASSERT_TRUE(Node().drain);
  pause_ = [this]() { AdminDrains(&slurm_.nodes["n003"]); };
  ActResult a = Act(MakeVerdict(Level::kOk));
  EXPECT_TRUE(Node().drain);
  EXPECT_EQ(Node().reason, "admin: reseat GPU 3, ticket 4711");
  for (const NodeUpdate& u : slurm_.updates) EXPECT_FALSE(u.resume);
  EXPECT_EQ(a.plan.next.resumes, 0);
}

TEST_F(ActOn, AnAdminsDrainRightAfterRailchecksResumeIsSeenAndKept) {
  cfg_.resume_after_clean_runs = 1;
  Act(MakeVerdict(Level::kDrain, {RateDown()}));
  slurm_.at = 3;  // read, read again, resume, [admin], read back
  slurm_.admin = AdminDrains;
  ActResult a = Act(MakeVerdict(Level::kOk));
  EXPECT_TRUE(a.plan.update.resume);
  EXPECT_EQ(Node().reason, "admin: reseat GPU 3, ticket 4711");
  EXPECT_EQ(a.plan.lines.back(),
            "read back after the update, the node is drained (reason 'admin: reseat GPU 3, "
            "ticket 4711'): someone else changed it right after railcheck; kept");
  slurm_.at = -1;
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(Act(MakeVerdict(Level::kOk)).plan.update.resume);
}

TEST_F(ActOn, SlurmUnreachableWritesNothingAndSaysSo) {
  ActRequest rq;
  Verdict v = MakeVerdict(Level::kOk);
  rq.node = "n003";
  rq.verdict = &v;
  rq.health = &cfg_;
  rq.feature = "rail_healthy";
  ActResult a = ActOnNode(nullptr, rq);
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.reads, 0);
  slurm_.reachable = false;
  a = ActOnNode(&slurm_, rq);
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.problems,
            (std::vector<std::string>{"Unable to contact slurm controller (connect failure)"}));
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

}  // namespace healthcheck_act_test
}  // namespace railguard::health
