// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the GPU and gather checks (healthcheck/checks_gpu.cc): gpu.count, rail.affinity,
// gather.timeout, on facts built by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "tests/healthcheck/checks_test_util.h"

namespace railguard::health {
namespace healthcheck_checks_gpu_test {

using namespace check_testing;

TEST_F(Checks, GpuCountInAScanNamesTheRailWhoseSwitchLostItsGpu) {
  facts_.gpus.erase(facts_.gpus.begin() + 3);
  for (size_t i = 3; i < facts_.gpus.size(); ++i) facts_.gpus[i].index = static_cast<int>(i);
  facts_.sysfs_root = "/sys";
  std::vector<std::string> m = Messages();
  // GPU k is no longer the k-th GPU: rail.affinity is not judged then.
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0],
            "gpu.count: rail3 mlx5_5 has no GPU under its PCIe switch (7 NVIDIA GPUs in "
            "/sys/bus/pci/devices, expected 8)");
}

TEST_F(Checks, GpuCountOfListedGpusNamesTheMissingOne) {
  facts_.gpu_source = "gpu_pci";
  facts_.gpus[6].present = false;
  facts_.gpus[6].missing = "/sys/bus/pci/devices/0000:d1:00.0 does not exist";
  std::vector<Finding> out;
  CheckGpuCount(Input(), ComputeCounterMoves(Input()), &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message,
            "gpu.count: rail6 gpu6 0000:d1:00.0 missing (/sys/bus/pci/devices/"
            "0000:d1:00.0 does not exist); 7 of 8 GPUs present");
  EXPECT_EQ(out[0].rail, 6);
}

TEST_F(Checks, RailAffinityWantsGpuKAndNicKUnderOneSwitch) {
  std::swap(facts_.gpus[3].pci_path, facts_.gpus[4].pci_path);
  std::swap(facts_.gpus[3].bdf, facts_.gpus[4].bdf);
  std::swap(facts_.gpus[3].host_bridge, facts_.gpus[4].host_bridge);
  std::vector<Finding> out;
  CheckRailAffinity(Input(), ComputeCounterMoves(Input()), &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].message,
            "rail.affinity: rail3 mlx5_5 (0000:5e:00.0) and gpu3 (0000:9d:00.0) are not under "
            "one PCIe switch: they are under different root complexes (pci0000:5b, "
            "pci0000:97); expected GPU 3 beside the NIC of rail 3");
  EXPECT_EQ(out[0].reason, "rail3 mlx5_5 not beside gpu3");
}

TEST_F(Checks, ATimedOutReadIsADownRailNamingTheFile) {
  facts_.nics[3].complete = false;
  facts_.timeouts.push_back(
      GatherTimeout{3, "rail3 mlx5_5", "/sys/class/infiniband/mlx5_5/ports/1/rate", 500});
  Judgement j = Judge(Input());
  ASSERT_GE(j.verdict.findings.size(), 1u);
  ASSERT_EQ(j.verdict.rails.size(), 8u);
  EXPECT_EQ(j.verdict.findings[0].message,
            "gather.timeout: rail3 mlx5_5: reading /sys/class/infiniband/mlx5_5/ports/1/rate did "
            "not finish within 500 ms");
  EXPECT_EQ(j.verdict.findings[0].reason, "rail3 mlx5_5 sysfs read timed out");
  EXPECT_EQ(j.verdict.rails[3].status, RailStatus::kDown);
}

}  // namespace healthcheck_checks_gpu_test
}  // namespace railguard::health
