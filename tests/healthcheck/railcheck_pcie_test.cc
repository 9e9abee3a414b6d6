// SPDX-License-Identifier: GPL-2.0-or-later
// railcheck as a whole (healthcheck/railcheck.h) on generated DGX H100-like sysfs trees
// (tests/data/sysfs/make_sysfs.py) with an in-memory slurmctld, for the PCIe and NIC identity
// cases of issue 13: idle GPUs whose links read 2.5 GT/s PCIe (healthy in every mode), a GPU
// at x8 (drained), AER counted at a NIC's link partner (the link named by both ends), and
// rail NICs on different firmware (a warning; the versions in Extra).
#include <gtest/gtest.h>

#include <sstream>

#include "healthcheck/railcheck.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace healthcheck_railcheck_pcie_test {

using testing::CachedFixture;
using testing::FakeSlurm;
using testing::Forward;
using testing::TempDir;
using testing::WriteFile;

class RailcheckPcie : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(tmp_ / "railguard.yaml",
              "topology: " RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml\nhealth:\n  sysfs_root: " +
                  tmp_.path() + "/sys/%n\n  state_dir: " + tmp_.path() +
                  "/state/%n\n  events_log: " + tmp_.path() + "/events.log\n");
    SlurmNode n;
    n.name = "n003";
    n.features = "su1";
    slurm_.nodes["n003"] = n;
  }

  // n003 reads a fixture made with `args` (shared, read only).
  void Fixture(const std::string& args) {
    testing::fs::create_directories(tmp_ / "sys");
    testing::fs::remove(tmp_ / "sys/n003");
    testing::fs::create_directory_symlink(CachedFixture(args), tmp_ / "sys/n003");
  }

  int Run(const std::vector<std::string>& args, const std::string& argv0 = "railcheck") {
    out_.str("");
    err_.str("");
    CliEnv env;
    env.argv0 = argv0;
    env.slurmd_nodename = "n003";
    env.slurm_conf = tmp_ / "slurm.conf";
    CliDeps deps;
    deps.fs = std::make_shared<RealSysfs>();
    deps.open_verbs = []() { return nullptr; };
    deps.open_slurm = [this](std::string*) { return std::make_unique<Forward>(&slurm_); };
    deps.now = [this]() { return now_; };
    deps.out = &out_;
    deps.err = &err_;
    const int code = RunRailcheck(args, env, deps);
    now_ += 300;
    return code;
  }

  const SlurmNode& Node() { return slurm_.nodes["n003"]; }

  TempDir tmp_;
  FakeSlurm slurm_;
  std::ostringstream out_;
  std::ostringstream err_;
  double now_ = 1700000000;
};

// Issue 13 item 1: Prolog, Epilog and HealthCheckProgram all see idle GPUs.
TEST_F(RailcheckPcie, IdleGpusAtTwoPointFiveGtsAreHealthyInEveryMode) {
  Fixture("--idle-gpus");
  ASSERT_EQ(Run({"baseline"}), kExitOk) << err_.str();
  for (const char* mode : {"railcheck-prolog", "railcheck-epilog", "railcheck-periodic"}) {
    SCOPED_TRACE(mode);
    EXPECT_EQ(Run({}, mode), kExitOk) << out_.str() << err_.str();
    EXPECT_NE(out_.str().find(": ok (rails: 8 ok)"), std::string::npos) << out_.str();
    EXPECT_EQ(out_.str().find("pcie."), std::string::npos) << out_.str();
    EXPECT_FALSE(Node().drain) << Node().reason;
  }
  EXPECT_NE(Node().features.find("rail_healthy"), std::string::npos);
}

TEST_F(RailcheckPcie, AnIdleGpuAtX8IsStillDrainedAtTheProlog) {
  Fixture("--idle-gpus --fault gpu-width:3");
  EXPECT_EQ(Run({}, "railcheck-prolog"), kExitDrain) << out_.str() << err_.str();
  EXPECT_TRUE(Node().drain);
  EXPECT_EQ(Node().reason, "railcheck: rail3 gpu3 PCIe x8 < x16");
  EXPECT_NE(out_.str().find("pcie.width: rail3 gpu3 0000:61:00.0 at x8 < expected x16"),
            std::string::npos)
      << out_.str();
  EXPECT_EQ(out_.str().find("pcie.speed"), std::string::npos) << out_.str();
}

TEST_F(RailcheckPcie, AGpuInUseBelowFullSpeedWarns) {
  Fixture("--idle-gpus --fault gpu-speed:6");
  EXPECT_EQ(Run({}, "railcheck-periodic"), kExitOk) << out_.str() << err_.str();
  EXPECT_NE(out_.str().find("pcie.gpu_speed: rail6 gpu6 0000:d1:00.0 at 16.0 GT/s < expected "
                            "32.0 GT/s"),
            std::string::npos)
      << out_.str();
  EXPECT_FALSE(Node().drain);
}

// Issue 13 item 4: errors the NIC's switch downstream port logged are the NIC link's.
TEST_F(RailcheckPcie, AFatalAerErrorAtTheNicsLinkPartnerDrainsNamingTheLink) {
  Fixture("--fault aer-link-fatal:3");
  EXPECT_EQ(Run({}, "railcheck-prolog"), kExitDrain) << out_.str() << err_.str();
  EXPECT_EQ(Node().reason, "railcheck: rail3 mlx5_5 PCIe fatal AER error");
  EXPECT_NE(out_.str().find("pcie.aer: rail3 mlx5_5 link 0000:5e:00.0 (mlx5_5) - 0000:5d:00.0 "
                            "(switch downstream port): fatal AER errors 2 > 0 (no baseline: "
                            "counted since boot) (0000:5d:00.0 DLP 1, dev_fatal_errs_bit[6] 1)"),
            std::string::npos)
      << out_.str();
}

TEST_F(RailcheckPcie, CorrectableErrorsAtBothEndsOfANicLinkAreAddedUp) {
  // Each end 60 since the baseline an hour ago: 120/h for the link, above the 100/h limit.
  Fixture("");
  ASSERT_EQ(Run({"baseline"}), kExitOk) << err_.str();
  now_ += 3300;
  Fixture("--fault aer-link:2");
  EXPECT_EQ(Run({"--periodic"}), kExitRestrict) << out_.str() << err_.str();
  EXPECT_NE(out_.str().find("pcie.aer_correctable: rail2 mlx5_4 link 0000:4f:00.0 (mlx5_4) - "
                            "0000:4e:00.0 (switch downstream port): correctable AER errors +120 "
                            "in the last 60 min"),
            std::string::npos)
      << out_.str();
}

// Issue 13 item 11.
TEST_F(RailcheckPcie, RailNicsOnDifferentFirmwareWarnAndExtraCarriesTheVersions) {
  Fixture("--fw 4:28.37.1014");
  EXPECT_EQ(Run({}, "railcheck-prolog"), kExitOk) << out_.str() << err_.str();
  EXPECT_NE(out_.str().find("nic.firmware: rail4 mlx5_6 fw_ver 28.37.1014, the other rail NICs "
                            "28.39.1002 (7 of 8)"),
            std::string::npos)
      << out_.str();
  EXPECT_FALSE(Node().drain);
  EXPECT_NE(Node().extra.find("\"fw\":[\"28.39.1002\",\"28.39.1002\",\"28.39.1002\","
                              "\"28.39.1002\",\"28.37.1014\",\"28.39.1002\",\"28.39.1002\","
                              "\"28.39.1002\"]"),
            std::string::npos)
      << Node().extra;
}

}  // namespace healthcheck_railcheck_pcie_test
}  // namespace railguard::health
