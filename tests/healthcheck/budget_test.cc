// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the drain budget (healthcheck/budget.h) and ActOnNode keeping it: a fault that
// hits every node takes out only the budget, the rest stay in service with "budget":"over";
// railchecks racing for the last place settle on the fair order; a repair frees the place.
#include "healthcheck/budget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "tests/healthcheck/health_test_util.h"
#include "wire/extra_json.h"

namespace railguard::health {
namespace healthcheck_budget_test {

Verdict Healthy() {
  Verdict v;
  v.level = Level::kOk;
  for (int k = 0; k < 8; ++k) v.rails.push_back(RailHealth{k, "mlx5_" + std::to_string(k)});
  return v;
}

// A verdict at `level` with one finding of `check` on `rail`.
Verdict Faulty(Level level, const std::string& check, int rail, HealthAction action,
               const std::string& reason) {
  Verdict v = Healthy();
  v.level = level;
  v.rails[static_cast<size_t>(rail)].status = RailStatus::kDegraded;
  v.findings.push_back(
      Finding{check, rail, Severity::kDegraded, action, check + ": " + reason, reason});
  return v;
}

Verdict Drain() {
  return Faulty(Level::kDrain, "port.state", 3, HealthAction::kDrain, "rail3 mlx5_3 port DOWN");
}

std::string Name(int i) {
  char b[8];
  std::snprintf(b, sizeof b, "n%03d", i);
  return b;
}

wire::RailcheckExtra ExtraOfNode(const SlurmNode& n) {
  wire::RailcheckExtra r;
  std::string err;
  EXPECT_EQ(wire::ReadExtra(n.extra, wire::ExtraReadMode::kStrict, &r, &err),
            wire::ExtraStatus::kOk)
      << err;
  return r;
}

// A slurmctld whose `during_update` runs inside every UpdateNode, before it is applied: the
// write of another railcheck landing at the same moment.
class Racing : public testing::FakeSlurm {
 public:
  std::function<void()> during_update;
  bool UpdateNode(const std::string& name, const NodeUpdate& u, std::string* err) override {
    if (during_update) {
      auto f = std::move(during_update);
      during_update = nullptr;
      f();
    }
    return FakeSlurm::UpdateNode(name, u, err);
  }
};

class Budget : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 1; i <= 32; ++i) {
      SlurmNode n;
      n.features = "su1,rail_healthy";
      slurm_.nodes[Name(i)] = n;
    }
    cfg_.drain_budget_nodes = 3;
  }

  ActResult Run(int i, const Verdict& v, bool prolog = false) {
    ActRequest rq;
    rq.node = Name(i);
    rq.verdict = &v;
    rq.next = state_[i];
    rq.health = &cfg_;
    rq.feature = "rail_healthy";
    rq.now = now_ += 1;
    rq.options.prolog = prolog;
    rq.budget = BudgetLimit(cfg_, 32);
    ActResult a = ActOnNode(&slurm_, rq);
    if (a.ok) state_[i] = a.plan.next;
    return a;
  }
  int Drained() {
    int n = 0;
    for (const auto& [name, node] : slurm_.nodes) n += node.drain;
    return n;
  }

  Racing slurm_;
  HealthConfig cfg_;
  RunState state_[33];
  double now_ = 1700000000;
};

TEST(BudgetLimit, ACountOrAPercentOfTheTopologyAtLeastFour) {
  HealthConfig h;
  EXPECT_EQ(BudgetLimit(h, 4096), 204);  // the default: 5%
  EXPECT_EQ(BudgetLimit(h, 32), 4);      // 5% is 1 node: a percentage gives at least 4
  h.drain_budget_nodes = 1;              // a count may be smaller
  EXPECT_EQ(BudgetLimit(h, 32), 1);
  h.drain_budget_nodes = 0;
  h.drain_budget_percent = 50;
  EXPECT_EQ(BudgetLimit(h, 32), 16);
  h.drain_budget_nodes = 7;
  EXPECT_EQ(BudgetLimit(h, 32), 7);
}

TEST_F(Budget, AFaultOnEveryNodeDrainsOnlyTheBudgetAndTheRestStayInService) {
  for (int i = 1; i <= 32; ++i) {
    ActResult a = Run(i, Drain(), /*prolog=*/true);
    EXPECT_TRUE(a.ok) << Name(i);
    EXPECT_EQ(a.over_budget, i > 3) << Name(i);
  }
  EXPECT_EQ(Drained(), 3);
  EXPECT_TRUE(slurm_.nodes["n001"].drain);
  EXPECT_TRUE(slurm_.nodes["n003"].drain);
  const SlurmNode& left = slurm_.nodes["n004"];
  EXPECT_FALSE(left.drain);
  EXPECT_EQ(testing::ActiveFeatures(left), "su1,rail_healthy");  // still takes multi-node jobs
  wire::RailcheckExtra r = ExtraOfNode(left);
  EXPECT_TRUE(r.over_budget);
  EXPECT_EQ(r.verdict, "drain");
  ASSERT_TRUE(r.healthy);
  EXPECT_TRUE(*r.healthy);  // the keeper gives the feature back after a restart
  // Later runs of a node over the budget change nothing and say why.
  ActResult again = Run(20, Drain());
  EXPECT_TRUE(again.over_budget);
  EXPECT_FALSE(slurm_.nodes["n020"].drain);
  EXPECT_NE(std::find_if(again.plan.lines.begin(), again.plan.lines.end(),
                         [](const std::string& l) {
                           return l.rfind("over the drain budget: railcheck holds 3 nodes out of "
                                          "multi-node jobs (budget 3), ",
                                          0) == 0;
                         }),
            again.plan.lines.end());
  // Healthy nodes never ask for the node list.
  const int lists = slurm_.lists;
  Run(32, Healthy());
  EXPECT_EQ(slurm_.lists, lists);
}

