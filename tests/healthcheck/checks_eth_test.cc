// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for RoCE rails: finding a rail's netdev and reading it (healthcheck/gather_eth.h) from
// sysfs trees in the kernel's formats, and the eth.* checks (checks_eth.cc) over runs.
//
// Formats: net/core/net-sysfs.c (operstate_show: the RFC 2863 names of operstates[];
// carrier_changes_show and speed_show: "%d\n", speed -1 for SPEED_UNKNOWN and an error while
// the interface is down), drivers/infiniband/core/sysfs.c (ports/N/gid_attrs/ndevs/N: the
// netdev name of GID N), the PCI function's net/ folder (one entry a netdev, dev_port from
// 0), and mlx5's ethtool names (en_stats.c: rx_crc_errors_phy, rx_symbol_err_phy,
// link_down_events_phy, rx_pcs_symbol_err_phy, rx_corrected_bits_phy, rx_prio3_pause).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "healthcheck/gather.h"
#include "healthcheck/gather_eth.h"
#include "healthcheck/state.h"
#include "tests/healthcheck/checks_test_util.h"
#include "tests/healthcheck/eth_test_util.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace healthcheck_checks_eth_test {

using check_testing::Checks;
using check_testing::Val;
using eth_testing::FakeEthtool;
using eth_testing::Mlx5Stats;
using eth_testing::ReplyOf;
using testing::TempDir;
using testing::WriteFile;

// A RoCE port of mlx5_0 whose netdev is enp24s0f0np0, up at 400 GbE.
void WriteRocePort(const TempDir& root, const std::string& operstate = "up",
                   const std::string& carrier_changes = "4", const std::string& speed = "400000") {
  const std::string dev = root / "class/infiniband/mlx5_0";
  WriteFile(dev + "/ports/1/state", "4: ACTIVE\n");
  WriteFile(dev + "/ports/1/phys_state", "5: LinkUp\n");
  WriteFile(dev + "/ports/1/rate", "400 Gb/sec (4X NDR)\n");
  WriteFile(dev + "/ports/1/link_layer", "Ethernet\n");
  WriteFile(dev + "/ports/1/counters/port_xmit_data", "0\n");
  WriteFile(dev + "/ports/1/gid_attrs/ndevs/0", "enp24s0f0np0\n");
  const std::string net = root / "class/net/enp24s0f0np0";
  WriteFile(net + "/operstate", operstate + "\n");
  WriteFile(net + "/carrier_changes", carrier_changes + "\n");
  WriteFile(net + "/speed", speed + "\n");
}

TEST(GatherEth, ReadsTheNetdevOfARocePortAndItsEthtoolStatistics) {
  TempDir root;
  WriteRocePort(root);
  FakeEthtool io;
  io.Set("enp24s0f0np0", ReplyOf(Mlx5Stats()));
  RealSysfs fs;
  std::map<std::string, PciDevice> pci;
  NicFacts n = GatherNic(fs, nullptr, root.path(), 0, "mlx5_0", &pci, &io);
  const EthFacts& e = n.eth;
  ASSERT_TRUE(e.read);
  EXPECT_EQ(e.netdev, "enp24s0f0np0") << e.netdev_error;
  EXPECT_EQ(e.dir, root / "class/net/enp24s0f0np0");
  EXPECT_EQ(*e.operstate.value, "up");
  EXPECT_EQ(*e.carrier_changes.value, 4u);
  EXPECT_EQ(*e.speed_mbps.value, 400000);
  ASSERT_TRUE(e.stats_read) << e.stats_error;
  EXPECT_EQ(e.stats.at("rx_corrected_bits_phy"), 4711u);
  EXPECT_EQ(e.stats.at("tx_prio3_pause"), 34u);
  EXPECT_EQ(e.stats.size(), Mlx5Stats().size());
}

