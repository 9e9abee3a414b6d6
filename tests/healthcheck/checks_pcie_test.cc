// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the PCIe checks (healthcheck/checks_pcie.cc): links seen from both ends, link
// down, fatal, non-fatal and correctable AER, on facts built by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "tests/healthcheck/checks_test_util.h"

namespace railguard::health {
namespace {

using namespace check_testing;

TEST_F(Checks, APcieLinkTrainedDownIsReportedOnceAtItsLowerEnd) {
  // The NIC's link to its downstream port: both ends read 16.0 GT/s x8.
  for (const std::string& d : {Bdf(0x5e), Bdf(0x5d, 0)}) {
    facts_.pci[d].cur_speed = Val(PcieSpeedValue{16, false}, "16.0 GT/s PCIe");
    facts_.pci[d].cur_width = Val(8, "8");
  }
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0], "pcie.speed: rail3 mlx5_5 0000:5e:00.0 at 16.0 GT/s < expected 32.0 GT/s");
  EXPECT_EQ(m[1], "pcie.width: rail3 mlx5_5 0000:5e:00.0 at x8 < expected x16");
  Judgement j = Judge(Input());
  ASSERT_GE(j.verdict.findings.size(), 2u);
  EXPECT_EQ(j.verdict.findings[0].reason, "rail3 mlx5_5 PCIe 16 GT/s < 32 GT/s");
  EXPECT_EQ(j.verdict.findings[1].reason, "rail3 mlx5_5 PCIe x8 < x16");
}

TEST_F(Checks, ASwitchUplinkTrainedDownIsChargedToTheBridge) {
  for (const std::string& d : {Bdf(0x9a - 2), Bdf(0x9a - 3, 1)})
    facts_.pci[d].cur_speed = Val(PcieSpeedValue{8, false}, "8.0 GT/s PCIe");
  EXPECT_EQ(Messages(), (std::vector<std::string>{"pcie.speed: rail4 mlx5_6 bridge 0000:98:00.0 "
                                                  "at 8.0 GT/s < expected 32.0 GT/s"}));
}

TEST_F(Checks, ASlowerDeviceBelowAFasterSwitchIsNoFault) {
  // A Gen4 device trains its Gen5 downstream port to 16 GT/s: that is its maximum.
  const std::string nic = Bdf(0x40), dp = Bdf(0x3f, 0);
  facts_.pci[nic].max_speed = Val(PcieSpeedValue{16, false}, "16.0 GT/s PCIe");
  facts_.pci[nic].cur_speed = Val(PcieSpeedValue{16, false}, "16.0 GT/s PCIe");
  facts_.pci[dp].cur_speed = Val(PcieSpeedValue{16, false}, "16.0 GT/s PCIe");
  EXPECT_TRUE(Messages().empty());
}

TEST_F(Checks, APcieLinkDownIsARailDown) {
  facts_.pci[Bdf(0xc0)].cur_speed = Val(PcieSpeedValue{0, true}, "Unknown");
  Judgement j = Judge(Input());
  ASSERT_GE(j.verdict.findings.size(), 1u);
  ASSERT_EQ(j.verdict.rails.size(), 8u);
  EXPECT_EQ(j.verdict.findings[0].message,
            "pcie.speed: rail5 mlx5_9 0000:c0:00.0 link down (current_link_speed Unknown); "
            "expected 32.0 GT/s");
  EXPECT_EQ(j.verdict.rails[5].status, RailStatus::kDown);
}

TEST_F(Checks, AFatalAerErrorStaysAFaultUntilTheBaselineAcceptsIt) {
  AerValue fatal;
  fatal.counts["MalfTLP"] = 1;
  fatal.total = 1;
  facts_.pci[Bdf(0x5e)].aer_fatal.value = Val(fatal, "");
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "pcie.aer: rail3 mlx5_5 0000:5e:00.0 fatal AER errors 1 > 0 (no "
                            "baseline: counted since boot) (MalfTLP 1)"}));
  NextRun(600);
  EXPECT_EQ(Messages().size(), 1u) << "sticky";
  have_baseline_ = true;
  baseline_.node = "n001";
  baseline_.time = now_;
  baseline_.pcie[Bdf(0x5e)].fatal = 1;
  EXPECT_TRUE(Messages().empty());
  fatal.total = 2;
  facts_.pci[Bdf(0x5e)].aer_fatal.value = Val(fatal, "");
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "pcie.aer: rail3 mlx5_5 0000:5e:00.0 fatal AER errors 2 > 1 at the "
                            "baseline (MalfTLP 1)"}));
}

TEST_F(Checks, NonFatalAndCorrectableAerErrorsAreRates) {
  NextRun(3600);
  AerValue corr;
  corr.counts["BadTLP"] = 150;
  corr.total = 150;
  facts_.pci[Bdf(0x1b)].aer_correctable.value = Val(corr, "");
  AerValue nonfatal;
  nonfatal.counts["CmpltTO"] = 1;
  nonfatal.total = 1;
  facts_.pci[Bdf(0xdc - 2)].aer_nonfatal.value = Val(nonfatal, "");
  Judgement j = Judge(Input());
  ASSERT_EQ(j.verdict.findings.size(), 3u);
  EXPECT_EQ(j.verdict.findings[0].message,
            "pcie.aer: rail7 mlx5_11 bridge 0000:da:00.0 non-fatal AER errors +1 in the last "
            "60 min; expected no increase (CmpltTO 1)");
  EXPECT_EQ(j.verdict.findings[0].action, HealthAction::kDrain);
  EXPECT_EQ(j.verdict.findings[1].message,
            "pcie.aer_correctable: rail0 gpu0 0000:1b:00.0 correctable AER errors +150 in the "
            "last 60 min (150/h) > limit 100/h (BadTLP 150)");
  EXPECT_EQ(j.verdict.findings[1].action, HealthAction::kRestrict);
}

}  // namespace
}  // namespace railguard::health
