// SPDX-License-Identifier: GPL-2.0-or-later
// pcie.aer and pcie.aer_correctable over the rate windows (healthcheck/rate_window.h): one
// non-fatal AER error drains for the first window and then ages out, where it used to count
// against the baseline until someone recorded a new one. Facts built by hand
// (tests/healthcheck/checks_test_util.h), AER totals as the kernel's aer_dev_* files give them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "tests/healthcheck/checks_test_util.h"

namespace railguard::health {
namespace healthcheck_aer_window_test {

using namespace check_testing;

TEST_F(Checks, OneNonFatalAerErrorAgesOutAfterTheWindow) {
  have_baseline_ = true;
  baseline_.node = "n001";
  baseline_.time = now_;
  baseline_.pcie[Bdf(0x5e)].nonfatal = 0;
  NextRun(600);
  AerValue nonfatal;
  nonfatal.counts["CmpltTO"] = 1;
  nonfatal.total = 1;
  facts_.pci[Bdf(0x5e)].aer_nonfatal.value = Val(nonfatal, "");
  const std::vector<std::string> one = {
      "pcie.aer: rail3 mlx5_5 link 0000:5e:00.0 (mlx5_5) - 0000:5d:00.0 (switch downstream "
      "port): non-fatal AER errors +1 in the last 60 min; expected no increase (0000:5e:00.0 "
      "CmpltTO 1)"};
  EXPECT_EQ(Messages(), one);
  EXPECT_EQ(Judge(Input()).verdict.level, Level::kDrain);
  NextRun(1800);
  EXPECT_EQ(Messages(), one) << "still inside the hour";
  NextRun(1800);
  EXPECT_TRUE(Messages().empty()) << "aged out, though the baseline still says 0";
}

TEST_F(Checks, CorrectableAerErrorsAreAveragedOverTheWindows) {
  NextRun(600);
  AerValue corr;
  corr.counts["BadDLLP"] = 90;
  corr.total = 90;
  facts_.pci[Bdf(0x18)].aer_correctable.value = Val(corr, "");
  EXPECT_TRUE(Messages().empty()) << "90 in the hour is below 100/h";
  NextRun(600);
  corr.total = corr.counts["BadDLLP"] = 180;
  facts_.pci[Bdf(0x18)].aer_correctable.value = Val(corr, "");
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "pcie.aer_correctable: rail0 mlx5_0 link 0000:18:00.0 (mlx5_0) - "
                            "0000:17:00.0 (switch downstream port): correctable AER errors "
                            "+180 in the last 60 min (180/h) > limit 100/h (0000:18:00.0 "
                            "BadDLLP 180)"}));
  NextRun(3600);
  EXPECT_TRUE(Messages().empty());
}

// Fatal AER totals count from boot: fatal errors a baseline accepted are gone after a reboot,
// so a new one is judged against 0, not against the old boot's total.
TEST_F(Checks, AFatalAerTotalOfTheBaselinesBootDoesNotHideANewBootsError) {
  have_baseline_ = true;
  baseline_.node = "n001";
  baseline_.time = now_;
  baseline_.boot_id = "0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b";
  baseline_.pcie[Bdf(0x5e)].fatal = 3;
  AerValue fatal;
  fatal.counts["MalfTLP"] = 3;
  fatal.total = 3;
  facts_.pci[Bdf(0x5e)].aer_fatal.value = Val(fatal, "");
  facts_.boot_id = Val(baseline_.boot_id, "");
  EXPECT_TRUE(Messages().empty()) << "accepted by the baseline";
  facts_.boot_id = Val(std::string("9a3e4f10-2b3c-4d5e-8f70-112233445566"), "");
  fatal.counts["MalfTLP"] = fatal.total = 1;
  facts_.pci[Bdf(0x5e)].aer_fatal.value = Val(fatal, "");
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "pcie.aer: rail3 mlx5_5 link 0000:5e:00.0 (mlx5_5) - 0000:5d:00.0 "
                            "(switch downstream port): fatal AER errors 1 > 0 (no baseline: "
                            "counted since boot) (0000:5e:00.0 MalfTLP 1)"}));
}

}  // namespace healthcheck_aer_window_test
}  // namespace railguard::health
