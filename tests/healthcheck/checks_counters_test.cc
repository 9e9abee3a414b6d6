// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the counter checks (healthcheck/checks_counters.cc): rates over sliding windows
// (bursts age out), any increase of the 4-bit counters, saturated, reset and N/A counters,
// reboots seen by the boot id, on facts built by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "healthcheck/rate_window.h"
#include "tests/healthcheck/checks_test_util.h"

namespace railguard::health {
namespace healthcheck_checks_counters_test {

using namespace check_testing;

TEST_F(Checks, ErrorCountersAreRatesOverTheLastHourNotAbsoluteValues) {
  facts_.nics[2].port.counters["symbol_error"].value = 5000;  // before the first run
  NextRun(600);
  EXPECT_TRUE(Messages().empty()) << "a high absolute value alone is no finding";
  facts_.nics[2].port.counters["symbol_error"].value = 5100;
  EXPECT_TRUE(Messages().empty()) << "100 in an hour is below the IBTA bound of 120/h";
  facts_.nics[2].port.counters["symbol_error"].value = 5150;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 symbol_error +150 in the last 60 min "
                            "(150/h) > limit 120/h"}));
  Judgement j = Judge(Input());
  ASSERT_GE(j.verdict.findings.size(), 1u);
  ASSERT_EQ(j.verdict.rails.size(), 8u);
  EXPECT_EQ(j.verdict.findings[0].reason, "rail2 mlx5_4 symbol_error 150/h > 120/h");
  EXPECT_EQ(j.verdict.findings[0].action, HealthAction::kRestrict);
  EXPECT_EQ(j.verdict.level, Level::kRestrict);
  EXPECT_EQ(j.verdict.rails[2].status, RailStatus::kDegraded);
}

// A RoCE rail's IB counters/ mean nothing: its link is judged by eth.* from its netdev.
TEST_F(Checks, TheIbCountersOfARoceRailAreNotJudged) {
  facts_.nics[2].port.link_layer = Val(std::string("Ethernet"), "Ethernet");
  facts_.nics[2].port.counters["symbol_error"].value = 5000;
  NextRun(600);
  facts_.nics[2].port.counters["symbol_error"].value = 9000;
  for (const std::string& m : Messages())
    EXPECT_EQ(m.find("rail2 mlx5_4 symbol_error"), std::string::npos) << m;
}

TEST_F(Checks, AWindowIsNeverAveragedOverLessThanTheMinimumRateInterval) {
  cfg_.rate_windows_seconds = {60};
  cfg_.min_rate_interval_seconds = 60;
  NextRun(5);
  // One error in 5 s, in a one-minute window: 60/h.
  facts_.nics[2].port.counters["port_rcv_errors"].value = 1;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 port_rcv_errors +1 in the last 60 s "
                            "(60/h) > limit 10/h"}));
  // The default minimum of an hour stretches the window: 1/h.
  cfg_.min_rate_interval_seconds = 3600;
  EXPECT_TRUE(Messages().empty());
}

// A cable reseat: 1,500 symbol errors at once, then a clean link. Since-the-baseline rates
// kept link.errors failing for 1500/10 = 150 hours; over the last hour it clears after an
// hour, since 1,500 is below a day's worth of the limit (24 * 120).
TEST_F(Checks, ABurstAgesOutOfTheWindows) {
  have_baseline_ = true;
  baseline_.node = "n001";
  baseline_.time = now_;
  baseline_.ports["mlx5_4"].counters["symbol_error"] = 0;
  NextRun(300);
  facts_.nics[2].port.counters["symbol_error"].value = 1500;
  const std::string burst =
      "link.errors: rail2 mlx5_4 symbol_error +1500 in the last 60 min (1500/h) > limit 120/h";
  EXPECT_EQ(Messages(), std::vector<std::string>{burst});
  // Clean runs every 10 minutes: the burst stays inside the hour for 50 more minutes...
  for (int run = 1; run <= 5; ++run) {
    NextRun(600);
    EXPECT_EQ(Messages(), std::vector<std::string>{burst}) << "run " << run;
  }
  // ... and is out of it at the next run.
  NextRun(600);
  EXPECT_TRUE(Messages().empty());
  EXPECT_EQ(last_.ports.at("mlx5_4").recent.at("symbol_error").size(), 1u);
  // The day window keeps the sample for a day, then the state forgets it.
  NextRun(86400);
  NextRun(600);
  EXPECT_EQ(last_.ports.at("mlx5_4").recent.count("symbol_error"), 0u);
}

