// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for nic.firmware (healthcheck/checks_firmware.cc): the rail NICs' fw_ver and board_id,
// gathered from generated sysfs trees (tests/data/sysfs/make_sysfs.py writes them as mlx5
// does, drivers/infiniband/hw/mlx5/main.c: fw_ver "%d.%d.%04d", board_id the PSID) and from
// the node_exporter capture's formats, then judged on hand-built facts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "healthcheck/gather.h"
#include "tests/healthcheck/checks_test_util.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace healthcheck_checks_firmware_test {

using namespace check_testing;

GatherSpec Spec(const std::string& root) {
  GatherSpec s;
  s.node = "n001";
  s.sysfs_root = root;
  s.nics = {kNic, kNic + 8};
  s.read_timeout_ms = 5000;
  return s;
}

TEST(NicFirmwareGather, FwVerAndBoardIdAreReadAsTheDriverWritesThem) {
  const std::string root = testing::CachedFixture("--fw 4:28.37.1014");
  NodeFacts f = Gather(Spec(root), std::make_shared<RealSysfs>(), nullptr);
  ASSERT_EQ(f.nics.size(), 8u);
  EXPECT_EQ(*f.nics[0].fw_ver.value, "28.39.1002");
  EXPECT_EQ(*f.nics[4].fw_ver.value, "28.37.1014");
  EXPECT_TRUE(f.nics[4].board_id_present);
  EXPECT_EQ(*f.nics[4].board_id.value, "MT_0000000838");
}

TEST(NicFirmwareGather, AnEmptyFwVerNamesTheFileAndTheForm) {
  testing::TempDir tmp;
  const std::string root = testing::MakeFixture(tmp / "sys");
  // ib core prints "\n" for a driver without get_dev_fw_str (drivers/infiniband/core/sysfs.c).
  const std::string fw = root + "/class/infiniband/mlx5_5/fw_ver";
  testing::fs::remove(fw);
  testing::WriteFile(fw, "\n");
  NodeFacts f = Gather(Spec(root), std::make_shared<RealSysfs>(), nullptr);
  ASSERT_EQ(f.nics.size(), 8u);
  EXPECT_FALSE(f.nics[3].fw_ver.ok());
  EXPECT_EQ(f.nics[3].fw_ver.error,
            fw + ": got ''; expected one line of 1-64 printable characters such as "
                 "\"28.39.1002\"");
}

TEST(NicFirmwareGather, TheCapturesFormsAreRead) {
  // node_exporter's capture: mlx4_0 fw_ver "2.31.5050", board_id "SM_1141000001000";
  // i40iw0 "0.2", "I40IW Board ID" (with spaces).
  const std::string capture = testing::SharedCapture();
  if (!testing::fs::is_directory(capture)) GTEST_SKIP() << "no shared capture at " << capture;
  testing::TempDir tmp;
  const std::string root = testing::MaterializeCapture(tmp / "sys");
  GatherSpec s = Spec(root);
  s.nics = {"mlx4_0", "i40iw0"};
  NodeFacts f = Gather(s, std::make_shared<RealSysfs>(), nullptr);
  ASSERT_EQ(f.nics.size(), 2u);
  EXPECT_EQ(*f.nics[0].fw_ver.value, "2.31.5050");
  EXPECT_EQ(*f.nics[0].board_id.value, "SM_1141000001000");
  EXPECT_EQ(*f.nics[1].fw_ver.value, "0.2");
  EXPECT_EQ(*f.nics[1].board_id.value, "I40IW Board ID");
}

class NicFirmware : public Checks {
 protected:
  NicFirmware() {
    for (NicFacts& n : facts_.nics) {
      n.fw_ver = Val(std::string("28.39.1002"), "28.39.1002");
      n.board_id_present = true;
      n.board_id = Val(std::string("MT_0000000838"), "MT_0000000838");
    }
  }
};

TEST_F(NicFirmware, OneFirmwareOnEveryRailNicIsNoFinding) {
  EXPECT_TRUE(Messages().empty());
  EXPECT_EQ(Judge(Input()).verdict.fw, std::vector<std::string>(8, "28.39.1002"));
}

TEST_F(NicFirmware, ANicOffTheOthersFirmwareWarns) {
  facts_.nics[5].fw_ver = Val(std::string("28.37.1014"), "28.37.1014");
  Judgement j = Judge(Input());
  ASSERT_EQ(j.verdict.findings.size(), 2u);  // and the note that there is no baseline
  const Finding& f = j.verdict.findings[0];
  EXPECT_EQ(f.message,
            "nic.firmware: rail5 mlx5_9 fw_ver 28.37.1014, the other rail NICs 28.39.1002 (7 of "
            "8); expected one fw_ver on every rail NIC");
  EXPECT_EQ(f.reason, "rail5 mlx5_9 fw 28.37.1014 != 28.39.1002");
  EXPECT_EQ(f.rail, 5);
  EXPECT_EQ(f.action, HealthAction::kWarn);
  EXPECT_EQ(j.verdict.rails[5].status, RailStatus::kOk) << "a note: the rail still works";
  EXPECT_EQ(j.verdict.fw[5], "28.37.1014");
}

TEST_F(NicFirmware, ADifferentBoardIsAFindingToo) {
  facts_.nics[2].board_id = Val(std::string("MT_0000000970"), "MT_0000000970");
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "nic.firmware: rail2 mlx5_4 board_id MT_0000000970, the other rail "
                            "NICs MT_0000000838 (7 of 8); expected one board_id on every rail "
                            "NIC"}));
}

TEST_F(NicFirmware, HalfAndHalfIsOneFindingForTheNode) {
  for (int k = 4; k < 8; ++k) facts_.nics[k].fw_ver = Val(std::string("28.40.1000"), "28.40.1000");
  Judgement j = Judge(Input());
  ASSERT_EQ(j.verdict.findings.size(), 2u);  // and the note that there is no baseline
  EXPECT_EQ(j.verdict.findings[0].rail, -1);
  EXPECT_EQ(j.verdict.findings[0].message,
            "nic.firmware: rail NICs disagree on fw_ver: 28.39.1002 (rail0 mlx5_0, rail1 mlx5_3, "
            "rail2 mlx5_4, rail3 mlx5_5); 28.40.1000 (rail4 mlx5_6, rail5 mlx5_9, rail6 mlx5_10, "
            "rail7 mlx5_11); expected one fw_ver on every rail NIC");
}

TEST_F(NicFirmware, AnUnreadableFwVerIsSaid) {
  facts_.nics[1].fw_ver = Fact<std::string>();
  facts_.nics[1].fw_ver.error =
      "/sys/class/infiniband/mlx5_3/fw_ver: cannot open: Permission denied";
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "nic.firmware: rail1 mlx5_3 /sys/class/infiniband/mlx5_3/fw_ver: "
                            "cannot open: Permission denied"}));
}

TEST_F(NicFirmware, TheCheckCanBeTurnedToDrainOrOff) {
  facts_.nics[0].fw_ver = Val(std::string("28.37.1014"), "28.37.1014");
  cfg_.actions["nic.firmware"] = HealthAction::kOff;
  EXPECT_TRUE(Messages().empty());
  cfg_.actions["nic.firmware"] = HealthAction::kDrain;
  EXPECT_EQ(Judge(Input()).verdict.level, Level::kDrain);
}

}  // namespace healthcheck_checks_firmware_test
}  // namespace railguard::health
