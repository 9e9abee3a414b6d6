// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the events one railcheck run derives for the event log (healthcheck/run_events.h).
#include "healthcheck/run_events.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "healthcheck/act.h"
#include "healthcheck/checks.h"

namespace railguard::health {
namespace healthcheck_run_events_test {

using wire::EventFromJsonLine;
using wire::EventKind;
using wire::EventToJsonLine;
using wire::HealthEvent;
using wire::kMaxEventLineBytes;

Verdict VerdictWith(const std::vector<RailStatus>& rails) {
  Verdict v;
  for (size_t k = 0; k < rails.size(); ++k)
    v.rails.push_back({static_cast<int>(k), "mlx5_" + std::to_string(k), rails[k]});
  return v;
}

TEST(EventsForRun, ARailThatDegradesSinceTheLastPublishedStateIsOneEventWithItsCounters) {
  SlurmNode before;
  before.name = "n003";
  before.features = "su1,rail_healthy";
  before.extra = "{\"railcheck\":{\"time\":1,\"verdict\":\"ok\",\"rails\":[\"ok\",\"ok\"]}}";
  Verdict v = VerdictWith({RailStatus::kOk, RailStatus::kDegraded});
  Finding f;
  f.check = "link.errors";
  f.rail = 1;
  f.severity = Severity::kDegraded;
  f.message = "link.errors: rail1 mlx5_1 symbol_error 540/h > 10/h";
  v.findings.push_back(f);
  v.level = Level::kRestrict;
  Plan plan;
  plan.update.features = "su1";
  plan.update.features_act = "su1";
  CounterMoves h;
  h.since_last_seconds = 600;
  PortMoves pm;
  pm.rail = 1;
  CounterMove m;
  m.key = "symbol_error";
  m.value = 1234;
  m.since_last = 90;
  pm.moves.push_back(m);
  CounterMove still;
  still.key = "port_rcv_errors";
  still.value = 7;
  pm.moves.push_back(still);
  h.ports.push_back(pm);

  const std::vector<HealthEvent> ev = EventsForRun(before, v, plan, h, "rail_healthy", 5000);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::kDegraded);
  EXPECT_EQ(ev[0].rail, 1);
  EXPECT_EQ(ev[0].nic, "mlx5_1");
  EXPECT_EQ(ev[0].checks, std::vector<std::string>{"link.errors"});
  EXPECT_EQ(ev[0].detail, f.message);
  ASSERT_EQ(ev[0].counters.size(), 1u);
  EXPECT_EQ(ev[0].counters[0].name, "symbol_error");
  EXPECT_EQ(ev[0].counters[0].PerHour(), 540);
  EXPECT_EQ(ev[1].kind, EventKind::kRestricted);
  EXPECT_EQ(ev[1].rail, -1);
  EXPECT_EQ(ev[1].time, 5000);
}

TEST(EventsForRun, UnchangedStateGivesNoEventsAndRecoveryDrainResumeAndFlapsDo) {
  SlurmNode before;
  before.name = "n1";
  before.extra = "{\"railcheck\":{\"rails\":[\"degraded\",\"ok\"]}}";
  before.features = "rail_healthy";
  Verdict same = VerdictWith({RailStatus::kDegraded, RailStatus::kOk});
  EXPECT_TRUE(EventsForRun(before, same, Plan(), CounterMoves(), "rail_healthy", 1).empty());

  Verdict healed = VerdictWith({RailStatus::kOk, RailStatus::kDown});
  Plan plan;
  plan.update.drain_reason = "railcheck: rail1 mlx5_1 port DOWN";
  CounterMoves h;
  PortMoves flap;
  flap.rail = 0;
  flap.downs_now = 1;
  flap.link_downed_change = "link_downed 3 -> 4";
  h.ports.push_back(flap);
  const std::vector<HealthEvent> ev = EventsForRun(before, healed, plan, h, "rail_healthy", 2);
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].kind, EventKind::kRecovered);
  EXPECT_EQ(ev[1].kind, EventKind::kFlap);
  EXPECT_EQ(ev[1].detail, "link_downed 3 -> 4");
  EXPECT_EQ(ev[2].kind, EventKind::kDown);
  EXPECT_EQ(ev[2].rail, 1);
  EXPECT_EQ(ev[3].kind, EventKind::kDrained);
  EXPECT_EQ(ev[3].detail, "railcheck: rail1 mlx5_1 port DOWN");

  Plan resume;
  resume.update.resume = true;
  before.reason = "railcheck: old";
  const std::vector<HealthEvent> r = EventsForRun(before, same, resume, CounterMoves(), "x", 3);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, EventKind::kResumed);
}

TEST(EventsForRun, EveryEventItMakesSurvivesTheLog) {
  SlurmNode before;
  before.name = "n\"odd\\name";
  Verdict v = VerdictWith({RailStatus::kDown});
  Finding f;
  f.check = "port.state";
  f.rail = 0;
  f.severity = Severity::kDown;
  f.message = std::string(5000, 'x');
  v.findings.push_back(f);
  for (const HealthEvent& e : EventsForRun(before, v, Plan(), CounterMoves(), "f", 1)) {
    std::string line = EventToJsonLine(e);
    ASSERT_EQ(line.back(), '\n');
    line.pop_back();
    EXPECT_LT(line.size(), kMaxEventLineBytes);
    HealthEvent back;
    std::string err;
    ASSERT_TRUE(EventFromJsonLine(line, &back, &err)) << err;
    EXPECT_EQ(back.node, before.name);
  }
}

}  // namespace healthcheck_run_events_test
}  // namespace railguard::health
