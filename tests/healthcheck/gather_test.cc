// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for gathering a node's facts (healthcheck/gather.h) from generated DGX H100-like
// sysfs trees: links resolved to PCI functions, paths up to the root port, GPUs found by
// vendor and class, libibverbs preferred for port state, and the read deadline.
#include "healthcheck/gather.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace healthcheck_gather_test {

using testing::CachedFixture;
using testing::MakeFixture;
using testing::TempDir;

const std::vector<std::string> kNics = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                                        "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};

GatherSpec Spec(const std::string& root) {
  GatherSpec s;
  s.node = "n001";
  s.sysfs_root = root;
  s.nics = kNics;
  s.read_timeout_ms = 5000;
  return s;
}

TEST(Gather, HealthyNodeHasEveryRailNicItsPortAndItsPciPath) {
  const std::string root = CachedFixture();
  NodeFacts f = Gather(Spec(root), std::make_shared<RealSysfs>(), nullptr);
  EXPECT_TRUE(f.timeouts.empty());
  ASSERT_EQ(f.nics.size(), 8u);
  for (const NicFacts& n : f.nics) {
    SCOPED_TRACE(n.name);
    EXPECT_TRUE(n.complete);
    EXPECT_TRUE(n.present);
    EXPECT_EQ(n.port.state.raw, "4: ACTIVE");
    EXPECT_EQ(n.port.phys_state.raw, "5: LinkUp");
    EXPECT_EQ(n.port.rate.raw, "400 Gb/sec (4X NDR)");
    EXPECT_EQ(*n.port.link_layer.value, "InfiniBand");
    EXPECT_EQ(n.port.counters.size(), 21u);
    EXPECT_EQ(n.port.hw_counters.size(), 16u);  // lifespan is a setting, not a counter
    EXPECT_FALSE(n.port.hw_counters.count("lifespan"));
    EXPECT_EQ(n.pci_path.size(), 4u);  // NIC, downstream port, upstream port, root port
  }
  EXPECT_EQ(f.nics[3].name, "mlx5_5");
  EXPECT_EQ(f.nics[3].pci, "0000:5e:00.0");
  EXPECT_EQ(f.nics[3].pci_path, (std::vector<std::string>{"0000:5e:00.0", "0000:5d:00.0",
                                                          "0000:5c:00.0", "0000:5b:01.0"}));
  EXPECT_EQ(f.nics[3].host_bridge, "pci0000:5b");
  const PciDevice& nic = f.pci.at("0000:5e:00.0");
  EXPECT_EQ(*nic.vendor.value, 0x15b3u);
  EXPECT_EQ(nic.cur_speed.raw, "32.0 GT/s PCIe");
  EXPECT_EQ(*nic.cur_width.value, 16);
  EXPECT_EQ(nic.aer_fatal.value.value->total, 0u);
}

TEST(Gather, GpusAreTheNvidiaDisplayAnd3dFunctionsInBusOrderWithoutNvswitchesOrTheBmc) {
  const std::string root = CachedFixture();
  NodeFacts f = Gather(Spec(root), std::make_shared<RealSysfs>(), nullptr);
  EXPECT_EQ(f.gpu_source, "scan");
  ASSERT_EQ(f.gpus.size(), 8u);
  EXPECT_EQ(f.gpus[0].bdf, "0000:1b:00.0");
  EXPECT_EQ(f.gpus[7].bdf, "0000:df:00.0");
  EXPECT_EQ(f.gpus[3].pci_path, (std::vector<std::string>{"0000:61:00.0", "0000:5d:01.0",
                                                          "0000:5c:00.0", "0000:5b:01.0"}));
}

