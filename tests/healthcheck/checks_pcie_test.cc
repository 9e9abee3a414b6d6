// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the PCIe checks (healthcheck/checks_pcie.cc): links seen from both ends, link
// down, fatal, non-fatal and correctable AER, on facts built by hand.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "tests/healthcheck/checks_test_util.h"

namespace railguard::health {
namespace healthcheck_checks_pcie_test {

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
                            "pcie.aer: rail3 mlx5_5 link 0000:5e:00.0 (mlx5_5) - 0000:5d:00.0 "
                            "(switch downstream port): fatal AER errors 1 > 0 (no baseline: "
                            "counted since boot) (0000:5e:00.0 MalfTLP 1)"}));
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
                            "pcie.aer: rail3 mlx5_5 link 0000:5e:00.0 (mlx5_5) - 0000:5d:00.0 "
                            "(switch downstream port): fatal AER errors 2 > 1 at the baseline "
                            "(0000:5e:00.0 MalfTLP 1)"}));
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
            "pcie.aer: rail7 mlx5_11 link 0000:da:00.0 (switch upstream port) - 0000:d9:01.0 "
            "(root port): non-fatal AER errors +1 in the last 60 min; expected no increase "
            "(0000:da:00.0 CmpltTO 1)");
  EXPECT_EQ(j.verdict.findings[0].action, HealthAction::kDrain);
  EXPECT_EQ(j.verdict.findings[1].message,
            "pcie.aer_correctable: rail0 gpu0 link 0000:1b:00.0 (gpu0) - 0000:17:01.0 (switch "
            "downstream port): correctable AER errors +150 in the last 60 min (150/h) > limit "
            "100/h (0000:1b:00.0 BadTLP 150)");
  EXPECT_EQ(j.verdict.findings[1].action, HealthAction::kRestrict);
}

// Sets the current link speed of PCI function `bdf`.
void SetSpeed(NodeFacts* f, const std::string& bdf, double gts) {
  f->pci[bdf].cur_speed = Val(PcieSpeedValue{gts, false}, FormatPcieSpeed(gts) + " PCIe");
}

// Findings but the note that no baseline was recorded.
std::vector<Finding> Found(const Judgement& j) {
  std::vector<Finding> out;
  for (const Finding& f : j.verdict.findings)
    if (f.message.find("no baseline at") == std::string::npos) out.push_back(f);
  return out;
}

// Every GPU's own link (the GPU and its switch downstream port) at `gts`.
void SetGpuLinks(NodeFacts* f, double gts) {
  for (int k = 0; k < 8; ++k) {
    SetSpeed(f, Bdf(kBus[k] + 3), gts);
    SetSpeed(f, Bdf(kBus[k] - 1, 1), gts);
  }
}

// Issue 13 item 1: an idle NVIDIA GPU trains its link to 2.5 GT/s (Gen 1), and both ends of
// the link read it (nvidia-smi -q: "PCIe Generation Current 1, Max 5"; sysfs
// current_link_speed "2.5 GT/s PCIe" against max_link_speed "32.0 GT/s PCIe").
TEST_F(Checks, IdleGpuLinksAtTwoPointFiveGtsAreNoFault) {
  SetGpuLinks(&facts_, 2.5);
  EXPECT_TRUE(Messages().empty()) << ::testing::PrintToString(Messages());
  have_baseline_ = true;  // without one, link.counters notes it (warn)
  baseline_.node = "n001";
  baseline_.time = now_;
  EXPECT_EQ(Judge(Input()).verdict.level, Level::kOk);
}

TEST_F(Checks, AnIdleGpuAtX8OfX16StillDrains) {
  SetGpuLinks(&facts_, 2.5);
  for (const std::string& d : {Bdf(0x5e + 3), Bdf(0x5d, 1)}) facts_.pci[d].cur_width = Val(8, "8");
  Judgement j = Judge(Input());
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{"pcie.width: rail3 gpu3 0000:61:00.0 at x8 < expected x16"}));
  EXPECT_EQ(j.verdict.level, Level::kDrain);
}

TEST_F(Checks, AGpuLinkInUseBelowItsMaximumIsAWarningOfItsOwnCheck) {
  // 16 GT/s: the GPU left its idle 2.5 GT/s (it is in use) but did not reach 32 GT/s.
  SetSpeed(&facts_, Bdf(0xc0 + 3), 16);
  SetSpeed(&facts_, Bdf(0xbf, 1), 16);
  Judgement j = Judge(Input());
  const std::vector<Finding> found = Found(j);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message,
            "pcie.gpu_speed: rail5 gpu5 0000:c3:00.0 at 16.0 GT/s < expected 32.0 GT/s, above "
            "the 2.5 GT/s of an idle GPU: in use, not at full speed");
  EXPECT_EQ(found[0].reason, "rail5 gpu5 PCIe 16 GT/s < 32 GT/s");
  EXPECT_EQ(found[0].action, HealthAction::kWarn);
  cfg_.actions["pcie.gpu_speed"] = HealthAction::kDrain;
  EXPECT_EQ(Judge(Input()).verdict.level, Level::kDrain);
}