TEST(GatherEth, AnInfiniBandPortHasNoNetdevToRead) {
  TempDir root;
  WriteRocePort(root);
  WriteFile(root / "class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
  RealSysfs fs;
  std::map<std::string, PciDevice> pci;
  NicFacts n = GatherNic(fs, nullptr, root.path(), 0, "mlx5_0", &pci, nullptr);
  EXPECT_FALSE(n.eth.read);
}

TEST(GatherEth, FallsBackToThePciFunctionsNetFolder) {
  TempDir root;
  WriteRocePort(root);
  const std::string dev = root / "class/infiniband/mlx5_0";
  std::filesystem::remove_all(dev + "/ports/1/gid_attrs");
  WriteFile(dev + "/device/net/enp24s0f0np0/dev_port", "0\n");
  RealSysfs fs;
  EthFacts e = GatherEth(fs, nullptr, root.path(), dev, 1);
  EXPECT_EQ(e.netdev, "enp24s0f0np0") << e.netdev_error;
  // Without the ioctl (a sysfs tree that is not the live one) no statistics are read.
  EXPECT_FALSE(e.stats_read);
  EXPECT_EQ(e.stats_error, "");
  // Two netdevs: the one of this port by dev_port.
  WriteFile(dev + "/device/net/enp24s0f1np1/dev_port", "1\n");
  WriteFile(root / "class/net/enp24s0f1np1/operstate", "up\n");
  e = GatherEth(fs, nullptr, root.path(), dev, 2);
  EXPECT_EQ(e.netdev, "enp24s0f1np1") << e.netdev_error;
  e = GatherEth(fs, nullptr, root.path(), dev, 3);
  EXPECT_EQ(e.netdev, "");
  EXPECT_EQ(e.netdev_error, dev + "/device/net holds enp24s0f0np0, enp24s0f1np1 and none has "
                                  "dev_port 2; expected one netdev for port 3");
}

TEST(GatherEth, NoNetdevOrBadValuesAreErrorsNamingTheFile) {
  TempDir root;
  WriteRocePort(root, "sleeping", "many", "fast");
  const std::string dev = root / "class/infiniband/mlx5_0";
  RealSysfs fs;
  EthFacts e = GatherEth(fs, nullptr, root.path(), dev, 1);
  const std::string net = root / "class/net/enp24s0f0np0";
  EXPECT_EQ(e.operstate.error, net +
                                   "/operstate: got 'sleeping'; expected an RFC 2863 state: up, "
                                   "down, lowerlayerdown, dormant, testing, notpresent or unknown");
  EXPECT_EQ(e.carrier_changes.error,
            net + "/carrier_changes: got 'many'; expected a decimal count such as \"4\"");
  EXPECT_EQ(e.speed_mbps.error, net + "/speed: got 'fast'; expected a speed in Mb/s such as "
                                      "\"400000\", or \"-1\" when unknown");
  WriteFile(net + "/speed", "-1\n");
  e = GatherEth(fs, nullptr, root.path(), dev, 1);
  EXPECT_EQ(*e.speed_mbps.value, -1);
  std::filesystem::remove_all(net);
  e = GatherEth(fs, nullptr, root.path(), dev, 1);
  EXPECT_EQ(e.netdev, "");
  EXPECT_EQ(e.netdev_error,
            net + " does not exist; expected the netdev enp24s0f0np0 of " + dev);
  std::filesystem::remove_all(dev + "/ports/1/gid_attrs");
  e = GatherEth(fs, nullptr, root.path(), dev, 1);
  EXPECT_EQ(e.netdev_error, "no network interface: neither " + dev +
                                "/ports/1/gid_attrs/ndevs/0 nor " + dev +
                                "/device/net names one; expected the RoCE port's netdev there");
}

TEST(GatherEth, TheIoctlsErrorIsKept) {
  TempDir root;
  WriteRocePort(root);
  FakeEthtool io;  // knows no interface: every ioctl fails
  RealSysfs fs;
  EthFacts e = GatherEth(fs, &io, root.path(), root / "class/infiniband/mlx5_0", 1);
  EXPECT_FALSE(e.stats_read);
  EXPECT_EQ(e.stats_error,
            "ethtool statistics of enp24s0f0np0: ioctl SIOCETHTOOL failed: Operation not "
            "supported");
}

TEST(Gather, RoceStatisticsComeThroughTheDeadlineTrackedIoctl) {
  TempDir root;
  WriteRocePort(root);
  auto io = std::make_shared<FakeEthtool>();
  io->Set("enp24s0f0np0", ReplyOf(Mlx5Stats()));
  GatherSpec spec;
  spec.node = "n001";
  spec.sysfs_root = root.path();
  spec.nics = {"mlx5_0"};
  spec.read_timeout_ms = 5000;
  spec.ethtool = io;
  NodeFacts f = Gather(spec, std::make_shared<RealSysfs>(), nullptr);
  ASSERT_EQ(f.nics.size(), 1u);
  EXPECT_TRUE(f.nics[0].eth.stats_read) << f.nics[0].eth.stats_error;
  EXPECT_EQ(f.nics[0].eth.stats.at("rx_prio3_pause"), 12u);
}

// A driver whose statistics read hangs (a firmware command that does not come back).
class StuckEthtool : public FakeEthtool {
 public:
  bool StatsCount(const std::string& ifname, uint32_t* count, std::string* err) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    return FakeEthtool::StatsCount(ifname, count, err);
  }
};