TEST(Gather, GpusListedInTheNodeTypeAreLookedUpAndAMissingOneSaysWhere) {
  const std::string root = CachedFixture("--fault gpu-missing:2");
  GatherSpec s = Spec(root);
  s.gpu_pci = {"0000:1b:00.0", "0000:43:00.0", "0000:52:00.0"};
  NodeFacts f = Gather(s, std::make_shared<RealSysfs>(), nullptr);
  EXPECT_EQ(f.gpu_source, "gpu_pci");
  ASSERT_EQ(f.gpus.size(), 3u);
  EXPECT_TRUE(f.gpus[1].present);
  EXPECT_FALSE(f.gpus[2].present);
  EXPECT_EQ(f.gpus[2].missing, root + "/bus/pci/devices/0000:52:00.0 does not exist");
}

TEST(Gather, AMissingNicSaysWhatWasLookedFor) {
  const std::string root = CachedFixture("--fault nic-missing:5");
  NodeFacts f = Gather(Spec(root), std::make_shared<RealSysfs>(), nullptr);
  ASSERT_EQ(f.nics.size(), 8u);
  EXPECT_FALSE(f.nics[5].present);
  EXPECT_EQ(f.nics[5].missing, root + "/class/infiniband/mlx5_9 does not exist");
}

TEST(Gather, MalformedValuesNameTheFileWhatWasThereAndTheExpectedForm) {
  TempDir tmp;
  const std::string root = MakeFixture(tmp / "sys");
  const std::string port = root + "/class/infiniband/mlx5_3/ports/1";
  testing::WriteFile(port + "/rate", "fast\n");
  testing::WriteFile(port + "/state", "ACTIVE\n");
  testing::WriteFile(port + "/counters/symbol_error", "lots\n");
  NodeFacts f = Gather(Spec(root), std::make_shared<RealSysfs>(), nullptr);
  ASSERT_EQ(f.nics.size(), 8u);
  const PortFacts& p = f.nics[1].port;
  EXPECT_EQ(p.rate.error, port +
                              "/rate: got 'fast'; expected \"RATE Gb/sec (WIDTHX SPEED)\" "
                              "such as \"400 Gb/sec (4X NDR)\"");
  EXPECT_EQ(p.state.error, port +
                               "/state: got 'ACTIVE'; expected \"N: NAME\" such as "
                               "\"4: ACTIVE\" or \"5: LinkUp\"");
  EXPECT_EQ(p.counters.at("symbol_error").error,
            port +
                "/counters/symbol_error: got 'lots'; expected a decimal count such as "
                "\"0\", or \"N/A (no PMA)\"");
}