TEST_F(Checks, NicLinksAndSwitchUplinksAboveAnIdleGpuAreStillJudgedForSpeed) {
  SetGpuLinks(&facts_, 2.5);
  // rail 1: the NIC's own link at 2.5 GT/s; rail 6: the switch's uplink (upstream port to
  // root port), shared by the NIC and the GPU, at 2.5 GT/s.
  SetSpeed(&facts_, Bdf(0x40), 2.5);
  SetSpeed(&facts_, Bdf(0x3f, 0), 2.5);
  SetSpeed(&facts_, Bdf(0xce - 2), 2.5);
  SetSpeed(&facts_, Bdf(0xce - 3, 1), 2.5);
  EXPECT_EQ(Messages(),
            (std::vector<std::string>{
                "pcie.speed: rail1 mlx5_3 0000:40:00.0 at 2.5 GT/s < expected 32.0 GT/s",
                "pcie.speed: rail6 mlx5_10 bridge 0000:cc:00.0 at 2.5 GT/s < expected 32.0 GT/s"}));
}

TEST_F(Checks, AGpuLinkDownIsStillARailDown) {
  facts_.pci[Bdf(0x18 + 3)].cur_speed = Val(PcieSpeedValue{0, true}, "Unknown");
  Judgement j = Judge(Input());
  const std::vector<Finding> found = Found(j);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message,
            "pcie.speed: rail0 gpu0 0000:1b:00.0 link down (current_link_speed Unknown); "
            "expected 32.0 GT/s");
  EXPECT_EQ(j.verdict.rails[0].status, RailStatus::kDown);
}

AerValue Aer(const std::map<std::string, uint64_t>& counts, uint64_t total) {
  AerValue v;
  v.counts = counts;
  v.total = total;
  return v;
}

// Issue 13 item 4: an error is logged where it was detected, often at the NIC's link partner
// (its switch downstream port): both ends' counts are the link's, and the finding names it.
TEST_F(Checks, CorrectableAerErrorsOfBothEndsOfANicLinkCountTogether) {
  NextRun(3600);
  // 60/h at each end: below the 100/h limit alone, 120/h for the link.
  facts_.pci[Bdf(0x5e)].aer_correctable.value = Val(Aer({{"RxErr", 60}}, 60), "");
  facts_.pci[Bdf(0x5d, 0)].aer_correctable.value =
      Val(Aer({{"BadTLP", 40}, {"BadDLLP", 20}}, 60), "");
  Judgement j = Judge(Input());
  const std::vector<Finding> found = Found(j);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message,
            "pcie.aer_correctable: rail3 mlx5_5 link 0000:5e:00.0 (mlx5_5) - 0000:5d:00.0 (switch "
            "downstream port): correctable AER errors +120 in the last 60 min (120/h) > limit "
            "100/h (0000:5e:00.0 RxErr 60; 0000:5d:00.0 BadDLLP 20, BadTLP 40)");
  EXPECT_EQ(found[0].rail, 3);
  EXPECT_EQ(j.verdict.rails[3].status, RailStatus::kDegraded);
}

TEST_F(Checks, AFatalAerErrorAtTheLinkPartnerIsTheNicLinksFault) {
  // The downstream port above rail 2's NIC logged a Data Link Protocol error and an error of
  // a bit without a name (aer.c prints "dev_fatal_errs_bit[6] 1"); the NIC logged nothing.
  facts_.pci[Bdf(0x4e, 0)].aer_fatal.value =
      Val(Aer({{"DLP", 1}, {"dev_fatal_errs_bit[6]", 1}}, 2), "");
  Judgement j = Judge(Input());
  const std::vector<Finding> found = Found(j);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message,
            "pcie.aer: rail2 mlx5_4 link 0000:4f:00.0 (mlx5_4) - 0000:4e:00.0 (switch downstream "
            "port): fatal AER errors 2 > 0 (no baseline: counted since boot) (0000:4e:00.0 DLP "
            "1, dev_fatal_errs_bit[6] 1)");
  EXPECT_EQ(found[0].reason, "rail2 mlx5_4 PCIe fatal AER error");
  EXPECT_EQ(j.verdict.rails[2].status, RailStatus::kDown);
}

TEST_F(Checks, ARootPortAerCountIsChargedToTheLinkBelowIt) {
  // rail 4's switch uplink: the root port counts, the switch's upstream port does not.
  facts_.pci[Bdf(0x9a - 3, 1)].aer_fatal.value = Val(Aer({{"SDES", 1}}, 1), "");
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "pcie.aer: rail4 mlx5_6 link 0000:98:00.0 (switch upstream port) - "
                            "0000:97:01.0 (root port): fatal AER errors 1 > 0 (no baseline: "
                            "counted since boot) (0000:97:01.0 SDES 1)"}));
}

}  // namespace healthcheck_checks_pcie_test
}  // namespace railguard::health
