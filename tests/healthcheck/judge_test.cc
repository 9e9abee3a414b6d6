// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the judge (healthcheck/judge.cc): the healthy node, actions from the config, the
// order of findings, durations, on facts built by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "tests/healthcheck/checks_test_util.h"

namespace railguard::health {
namespace healthcheck_judge_test {

using namespace check_testing;

TEST_F(Checks, AHealthyNodeHasNoFindingButTheMissingBaselineNote) {
  Judgement j = Judge(Input());
  ASSERT_EQ(j.verdict.findings.size(), 1u);
  EXPECT_EQ(j.verdict.findings[0].message,
            "link.counters: no baseline at /var/lib/railguard/health/n001/baseline.json: fatal "
            "AER errors are counted since boot, none accepted (record one with `railcheck "
            "baseline`); error rates need none");
  EXPECT_EQ(j.verdict.findings[0].severity, Severity::kNote);
  EXPECT_EQ(j.verdict.level, Level::kWarn);
  for (const RailHealth& r : j.verdict.rails) EXPECT_EQ(r.status, RailStatus::kOk);
}

TEST_F(Checks, ActionsComeFromTheConfigAndOffDropsTheCheck) {
  facts_.nics[3].port.rate = Val(RateValue{200, 2, "NDR"}, "200 Gb/sec (2X NDR)");
  cfg_.actions["port.rate"] = HealthAction::kRestrict;
  Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.level, Level::kRestrict);
  cfg_.actions["port.rate"] = HealthAction::kWarn;
  EXPECT_EQ(Judge(Input()).verdict.level, Level::kWarn);
  cfg_.actions["port.rate"] = HealthAction::kOff;
  cfg_.actions["link.counters"] = HealthAction::kOff;
  j = Judge(Input());
  EXPECT_EQ(j.verdict.level, Level::kOk);
  EXPECT_TRUE(j.verdict.findings.empty());
  ASSERT_EQ(j.verdict.rails.size(), 8u);
  EXPECT_EQ(j.verdict.rails[3].status, RailStatus::kOk);
}

TEST_F(Checks, FindingsAreOrderedDrainFirst) {
  NextRun(600);
  facts_.nics[1].port.counters["symbol_error"].value = 1000;                        // restrict
  facts_.nics[6].port.rate = Val(RateValue{200, 4, "HDR"}, "200 Gb/sec (4X HDR)");  // drain
  facts_.nics[7].present = false;                                                   // drain, down
  facts_.nics[7].missing = "gone";
  std::vector<std::string> checks;
  for (const Finding& f : Judge(Input()).verdict.findings) checks.push_back(f.check);
  EXPECT_EQ(checks,
            (std::vector<std::string>{"nic.present", "port.rate", "link.errors", "link.counters"}));
}

TEST(FormatDuration, PicksAReadableUnit) {
  EXPECT_EQ(FormatDuration(45), "45 s");
  EXPECT_EQ(FormatDuration(600), "10 min");
  EXPECT_EQ(FormatDuration(3 * 3600), "3.0 h");
  EXPECT_EQ(FormatDuration(3 * 86400), "3.0 days");
}

}  // namespace healthcheck_judge_test
}  // namespace railguard::health