TEST(Gather, AHungReadIsCutAtTheDeadlineAndNamesTheFile) {
  const std::string root = CachedFixture("--fault hang:3");
  GatherSpec s = Spec(root);
  s.read_timeout_ms = 300;
  s.total_timeout_ms = 60000;
  // Gather returns although the read never finishes, once the other workers are done (how
  // soon: bench_railcheck), not at the total limit.
  NodeFacts f = Gather(s, std::make_shared<RealSysfs>(), nullptr);
  EXPECT_LT(f.gather_ms, 10000);
  ASSERT_EQ(f.timeouts.size(), 1u);
  EXPECT_EQ(f.timeouts[0].rail, 3);
  EXPECT_EQ(f.timeouts[0].task, "rail3 mlx5_5");
  EXPECT_EQ(f.timeouts[0].path, root + "/class/infiniband/mlx5_5/ports/1/rate");
  ASSERT_EQ(f.nics.size(), 8u);
  EXPECT_FALSE(f.nics[3].complete);
  EXPECT_TRUE(f.nics[2].complete);
  EXPECT_TRUE(f.nics[4].present);
  // Release the stuck worker: a writer lets its blocking open of the FIFO return.
  int fd = open((root + "/class/infiniband/mlx5_5/ports/1/rate").c_str(), O_WRONLY);
  if (fd >= 0) close(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// The node's sysfs on a machine with no CPU to spare: every call returns, 5 ms late (at once
// after Hurry(), so that a test can let its left-behind workers finish).
class BusySysfs : public RealSysfs {
 public:
  bool ReadFile(const std::string& path, std::string* out, std::string* err) const override {
    Wait();
    return RealSysfs::ReadFile(path, out, err);
  }
  bool ListDir(const std::string& path, std::vector<std::string>* out,
               std::string* err) const override {
    Wait();
    return RealSysfs::ListDir(path, out, err);
  }
  void Hurry() { hurry_ = true; }

 private:
  void Wait() const {
    if (!hurry_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::atomic<bool> hurry_{false};
};

// CI saw a healthy node drained with "GPU scan timed out" when the scan as a whole took
// longer than read_timeout_ms on a loaded machine: the limit is for one read that hangs.
TEST(Gather, ASlowNodeWhoseReadsAllReturnIsNotTimedOut) {
  const std::string root = CachedFixture();
  GatherSpec s = Spec(root);
  s.read_timeout_ms = 200;
  s.total_timeout_ms = 60000;
  NodeFacts f = Gather(s, std::make_shared<BusySysfs>(), nullptr);
  EXPECT_GT(f.gather_ms, 200);  // the scan as a whole took longer than one read may
  EXPECT_TRUE(f.timeouts.empty()) << f.timeouts[0].task << " " << f.timeouts[0].path;
  EXPECT_TRUE(f.gpus_complete);
  ASSERT_EQ(f.nics.size(), 8u);
  EXPECT_TRUE(f.nics[7].complete);
}

// ... but total_timeout_ms bounds the wait for all of them together.
TEST(Gather, TheTotalLimitEndsASlowScan) {
  const std::string root = CachedFixture();
  GatherSpec s = Spec(root);
  s.read_timeout_ms = 200;
  s.total_timeout_ms = 250;
  auto fs = std::make_shared<BusySysfs>();
  NodeFacts f = Gather(s, fs, nullptr);
  EXPECT_LT(f.gather_ms, 5000);
  EXPECT_FALSE(f.timeouts.empty());
  fs->Hurry();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the workers finish
}

// libibverbs as a test sees it: one port per device, as given.
class FakeVerbs : public Verbs {
 public:
  std::map<std::string, VerbsPort> ports;
  bool QueryPort(const std::string& name, int port, VerbsPort* out, std::string* err) override {
    auto it = ports.find(name);
    if (it == ports.end() || port != 1) {
      *err = "libibverbs has no device " + name;
      return false;
    }
    *out = it->second;
    return true;
  }
};

TEST(Gather, LibibverbsGivesPortStateAndRateWhenItKnowsTheDevice) {
  const std::string root = CachedFixture();
  auto verbs = std::make_shared<FakeVerbs>();
  VerbsPort vp;
  vp.state = 1;
  vp.state_name = "DOWN";
  vp.phys_state = 2;
  vp.phys_state_name = "Polling";
  vp.width = 4;
  vp.speed = "NDR";
  vp.gbps = 400;
  vp.link_layer = "InfiniBand";
  verbs->ports["mlx5_4"] = vp;
  NodeFacts f = Gather(Spec(root), std::make_shared<RealSysfs>(), verbs);
  EXPECT_TRUE(f.verbs_used);
  ASSERT_EQ(f.nics.size(), 8u);
  EXPECT_EQ(f.nics[2].port.source, "verbs");
  EXPECT_EQ(f.nics[2].port.state.raw, "1: DOWN");
  EXPECT_EQ(f.nics[2].port.phys_state.raw, "2: Polling");
  EXPECT_EQ(f.nics[2].port.rate.raw, "400 Gb/sec (4X NDR)");
  // Counters still come from sysfs; other NICs entirely.
  EXPECT_EQ(f.nics[2].port.counters.size(), 21u);
  EXPECT_EQ(f.nics[1].port.source, "sysfs");
}

TEST(IsBdf, AcceptsPciAddressesOnly) {
  EXPECT_TRUE(IsBdf("0000:18:00.0"));
  EXPECT_TRUE(IsBdf("0000:AB:1f.7"));
  EXPECT_FALSE(IsBdf("pci0000:18"));
  EXPECT_FALSE(IsBdf("0000:18:00.8"));
  EXPECT_FALSE(IsBdf("0000:18:00"));
}

}  // namespace healthcheck_gather_test
}  // namespace railguard::health