TEST_F(Checks, ABurstAboveADaysWorthStaysForTheDay) {
  NextRun(300);
  facts_.nics[2].port.counters["symbol_error"].value = 3000;
  NextRun(7200);
  // Out of the hour; 3000 in a day is 125/h, above 120/h.
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 symbol_error +3000 in the last 24.0 h "
                            "(125/h) > limit 120/h"}));
  NextRun(86400 - 7200);
  EXPECT_TRUE(Messages().empty());
}

// Runs far apart: an increase seen after a long gap is averaged over the gap, not taken as a
// burst of the last hour.
TEST_F(Checks, AnIncreaseAfterALongGapIsAveragedOverTheGap) {
  NextRun(3 * 86400);
  facts_.nics[2].port.counters["symbol_error"].value = 3000;  // 3000 in 3 days: 42/h
  EXPECT_TRUE(Messages().empty());
  NextRun(600);
  facts_.nics[2].port.counters["symbol_error"].value = 3200;  // then a burst of 200
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 symbol_error +200 in the last 60 min "
                            "(200/h) > limit 120/h"}));
}

// The 4-bit counters stop at 15: a per-hour limit of 10 could never be met in practice.
// Any increase fails (NVSentinel treats one as fatal), for the shortest window.
TEST_F(Checks, FourBitCountersFailOnAnyIncrease) {
  NextRun(600);
  facts_.nics[5].port.counters["local_link_integrity_errors"].value = 1;
  facts_.nics[6].port.counters["excessive_buffer_overrun_errors"].value = 2;
  const std::vector<std::string> both = {
      "link.errors: rail5 mlx5_9 local_link_integrity_errors +1 in the last 60 min; expected "
      "no increase",
      "link.errors: rail6 mlx5_10 excessive_buffer_overrun_errors +2 in the last 60 min; "
      "expected no increase"};
  EXPECT_EQ(Messages(), both);
  Judgement j = Judge(Input());
  ASSERT_GE(j.verdict.findings.size(), 2u);
  EXPECT_EQ(j.verdict.findings[0].reason, "rail5 mlx5_9 local_link_integrity_errors +1");
  EXPECT_EQ(j.verdict.level, Level::kRestrict);
  NextRun(1800);
  EXPECT_EQ(Messages(), both) << "held for the hour";
  NextRun(1800);
  EXPECT_TRUE(Messages().empty()) << "then it ages out";
}

TEST_F(Checks, LinkDownedFailsLinkFlapOnAnyIncrease) {
  NextRun(600);
  facts_.nics[1].port.counters["link_downed"].value = 1;
  ASSERT_EQ(Messages().size(), 1u);
  Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.findings[0].check, "link.flap");
  EXPECT_EQ(j.verdict.level, Level::kDrain);
}

TEST_F(Checks, ASaturatedErrorCounterRestrictsAndSaysToClearTheCounters) {
  facts_.nics[4].port.counters["port_xmit_wait"].value = 4294967295u;
  facts_.nics[4].port.counters["symbol_error"].value = 65535;
  facts_.nics[4].port.counters["local_link_integrity_errors"].value = 15;
  NextRun(600);
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0],
            "link.errors: rail4 mlx5_6 local_link_integrity_errors is stuck at 15, the maximum "
            "of its 4-bit counter: new errors are invisible, so it cannot be judged; read the "
            "port's counters and then clear them (perfquery -x -R -C mlx5_6 -P 1)");
  EXPECT_EQ(m[1],
            "link.errors: rail4 mlx5_6 symbol_error is stuck at 65535, the maximum of its "
            "16-bit counter: new errors are invisible, so it cannot be judged; read the port's "
            "counters and then clear them (perfquery -x -R -C mlx5_6 -P 1)");
  // port_xmit_wait (congestion) is not judged unless listed: a note.
  EXPECT_EQ(m[2],
            "link.counters: rail4 mlx5_6 port_xmit_wait is stuck at 4294967295, the "
            "maximum of its 32-bit counter: its increases are invisible until the "
            "counters are reset");
  Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.level, Level::kRestrict);
  EXPECT_EQ(j.verdict.findings[0].reason,
            "rail4 mlx5_6 local_link_integrity_errors saturated, clear counters");
  // Once cleared (perfquery -R) the counter went backwards: judged again, nothing found.
  facts_.nics[4].port.counters["symbol_error"].value = 0;
  facts_.nics[4].port.counters["local_link_integrity_errors"].value = 0;
  facts_.nics[4].port.counters["port_xmit_wait"].value = 0;
  NextRun(600);
  EXPECT_TRUE(Messages().empty());
}