TEST(Gather, AnIoctlThatHangsIsNamedByTheReadDeadline) {
  TempDir root;
  WriteRocePort(root);
  GatherSpec spec;
  spec.node = "n001";
  spec.sysfs_root = root.path();
  spec.nics = {"mlx5_0"};
  spec.read_timeout_ms = 100;
  spec.ethtool = std::make_shared<StuckEthtool>();
  NodeFacts f = Gather(spec, std::make_shared<RealSysfs>(), nullptr);
  ASSERT_EQ(f.timeouts.size(), 1u);
  EXPECT_EQ(f.timeouts[0].path, "ioctl SIOCETHTOOL ETHTOOL_GSSET_INFO enp24s0f0np0");
  EXPECT_FALSE(f.nics[0].complete);
  // Let the stuck worker finish before the tree goes away.
  std::this_thread::sleep_for(std::chrono::milliseconds(900));
}

// The healthy 8-rail node with RoCE rails: every port Ethernet, netdev up at 400 GbE.
class EthChecks : public Checks {
 protected:
  EthChecks() {
    cfg_.link_layer = "Ethernet";
    for (NicFacts& n : facts_.nics) {
      n.port.link_layer = Val(std::string("Ethernet"), "Ethernet");
      EthFacts& e = n.eth;
      e.read = true;
      e.netdev = "eth" + std::to_string(n.rail);
      e.dir = "/class/net/" + e.netdev;
      e.operstate = Val(std::string("up"), "up");
      e.carrier_changes = Val(uint64_t{4}, "4");
      e.speed_mbps = Val(400000LL, "400000");
      e.stats_read = true;
      for (const auto& kv : Mlx5Stats()) e.stats[kv.first] = kv.second;
    }
  }
  EthFacts& Eth(int rail) { return facts_.nics[rail].eth; }
  // The findings of the eth.* checks.
  std::vector<std::string> EthMessages() {
    std::vector<std::string> out;
    for (const std::string& m : Messages())
      if (m.rfind("eth.", 0) == 0) out.push_back(m);
    return out;
  }
};

TEST_F(EthChecks, AHealthyRoceNodeHasNoFindings) {
  EXPECT_EQ(Messages(), std::vector<std::string>{});
  NextRun(600);
  EXPECT_EQ(Messages(), std::vector<std::string>{});
  // Only the note that there is no baseline (link.counters) is left.
  for (const Finding& f : Judge(Input()).verdict.findings) EXPECT_EQ(f.check, "link.counters");
}

