// SPDX-License-Identifier: GPL-2.0-or-later
// The readers and checks on real sysfs: the node_exporter capture in shared/data (an mlx4
// HCA with a saturated 32-bit port_xmit_wait, an i40iw whose counters read "N/A (no PMA)",
// a PCIe device trained below its own maximum behind a slower root port, AER files).
#include <gtest/gtest.h>

#include "healthcheck/checks.h"
#include "healthcheck/gather.h"
#include "tests/healthcheck/health_test_util.h"
#include "tests/shared_data.h"

namespace railguard::health {
namespace healthcheck_capture_test {

using testing::CopyCapture;
using testing::MaterializeCapture;
using testing::TempDir;

// The capture is copied and gathered once per form; the tests only read it. Its links are
// tested in both forms ../shared may hold: as text files holding the target (Capture) and
// as real symlinks, as git checks them out (CaptureRealLinks).
template <bool kRealLinks>
class CaptureForm : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!::railguard::testing::HaveShared(testing::kCaptureRel)) return;
    tmp_ = new TempDir();
    // The source in the wanted form, then the copy the tests read, made from it.
    const std::string src = CopyCapture(testing::SharedCapture(), *tmp_ / "src", !kRealLinks);
    root_ = CopyCapture(src, *tmp_ / "sys");
    GatherSpec spec;
    spec.node = "capture";
    spec.sysfs_root = root_;
    spec.nics = {"mlx4_0", "i40iw0"};
    spec.gpu_pci = {"0000:01:00.0", "0000:45:00.0"};
    spec.read_timeout_ms = 5000;
    facts_ = Gather(spec, std::make_shared<RealSysfs>(), nullptr);
  }
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }
  void SetUp() override { RAILGUARD_NEEDS_SHARED(testing::kCaptureRel); }

  static TempDir* tmp_;
  static std::string root_;
  static NodeFacts facts_;
};

template <bool kRealLinks>
TempDir* CaptureForm<kRealLinks>::tmp_ = nullptr;
template <bool kRealLinks>
std::string CaptureForm<kRealLinks>::root_;
template <bool kRealLinks>
NodeFacts CaptureForm<kRealLinks>::facts_;

using Capture = CaptureForm<false>;
using CaptureRealLinks = CaptureForm<true>;