TEST_F(Budget, ARepairFreesThePlaceForTheFirstNodeWaiting) {
  for (int i = 1; i <= 6; ++i) Run(i, Drain());
  EXPECT_EQ(Drained(), 3);
  // n002 is repaired: after its clean runs railcheck resumes it.
  for (int run = 0; run < cfg_.resume_after_clean_runs; ++run) Run(2, Healthy());
  EXPECT_FALSE(slurm_.nodes["n002"].drain);
  // n006 runs before n004: n004 waits before it, so n006 stays in service ...
  EXPECT_TRUE(Run(6, Drain()).over_budget);
  EXPECT_FALSE(slurm_.nodes["n006"].drain);
  // ... and n004, the first waiting, takes the place.
  EXPECT_FALSE(Run(4, Drain()).over_budget);
  EXPECT_TRUE(slurm_.nodes["n004"].drain);
  EXPECT_FALSE(ExtraOfNode(slurm_.nodes["n004"]).over_budget);
  EXPECT_EQ(Drained(), 3);
}

TEST_F(Budget, RailchecksRacingForTheLastPlaceSettleOnTheFairOrder) {
  Run(1, Drain());
  Run(2, Drain());
  // n009 finds one place left; while its drain is on the wire, n005's railcheck (which also
  // found the place free) drains n005.
  slurm_.during_update = [this] {
    SlurmNode& other = slurm_.nodes["n005"];
    other.drain = true;
    other.reason = "railcheck: rail3 mlx5_3 port DOWN";
    other.features = "su1";
  };
  ActResult a = Run(9, Drain(), /*prolog=*/true);
  // After its write n009 reads the table again: 4 held out, and n005 is before it.
  EXPECT_TRUE(a.over_budget);
  EXPECT_FALSE(slurm_.nodes["n009"].drain);
  EXPECT_EQ(testing::ActiveFeatures(slurm_.nodes["n009"]), "su1,rail_healthy");
  EXPECT_TRUE(ExtraOfNode(slurm_.nodes["n009"]).over_budget);
  EXPECT_EQ(Drained(), 3);
}

TEST_F(Budget, AWorseFindingTakesThePlaceOfARestrictedNode) {
  cfg_.drain_budget_nodes = 1;
  const Verdict restrict =
      Faulty(Level::kRestrict, "link.errors", 2, HealthAction::kRestrict, "rail2 symbol errors");
  EXPECT_FALSE(Run(7, restrict).over_budget);
  EXPECT_EQ(testing::ActiveFeatures(slurm_.nodes["n007"]),
            "su1");                                 // restricted: the place is taken
  EXPECT_TRUE(Run(8, Drain()).over_budget);         // a drain finding waits ...
  EXPECT_TRUE(Run(7, restrict).over_budget);        // ... so the restricted node gives way
  EXPECT_EQ(testing::ActiveFeatures(slurm_.nodes["n007"]), "su1,rail_healthy");
  EXPECT_FALSE(Run(8, Drain()).over_budget);  // and the drain takes the place
  EXPECT_TRUE(slurm_.nodes["n008"].drain);
}

TEST_F(Budget, WithoutTheNodeListTheNodeStaysInServiceAndSaysWhy) {
  // The node can be read, the list cannot (slurmctld overloaded mid-run).
  class NoList : public testing::FakeSlurm {
   public:
    bool ListNodes(std::vector<SlurmNode>*, std::string* err) override {
      *err = "Socket timed out on send/recv operation";
      return false;
    }
  };
  NoList s;
  s.nodes["n001"].features = "su1,rail_healthy";
  Verdict v = Drain();
  ActRequest rq;
  rq.node = "n001";
  rq.verdict = &v;
  rq.health = &cfg_;
  rq.feature = "rail_healthy";
  rq.now = now_;
  rq.budget = 3;
  ActResult a = ActOnNode(&s, rq);
  EXPECT_TRUE(a.over_budget);
  EXPECT_FALSE(s.nodes["n001"].drain);
  ASSERT_FALSE(a.problems.empty());
  EXPECT_EQ(a.problems[0], "Socket timed out on send/recv operation");
}

}  // namespace healthcheck_budget_test
}  // namespace railguard::health