TEST_F(EthChecks, InfiniBandRailsAreNotJudgedByNetdev) {
  for (NicFacts& n : facts_.nics) n.eth = EthFacts{};
  cfg_.link_layer = "InfiniBand";
  for (NicFacts& n : facts_.nics) n.port.link_layer = Val(std::string("InfiniBand"), "InfiniBand");
  EXPECT_EQ(EthMessages(), std::vector<std::string>{});
}

TEST_F(EthChecks, MissingNetdevDownOperstateAndLowSpeedAreFindings) {
  Eth(0).netdev = "";
  Eth(0).netdev_error = "no network interface: neither A nor B names one";
  Eth(1).operstate = Val(std::string("lowerlayerdown"), "lowerlayerdown");
  Eth(2).speed_mbps = Val(200000LL, "200000");
  Eth(3).speed_mbps = Val(-1LL, "-1");
  const Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.level, Level::kDrain);
  EXPECT_EQ(EthMessages(),
            (std::vector<std::string>{
                "eth.present: rail0 mlx5_0 RoCE port has no network interface: neither A nor B "
                "names one",
                "eth.state: rail1 mlx5_3 eth1 operstate lowerlayerdown (expected up)",
                "eth.speed: rail2 mlx5_4 eth2 speed 200000 Mb/s < expected 400000 Mb/s (400 "
                "Gb/sec (4X NDR))",
                "eth.speed: rail3 mlx5_5 eth3 speed -1 (unknown to the driver); expected 400000 "
                "Mb/s (400 Gb/sec (4X NDR))"}));
}

TEST_F(EthChecks, ACarrierFlapDrainsAndKeepsFailingForTheWindow) {
  NextRun(600);
  Eth(2).carrier_changes = Val(uint64_t{6}, "6");  // down and up again
  Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.level, Level::kDrain);
  EXPECT_EQ(EthMessages(), std::vector<std::string>{
                               "eth.flap: rail2 mlx5_4 eth2 link went down since the last run "
                               "(carrier_changes 4 -> 6); 1 flap(s) in the last 60 min; "
                               "expected a stable link"});
  ASSERT_GE(j.verdict.findings.size(), 1u);
  EXPECT_EQ(j.verdict.findings[0].check, "eth.flap");
  EXPECT_EQ(j.verdict.findings[0].reason, "rail2 mlx5_4 eth2 link flapping (1 in 60 min)");
  EXPECT_EQ(j.verdict.rails[2].status, RailStatus::kDegraded);
  NextRun(600);
  EXPECT_EQ(EthMessages(), std::vector<std::string>{
                               "eth.flap: rail2 mlx5_4 eth2 1 flap(s) in the last 60 min, the "
                               "last 10 min ago; expected none for 60 min"});
  NextRun(3600);
  EXPECT_EQ(EthMessages(), std::vector<std::string>{});
}

TEST_F(EthChecks, LinkDownEventsOfThePhyOrLeavingUpAreFlapsToo) {
  NextRun(600);
  Eth(4).stats["link_down_events_phy"] = 3;
  Eth(5).operstate = Val(std::string("down"), "down");
  const std::vector<std::string> m = EthMessages();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], "eth.state: rail5 mlx5_9 eth5 operstate down (expected up)");
  EXPECT_EQ(m[1],
            "eth.flap: rail4 mlx5_6 eth4 link went down since the last run "
            "(link_down_events_phy 1 -> 3); 2 flap(s) in the last 60 min; expected a stable link");
  EXPECT_EQ(m[2],
            "eth.flap: rail5 mlx5_9 eth5 link went down since the last run (operstate up -> "
            "down); 1 flap(s) in the last 60 min; expected a stable link");
}

