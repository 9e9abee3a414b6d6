// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the counter checks (healthcheck/checks_counters.cc): rates since the last run and
// the baseline, counter resets, saturated and N/A counters, on facts built by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "tests/healthcheck/checks_test_util.h"

namespace railguard::health {
namespace {

using namespace check_testing;

TEST_F(Checks, ErrorCountersAreRatesSinceTheLastRunNotAbsoluteValues) {
  facts_.nics[2].port.counters["symbol_error"].value = 5000;  // before the first run
  NextRun(600);
  EXPECT_TRUE(Messages().empty()) << "a high absolute value alone is no finding";
  facts_.nics[2].port.counters["symbol_error"].value = 5050;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 symbol_error +50 in 10 min since the "
                            "last run (50/h) > limit 10/h"}));
  Judgement j = Judge(Input());
  ASSERT_GE(j.verdict.findings.size(), 1u);
  ASSERT_EQ(j.verdict.rails.size(), 8u);
  EXPECT_EQ(j.verdict.findings[0].reason, "rail2 mlx5_4 symbol_error 50/h > 10/h");
  EXPECT_EQ(j.verdict.findings[0].action, HealthAction::kRestrict);
  EXPECT_EQ(j.verdict.level, Level::kRestrict);
  EXPECT_EQ(j.verdict.rails[2].status, RailStatus::kDegraded);
}

TEST_F(Checks, ShortIntervalsAreStretchedToTheMinimumRateInterval) {
  NextRun(5);
  // By default runs under an hour apart compare their plain increase with the limit.
  facts_.nics[2].port.counters["symbol_error"].value = 1;
  EXPECT_TRUE(Messages().empty()) << "one error between a Prolog and an Epilog";
  facts_.nics[2].port.counters["symbol_error"].value = 11;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 symbol_error +11 in 5 s since the last "
                            "run (11/h) > limit 10/h"}));
  // A shorter minimum makes a short interval weigh more: one error over 60 s is 60/h.
  cfg_.min_rate_interval_seconds = 60;
  facts_.nics[2].port.counters["symbol_error"].value = 1;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 symbol_error +1 in 5 s since the last "
                            "run (60/h) > limit 10/h"}));
}

TEST_F(Checks, SlowAccumulationIsCaughtSinceTheBaselineAcrossCounterResets) {
  have_baseline_ = true;
  baseline_.node = "n001";
  baseline_.time = now_;
  baseline_.ports["mlx5_4"].counters["port_rcv_errors"] = 100;
  facts_.nics[2].port.counters["port_rcv_errors"].value = 100;
  NextRun(86400);
  facts_.nics[2].port.counters["port_rcv_errors"].value = 340;  // +240 in a day: 10/h
  NextRun(86400);
  // A reboot resets the counters; the sum since the baseline goes on.
  facts_.nics[2].port.counters["port_rcv_errors"].value = 30;
  Judgement j = Judge(Input());
  EXPECT_EQ(j.next.ports.at("mlx5_4").since_baseline.at("port_rcv_errors"), 270u);
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 1u);  // 270 in 2 days is below 10/h: only the reset is said
  EXPECT_EQ(m[0],
            "link.counters: rail2 mlx5_4 port_rcv_errors went backwards (340 -> 30) "
            "since the last run: the counters were reset (driver restart, reboot or "
            "perfquery -R); counting again from 30");
  cfg_.link_error_limits["port_rcv_errors"] = 5;
  m = Messages();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0],
            "link.errors: rail2 mlx5_4 port_rcv_errors +270 in 2.0 days since the "
            "baseline (5.6/h) > limit 5.0/h");
}

TEST_F(Checks, ASaturatedCounterIsSaidAndNotTakenForErrors) {
  facts_.nics[4].port.counters["port_xmit_wait"].value = 4294967295u;
  facts_.nics[4].port.counters["symbol_error"].value = 65535;
  NextRun(600);
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0],
            "link.counters: rail4 mlx5_6 port_xmit_wait is stuck at 4294967295, the "
            "maximum of its 32-bit counter: its increases are invisible until the "
            "counters are reset");
  EXPECT_EQ(m[1],
            "link.counters: rail4 mlx5_6 symbol_error is stuck at 65535, the maximum of "
            "its 16-bit counter: its increases are invisible until the counters are "
            "reset");
}

TEST_F(Checks, NoPmaCountersAreOneNoteAndNeverAFault) {
  for (auto& kv : facts_.nics[0].port.counters) kv.second.no_pma = true;
  NextRun(600);
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0],
            "link.counters: rail0 mlx5_0 13 of 13 counters read 'N/A (no PMA)': the "
            "device has no performance management agent, so link.errors and link.flap "
            "cannot judge them");
}

}  // namespace
}  // namespace railguard::health