// A test of the gathered capture, run on both forms: the body sees `facts_` and `root_`.
#define CAPTURE_TEST(name)                                                   \
  void name##Body(const NodeFacts& facts_, const std::string& root_);       \
  TEST_F(Capture, name) { name##Body(facts_, root_); }                       \
  TEST_F(CaptureRealLinks, name) { name##Body(facts_, root_); }              \
  void name##Body([[maybe_unused]] const NodeFacts& facts_,                  \
                  [[maybe_unused]] const std::string& root_)

CAPTURE_TEST(Mlx4PortIsReadWithStateRateAndCounters) {
  ASSERT_EQ(facts_.nics.size(), 2u);
  const NicFacts& n = facts_.nics[0];
  ASSERT_TRUE(n.present);
  ASSERT_EQ(n.port_error, "");
  EXPECT_EQ(n.port.number, 1);
  EXPECT_EQ(n.port.source, "sysfs");
  EXPECT_EQ(n.port.state.value->code, 4);
  EXPECT_EQ(n.port.state.raw, "4: ACTIVE");
  EXPECT_EQ(n.port.phys_state.raw, "5: LinkUp");
  EXPECT_EQ(*n.port.link_layer.value, "InfiniBand");
  EXPECT_EQ(n.port.rate.value->gbps, 40);
  EXPECT_EQ(n.port.rate.value->speed, "QDR");
  EXPECT_EQ(n.port.counters.at("port_xmit_wait").value, 4294967295u);
  EXPECT_EQ(n.port.counters.at("port_xmit_discards").value, 5u);
  EXPECT_EQ(n.port.counters.at("port_rcv_packets").value, 6825908347u);
  EXPECT_TRUE(n.port.hw_counters.empty());
  // The capture has no device link for its HCAs.
  EXPECT_EQ(n.pci, "");
  EXPECT_EQ(n.pci_error,
            root_ + "/class/infiniband/mlx4_0/device: cannot resolve: No such file or directory");
}

CAPTURE_TEST(I40iwCountersReadNoPma) {
  ASSERT_EQ(facts_.nics.size(), 2u);
  const NicFacts& n = facts_.nics[1];
  ASSERT_TRUE(n.present);
  EXPECT_EQ(n.port.rate.raw, "10 Gb/sec (4X)");
  EXPECT_EQ(n.port.counters.size(), 17u);
  for (const auto& kv : n.port.counters) {
    EXPECT_TRUE(kv.second.no_pma) << kv.first;
    EXPECT_EQ(kv.second.error, "") << kv.first;
  }
}

CAPTURE_TEST(PciPathsAndLinkAttributesAreRead) {
  ASSERT_EQ(facts_.gpus.size(), 2u);
  EXPECT_EQ(facts_.gpu_source, "gpu_pci");
  EXPECT_EQ(facts_.gpus[0].pci_path, (std::vector<std::string>{"0000:01:00.0", "0000:00:02.1"}));
  EXPECT_EQ(facts_.gpus[0].host_bridge, "pci0000:00");
  EXPECT_EQ(facts_.gpus[1].pci_path, (std::vector<std::string>{"0000:45:00.0", "0000:40:01.3"}));
  const PciDevice& nvme = facts_.pci.at("0000:01:00.0");
  EXPECT_EQ(nvme.cur_speed.value->gts, 8.0);
  EXPECT_EQ(nvme.max_speed.value->gts, 16.0);
  EXPECT_EQ(*nvme.cur_width.value, 4);
  ASSERT_TRUE(nvme.aer_correctable.present);
  EXPECT_EQ(nvme.aer_correctable.value.value->counts.size(), 8u);
  EXPECT_EQ(nvme.aer_fatal.value.value->total, 0u);
  EXPECT_EQ(nvme.aer_nonfatal.value.value->counts.size(), 18u);
  const PciDevice& rp = facts_.pci.at("0000:00:02.1");
  EXPECT_EQ(rp.max_speed.raw, "8.0 GT/s PCIe");
  EXPECT_EQ(*rp.max_width.value, 8);
  EXPECT_FALSE(rp.aer_fatal.present);
  // The bridge above the igb NIC has no PCIe link attributes in the capture.
  EXPECT_FALSE(facts_.pci.at("0000:40:01.3").has_link);
  EXPECT_EQ(facts_.pci.at("0000:45:00.0").cur_speed.raw, "5.0 GT/s PCIe");
}

CAPTURE_TEST(JudgedTheSaturatedAndNoPmaCountersAreNotesAndTheSlowRootPortIsNoFault) {
  HealthConfig cfg;
  JudgeInput in;
  in.facts = &facts_;
  in.rail_links = {topo::LinkSpec{40, 4, "QDR"}, topo::LinkSpec{10, 4, "SDR"}};
  in.gpus_expected = 2;
  in.config = &cfg;
  in.baseline_path = "/state/baseline.json";
  in.now = 1000;
  Judgement j = Judge(in);
  std::vector<std::string> messages;
  for (const Finding& f : j.verdict.findings) messages.push_back(f.message);
  // 0000:01:00.0 runs at 8.0 GT/s below its own 16.0, but its root port tops out at 8.0:
  // the link is as fast as it can be. The same for the x4 link of the x8 root port.
  // The two NICs of the capture are different devices (a ConnectX-3 and an Intel X722):
  // taken as two rails, their firmware and boards differ (issue 13 item 11).
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "nic.firmware: rail NICs disagree on fw_ver: 0.2 (rail1 i40iw0); 2.31.5050 "
                "(rail0 mlx4_0); expected one fw_ver on every rail NIC",
                "nic.firmware: rail NICs disagree on board_id: I40IW Board ID (rail1 i40iw0); "
                "SM_1141000001000 (rail0 mlx4_0); expected one board_id on every rail NIC",
                "link.counters: no baseline at /state/baseline.json: fatal AER errors are "
                "counted since boot, none accepted (record one with `railcheck baseline`); "
                "error rates need none",
                "link.counters: rail0 mlx4_0 has no counter VL15_dropped, "
                "excessive_buffer_overrun_errors, local_link_integrity_errors (and 3 more) in " +
                    root_ + "/class/infiniband/mlx4_0/ports/1; link.errors cannot judge it",
                "link.counters: rail0 mlx4_0 port_xmit_wait is stuck at 4294967295, the maximum "
                "of its 32-bit counter: its increases are invisible until the counters are "
                "reset",
                "link.counters: rail1 i40iw0 17 of 17 counters read 'N/A (no PMA)': the device "
                "has no performance management agent, so link.errors and link.flap cannot "
                "judge them",
            }));
  EXPECT_EQ(j.verdict.level, Level::kWarn);
  ASSERT_EQ(j.verdict.rails.size(), 2u);
  EXPECT_EQ(j.verdict.rails[0].status, RailStatus::kOk);
  EXPECT_EQ(j.verdict.rails[1].status, RailStatus::kOk);
}

TEST(CaptureMlx4, TheSecondPortIsReadWhenItIsTheOnlyOne) {
  RAILGUARD_NEEDS_SHARED(testing::kCaptureRel);
  // Port 2 of mlx4_0 lacks most error counters: the checks say which they cannot judge.
  TempDir tmp;
  const std::string root_ = MaterializeCapture(tmp / "sys");
  testing::fs::remove_all(root_ + "/class/infiniband/mlx4_0/ports/1");
  std::map<std::string, PciDevice> pci;
  NicFacts n = GatherNic(RealSysfs(), nullptr, root_, 0, "mlx4_0", &pci);
  ASSERT_EQ(n.port_error, "");
  EXPECT_EQ(n.port.number, 2);
  EXPECT_FALSE(n.port.counters.count("symbol_error"));
  NodeFacts f;
  f.node = "capture";
  f.nics = {n};
  HealthConfig cfg;
  JudgeInput in;
  in.facts = &f;
  in.rail_links = {topo::LinkSpec{40, 4, "QDR"}};
  in.config = &cfg;
  in.baseline_path = "/b";
  std::vector<Finding> out;
  CheckLinkCounters(in, ComputeCounterMoves(in), &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].message,
            "link.counters: rail0 mlx4_0 has no counter VL15_dropped, "
            "excessive_buffer_overrun_errors, local_link_integrity_errors (and "
            "7 more) "
            "in " +
                root_ +
                "/class/infiniband/mlx4_0/ports/2; link.errors "
                "cannot judge it");
}

}  // namespace healthcheck_capture_test
}  // namespace railguard::health