TEST_F(EthChecks, ErrorCountersAreJudgedAsRatesOverTheWindowsAndABurstAgesOut) {
  NextRun(600);
  Eth(1).stats["rx_crc_errors_phy"] = 50;
  Eth(1).stats["rx_corrected_bits_phy"] = 99999999;  // not judged unless listed
  Eth(1).stats["rx_prio3_pause"] = 99999999;
  Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.level, Level::kRestrict);
  EXPECT_EQ(EthMessages(), std::vector<std::string>{
                               "eth.errors: rail1 mlx5_3 eth1 rx_crc_errors_phy +50 in the last "
                               "60 min (50/h) > limit 10/h"});
  EXPECT_EQ(j.verdict.findings[0].reason, "rail1 mlx5_3 eth1 rx_crc_errors_phy 50/h > 10/h");
  // The burst stays inside the hour's window while later runs add a few more...
  NextRun(600);
  Eth(1).stats["rx_crc_errors_phy"] = 55;
  EXPECT_EQ(EthMessages(), std::vector<std::string>{
                               "eth.errors: rail1 mlx5_3 eth1 rx_crc_errors_phy +55 in the last "
                               "60 min (55/h) > limit 10/h"});
  // ... and ages out of it: the day's window averages 55 over 24 h, under the limit.
  NextRun(3700);
  EXPECT_EQ(EthMessages(), std::vector<std::string>{});
  // An admin's limit for the PFC pause counter of priority 3.
  cfg_.eth_error_limits["rx_prio3_pause"] = 1000;
  NextRun(600);
  Eth(1).stats["rx_prio3_pause"] += 5000;
  EXPECT_EQ(EthMessages(), std::vector<std::string>{
                               "eth.errors: rail1 mlx5_3 eth1 rx_prio3_pause +5000 in the last "
                               "60 min (5000/h) > limit 1000/h"});
}

TEST_F(EthChecks, CountersThatCannotBeJudgedAreNotes) {
  Eth(0).stats_read = false;
  Eth(0).stats.clear();
  Eth(0).stats_error = "ethtool statistics of eth0: ETHTOOL_GSTATS gives 11 values for 12 names "
                       "(the driver's set changed between the calls); expected the same count";
  Eth(1).stats.erase("rx_pcs_symbol_err_phy");
  NextRun(600);
  Eth(2).carrier_changes = Val(uint64_t{0}, "0");  // rebooted: counts from zero
  const Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.level, Level::kWarn);
  EXPECT_EQ(EthMessages(),
            (std::vector<std::string>{
                "eth.counters: rail0 mlx5_0 eth0 ethtool statistics of eth0: ETHTOOL_GSTATS gives "
                "11 values for 12 names (the driver's set changed between the calls); expected "
                "the same count; its error counters are not judged",
                "eth.counters: rail1 mlx5_3 eth1 rx_pcs_symbol_err_phy is not among its 11 "
                "ethtool statistics; expected the mlx5 physical-layer counters (or remove it "
                "from health.eth_error_limits)",
                "eth.counters: rail2 mlx5_4 eth2 carrier_changes went back from 4 to 0 since the "
                "last run: reset (reboot or driver reload), counted from zero"}));
}

TEST_F(EthChecks, TheNetdevRecordSurvivesTheStateFile) {
  facts_.nics.resize(1);
  NextRun(600);
  const std::string json = RunStateToJson(last_);
  RunState back;
  std::string err;
  ASSERT_TRUE(RunStateFromJson(json, "state.json", &back, &err)) << err;
  const PortRecord& rec = back.ports.at("mlx5_0/eth");
  EXPECT_EQ(rec.state, "up");
  EXPECT_EQ(rec.last.counters.at("carrier_changes"), 4u);
  EXPECT_EQ(rec.last.counters.at("rx_crc_errors_phy"), 0u);
  EXPECT_EQ(rec.last.counters.at("link_down_events_phy"), 1u);
  EXPECT_FALSE(rec.last.counters.count("rx_corrected_bits_phy"));
}

}  // namespace healthcheck_checks_eth_test
}  // namespace railguard::health