TEST_F(Checks, CounterResetsAreSaidAndTheSumSinceTheBaselineGoesOn) {
  have_baseline_ = true;
  baseline_.node = "n001";
  baseline_.time = now_;
  baseline_.ports["mlx5_4"].counters["port_rcv_errors"] = 100;
  facts_.nics[2].port.counters["port_rcv_errors"].value = 100;
  NextRun(86400);
  facts_.nics[2].port.counters["port_rcv_errors"].value = 105;
  NextRun(86400);
  // The counters were cleared; the sum since the baseline goes on.
  facts_.nics[2].port.counters["port_rcv_errors"].value = 3;
  Judgement j = Judge(Input());
  EXPECT_EQ(j.next.ports.at("mlx5_4").since_baseline.at("port_rcv_errors"), 8u);
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.counters: rail2 mlx5_4 port_rcv_errors went backwards (105 -> "
                            "3) since the last run: the counters were reset (driver restart, "
                            "reboot or perfquery -R); counting again from 3"}));
}

// A reboot restarts the counters from zero; one that already counted past its last value
// again does not go backwards, and only the boot id tells.
TEST_F(Checks, ARebootSeenByTheBootIdRestartsTheCounters) {
  facts_.boot_id = Val(std::string("0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b"), "");
  facts_.nics[2].port.counters["port_rcv_errors"].value = 20;
  facts_.pci.at(Bdf(0x4f)).aer_correctable.value.value->total = 7;
  NextRun(600);
  EXPECT_EQ(last_.boot_id, "0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b");
  facts_.boot_id = Val(std::string("9a3e4f10-2b3c-4d5e-8f70-112233445566"), "");
  facts_.nics[2].port.counters["port_rcv_errors"].value = 25;  // 25 since the boot
  facts_.pci.at(Bdf(0x4f)).aer_correctable.value.value->total = 9;
  CounterMoves h = ComputeCounterMoves(Input());
  const std::vector<AerMove>& aer = h.aer.at(Bdf(0x4f));
  EXPECT_EQ(aer[0].kind, "correctable");
  EXPECT_EQ(aer[0].since_last, 9u);
  EXPECT_TRUE(aer[0].rebooted);
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 port_rcv_errors +25 in the last 60 min "
                            "(25/h) > limit 10/h",
                            "link.counters: the node rebooted since the last run (boot_id "
                            "0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b -> "
                            "9a3e4f10-2b3c-4d5e-8f70-112233445566): every counter and AER total "
                            "counts from zero again"}));
  // Same boot: a plain increase.
  NextRun(600);
  facts_.nics[2].port.counters["port_rcv_errors"].value = 26;
  EXPECT_EQ(ComputeCounterMoves(Input()).boot_change, "");
}

TEST_F(Checks, AnUnreadableBootIdIsSaid) {
  facts_.boot_id.error =
      "/proc/sys/kernel/random/boot_id: got 'x'; expected a UUID such as "
      "\"0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b\"";
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "link.counters: /proc/sys/kernel/random/boot_id: got 'x'; expected a UUID such "
                "as \"0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b\"; a reboot is seen only where a "
                "counter went backwards (health.boot_id_file)"}));
}

// pcie.aer* get their windows from the moves (rate_window.h): non-fatal and correctable
// increases are kept and age out like link errors.
TEST_F(Checks, AerIncreasesAreKeptForTheWindows) {
  NextRun(600);
  facts_.pci.at(Bdf(0x4f)).aer_nonfatal.value.value->total = 1;
  CounterMoves h = ComputeCounterMoves(Input());
  const AerMove& nonfatal = h.aer.at(Bdf(0x4f))[1];
  ASSERT_EQ(nonfatal.kind, "nonfatal");
  ASSERT_EQ(nonfatal.recent.size(), 1u);
  std::optional<WindowRise> w = OverLimit(nonfatal.recent, now_, 0, cfg_);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(WindowRiseText(*w, 0), " +1 in the last 60 min; expected no increase");
  NextRun(3601);
  h = ComputeCounterMoves(Input());
  EXPECT_FALSE(OverLimit(h.aer.at(Bdf(0x4f))[1].recent, now_, 0, cfg_).has_value());
  EXPECT_EQ(h.next.pcie.at(Bdf(0x4f)).recent.at("nonfatal").size(), 1u) << "kept for the day";
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

}  // namespace healthcheck_checks_counters_test
}  // namespace railguard::health
