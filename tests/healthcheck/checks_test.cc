// Tests for the named checks and the judge (healthcheck/checks.h), on facts built by hand:
// each check's actual-versus-expected message, rates since the last run and the baseline,
// counter resets, flaps and their window, PCIe links seen from both ends, AER, GPUs.
#include "healthcheck/checks.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace railguard::health {
namespace {

const int kBus[] = {0x18, 0x40, 0x4f, 0x5e, 0x9a, 0xc0, 0xce, 0xdc};
const char* const kNic[] = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                            "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};

std::string Bdf(int bus, int dev = 0) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0000:%02x:%02x.0", bus, dev);
  return buf;
}

template <typename T>
Fact<T> Val(T v, const std::string& raw) {
  Fact<T> f;
  f.value = v;
  f.raw = raw;
  return f;
}

PciDevice Pcie(const std::string& bdf) {
  PciDevice d;
  d.bdf = bdf;
  d.has_link = true;
  d.cur_speed = Val(PcieSpeedValue{32, false}, "32.0 GT/s PCIe");
  d.max_speed = Val(PcieSpeedValue{32, false}, "32.0 GT/s PCIe");
  d.cur_width = Val(16, "16");
  d.max_width = Val(16, "16");
  for (AerFact* a : {&d.aer_correctable, &d.aer_nonfatal, &d.aer_fatal}) {
    a->present = true;
    a->value = Val(AerValue{}, "");
  }
  return d;
}

// A healthy 8-rail DGX H100-like node, as the gatherer would report it.
NodeFacts Healthy() {
  NodeFacts f;
  f.node = "n001";
  f.sysfs_root = "/";
  f.gpu_source = "scan";
  for (int k = 0; k < 8; ++k) {
    const int b = kBus[k];
    NicFacts n;
    n.rail = k;
    n.name = kNic[k];
    n.present = true;
    n.port.number = 1;
    n.port.dir = std::string("/class/infiniband/") + kNic[k] + "/ports/1";
    n.port.source = "sysfs";
    n.port.state = Val(PortStateValue{4, "ACTIVE"}, "4: ACTIVE");
    n.port.phys_state = Val(PortStateValue{5, "LinkUp"}, "5: LinkUp");
    n.port.link_layer = Val(std::string("InfiniBand"), "InfiniBand");
    n.port.rate = Val(RateValue{400, 4, "NDR"}, "400 Gb/sec (4X NDR)");
    for (const std::string& c : LinkErrorCounterNames()) n.port.counters[c] = Counter{};
    n.port.counters["link_downed"] = Counter{};
    n.pci = Bdf(b);
    n.pci_path = {Bdf(b), Bdf(b - 1, 0), Bdf(b - 2), Bdf(b - 3, 1)};
    n.host_bridge = "pci0000:" + Bdf(b - 3).substr(5, 2);
    for (const std::string& d : n.pci_path) f.pci[d] = Pcie(d);
    GpuFacts g;
    g.index = k;
    g.bdf = Bdf(b + 3);
    g.present = true;
    g.pci_path = {Bdf(b + 3), Bdf(b - 1, 1), Bdf(b - 2), Bdf(b - 3, 1)};
    g.host_bridge = n.host_bridge;
    for (const std::string& d : g.pci_path) f.pci[d] = Pcie(d);
    f.nics.push_back(n);
    f.gpus.push_back(g);
  }
  return f;
}

class Checks : public ::testing::Test {
 protected:
  Checks() : facts_(Healthy()) {}

  JudgeInput Input() {
    JudgeInput in;
    in.facts = &facts_;
    in.rail_links.assign(8, topo::LinkSpec{400, 4, "NDR"});
    in.gpus_expected = 8;
    in.config = &cfg_;
    in.baseline = have_baseline_ ? &baseline_ : nullptr;
    in.baseline_path = "/var/lib/railguard/health/n001/baseline.json";
    in.last = have_last_ ? &last_ : nullptr;
    in.now = now_;
    return in;
  }

  // The messages of the judge's findings, notes about the missing baseline left out.
  std::vector<std::string> Messages() {
    std::vector<std::string> out;
    for (const Finding& f : Judge(Input()).verdict.findings)
      if (f.message.find("no baseline at") == std::string::npos) out.push_back(f.message);
    return out;
  }

  // Records this run as the last one, `later` seconds before the next.
  void NextRun(double later) {
    Judgement j = Judge(Input());
    last_ = j.next;
    have_last_ = true;
    now_ += later;
  }

  NodeFacts facts_;
  HealthConfig cfg_;
  Baseline baseline_;
  bool have_baseline_ = false;
  RunState last_;
  bool have_last_ = false;
  double now_ = 1700000000;
};

TEST_F(Checks, AHealthyNodeHasNoFindingButTheMissingBaselineNote) {
  Judgement j = Judge(Input());
  ASSERT_EQ(j.verdict.findings.size(), 1u);
  EXPECT_EQ(j.verdict.findings[0].message,
            "link.counters: no baseline at /var/lib/railguard/health/n001/baseline.json: error "
            "rates are judged since the last run only (record one with `railcheck baseline`)");
  EXPECT_EQ(j.verdict.findings[0].severity, Severity::kNote);
  EXPECT_EQ(j.verdict.level, Level::kWarn);
  for (const RailHealth& r : j.verdict.rails) EXPECT_EQ(r.status, RailStatus::kOk);
}

TEST_F(Checks, NicPresentSaysWhatWasLookedFor) {
  facts_.nics[3].present = false;
  facts_.nics[3].missing = "/class/infiniband/mlx5_5 does not exist";
  facts_.nics[3].pci_path.clear();
  Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.findings[0].message,
            "nic.present: rail3 mlx5_5 missing: /class/infiniband/mlx5_5 does not exist; "
            "expected the rail NIC of the node type");
  EXPECT_EQ(j.verdict.findings[0].reason, "rail3 mlx5_5 missing");
  EXPECT_EQ(j.verdict.rails[3].status, RailStatus::kDown);
  EXPECT_EQ(j.verdict.level, Level::kDrain);
}

TEST_F(Checks, ARenumberedNicIsCaughtByTheNodeTypesPciAddresses) {
  // mlx5_4 failed to probe: the card of rail 3 came up as mlx5_4, and so on.
  facts_.nics[2].pci = Bdf(0x5e);
  JudgeInput in = Input();
  for (int k = 0; k < 8; ++k) in.nic_pci.push_back(Bdf(kBus[k]));
  std::vector<Finding> out;
  CheckNicPresent(in, ComputeHistory(in), &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message,
            "nic.present: rail2 mlx5_4 is PCI function 0000:5e:00.0, expected "
            "0000:4f:00.0 (nic_pci of the node type): the NICs were renumbered "
            "or moved");
  EXPECT_EQ(out[0].reason, "rail2 mlx5_4 is 0000:5e:00.0, not 0000:4f:00.0");
}

TEST_F(Checks, PortStateNamesStateAndPhysStateAgainstTheirExpectedValues) {
  facts_.nics[1].port.state = Val(PortStateValue{2, "INIT"}, "2: INIT");
  facts_.nics[6].port.state = Val(PortStateValue{1, "DOWN"}, "1: DOWN");
  facts_.nics[6].port.phys_state = Val(PortStateValue{2, "Polling"}, "2: Polling");
  std::vector<Finding> out;
  CheckPortState(Input(), ComputeHistory(Input()), &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].message, "port.state: rail1 mlx5_3 state 2: INIT (expected 4: ACTIVE)");
  EXPECT_EQ(out[0].reason, "rail1 mlx5_3 port INIT");
  EXPECT_EQ(out[1].message,
            "port.state: rail6 mlx5_10 state 1: DOWN (expected 4: ACTIVE), phys_state 2: "
            "Polling (expected 5: LinkUp)");
  EXPECT_EQ(out[1].reason, "rail6 mlx5_10 port DOWN/Polling");
  EXPECT_EQ(out[1].severity, Severity::kDown);
}

TEST_F(Checks, PortRateSaysActualVersusExpectedAndIsNotJudgedOnADownPort) {
  facts_.nics[3].port.rate = Val(RateValue{200, 2, "NDR"}, "200 Gb/sec (2X NDR)");
  facts_.nics[5].port.rate = Val(RateValue{10, 4, "SDR"}, "10 Gb/sec (4X SDR)");
  facts_.nics[5].port.state = Val(PortStateValue{1, "DOWN"}, "1: DOWN");
  std::vector<Finding> out;
  CheckPortRate(Input(), ComputeHistory(Input()), &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message,
            "port.rate: rail3 mlx5_5 rate 200 Gb/sec (2X NDR) < expected 400 Gb/sec (4X NDR)");
  EXPECT_EQ(out[0].reason, "rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s");
  EXPECT_EQ(out[0].severity, Severity::kDegraded);
}

TEST_F(Checks, PortLinkLayerMustMatchTheConfig) {
  facts_.nics[0].port.link_layer = Val(std::string("Ethernet"), "Ethernet");
  std::vector<Finding> out;
  CheckPortLinkLayer(Input(), ComputeHistory(Input()), &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message,
            "port.link_layer: rail0 mlx5_0 link_layer Ethernet; expected "
            "InfiniBand");
  cfg_.link_layer = "Ethernet";
  out.clear();
  CheckPortLinkLayer(Input(), ComputeHistory(Input()), &out);
  EXPECT_EQ(out.size(), 7u);
}

TEST_F(Checks, ErrorCountersAreRatesSinceTheLastRunNotAbsoluteValues) {
  facts_.nics[2].port.counters["symbol_error"].value = 5000;  // before the first run
  NextRun(600);
  EXPECT_TRUE(Messages().empty()) << "a high absolute value alone is no finding";
  facts_.nics[2].port.counters["symbol_error"].value = 5050;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 symbol_error +50 in 10 min since the "
                            "last run (50/h) > limit 10/h"}));
  Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.findings[0].reason, "rail2 mlx5_4 symbol_error 50/h > 10/h");
  EXPECT_EQ(j.verdict.findings[0].action, HealthAction::kRestrict);
  EXPECT_EQ(j.verdict.level, Level::kRestrict);
  EXPECT_EQ(j.verdict.rails[2].status, RailStatus::kDegraded);
}

TEST_F(Checks, ShortIntervalsAreStretchedToTheMinimumRateInterval) {
  NextRun(5);
  // By default runs under an hour apart compare their plain increase with the limit.
  facts_.nics[2].port.counters["symbol_error"].value = 1;
  EXPECT_TRUE(Messages().empty()) << "one error between a Prolog and an Epilog";
  facts_.nics[2].port.counters["symbol_error"].value = 11;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 symbol_error +11 in 5 s since the last "
                            "run (11/h) > limit 10/h"}));
  // A shorter minimum makes a short interval weigh more: one error over 60 s is 60/h.
  cfg_.min_rate_interval_seconds = 60;
  facts_.nics[2].port.counters["symbol_error"].value = 1;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.errors: rail2 mlx5_4 symbol_error +1 in 5 s since the last "
                            "run (60/h) > limit 10/h"}));
}

TEST_F(Checks, SlowAccumulationIsCaughtSinceTheBaselineAcrossCounterResets) {
  have_baseline_ = true;
  baseline_.node = "n001";
  baseline_.time = now_;
  baseline_.ports["mlx5_4"].counters["port_rcv_errors"] = 100;
  facts_.nics[2].port.counters["port_rcv_errors"].value = 100;
  NextRun(86400);
  facts_.nics[2].port.counters["port_rcv_errors"].value = 340;  // +240 in a day: 10/h
  NextRun(86400);
  // A reboot resets the counters; the sum since the baseline goes on.
  facts_.nics[2].port.counters["port_rcv_errors"].value = 30;
  Judgement j = Judge(Input());
  EXPECT_EQ(j.next.ports.at("mlx5_4").since_baseline.at("port_rcv_errors"), 270u);
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 1u);  // 270 in 2 days is below 10/h: only the reset is said
  EXPECT_EQ(m[0],
            "link.counters: rail2 mlx5_4 port_rcv_errors went backwards (340 -> 30) "
            "since the last run: the counters were reset (driver restart, reboot or "
            "perfquery -R); counting again from 30");
  cfg_.link_error_limits["port_rcv_errors"] = 5;
  m = Messages();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0],
            "link.errors: rail2 mlx5_4 port_rcv_errors +270 in 2.0 days since the "
            "baseline (5.6/h) > limit 5.0/h");
}

TEST_F(Checks, ASaturatedCounterIsSaidAndNotTakenForErrors) {
  facts_.nics[4].port.counters["port_xmit_wait"].value = 4294967295u;
  facts_.nics[4].port.counters["symbol_error"].value = 65535;
  NextRun(600);
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0],
            "link.counters: rail4 mlx5_6 port_xmit_wait is stuck at 4294967295, the "
            "maximum of its 32-bit counter: its increases are invisible until the "
            "counters are reset");
  EXPECT_EQ(m[1],
            "link.counters: rail4 mlx5_6 symbol_error is stuck at 65535, the maximum of "
            "its 16-bit counter: its increases are invisible until the counters are "
            "reset");
}

TEST_F(Checks, NoPmaCountersAreOneNoteAndNeverAFault) {
  for (auto& kv : facts_.nics[0].port.counters) kv.second.no_pma = true;
  NextRun(600);
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0],
            "link.counters: rail0 mlx5_0 13 of 13 counters read 'N/A (no PMA)': the "
            "device has no performance management agent, so link.errors and link.flap "
            "cannot judge them");
}

TEST_F(Checks, LinkDownedRisingIsAFlapThatStaysForTheWindow) {
  cfg_.flap_window_seconds = 3600;
  facts_.nics[2].port.counters["link_downed"].value = 3;
  NextRun(600);
  facts_.nics[2].port.counters["link_downed"].value = 5;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.flap: rail2 mlx5_4 link went down since the last run "
                            "(link_downed 3 -> 5); 2 flap(s) in the last 60 min; expected a "
                            "stable link"}));
  NextRun(600);
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.flap: rail2 mlx5_4 2 flap(s) in the last 60 min, the last "
                            "10 min ago; expected none for 60 min"}));
  Judgement j = Judge(Input());
  EXPECT_EQ(j.verdict.findings[0].reason, "rail2 mlx5_4 link flapping (2 in 60 min)");
  EXPECT_EQ(j.verdict.level, Level::kDrain);
  NextRun(3600);
  EXPECT_TRUE(Messages().empty());
}

TEST_F(Checks, APortLeavingActiveBetweenRunsIsAFlapComingBackIsNot) {
  cfg_.flap_window_seconds = 0;
  NextRun(60);
  facts_.nics[7].port.state = Val(PortStateValue{1, "DOWN"}, "1: DOWN");
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1],
            "link.flap: rail7 mlx5_11 link went down since the last run (state ACTIVE -> "
            "DOWN); expected a stable link");
  NextRun(60);
  facts_.nics[7].port.state = Val(PortStateValue{4, "ACTIVE"}, "4: ACTIVE");
  EXPECT_TRUE(Messages().empty());
}

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
            "pcie.aer: rail7 mlx5_11 bridge 0000:da:00.0 non-fatal AER errors +1 in 60 min "
            "since the last run (1.0/h) > limit 0.0/h (CmpltTO 1)");
  EXPECT_EQ(j.verdict.findings[0].action, HealthAction::kDrain);
  EXPECT_EQ(j.verdict.findings[1].message,
            "pcie.aer_correctable: rail0 gpu0 0000:1b:00.0 correctable AER errors +150 in 60 "
            "min since the last run (150/h) > limit 100/h (BadTLP 150)");
  EXPECT_EQ(j.verdict.findings[1].action, HealthAction::kRestrict);
}

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
  CheckGpuCount(Input(), ComputeHistory(Input()), &out);
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
  CheckRailAffinity(Input(), ComputeHistory(Input()), &out);
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
  EXPECT_EQ(j.verdict.findings[0].message,
            "gather.timeout: rail3 mlx5_5: reading /sys/class/infiniband/mlx5_5/ports/1/rate did "
            "not finish within 500 ms");
  EXPECT_EQ(j.verdict.findings[0].reason, "rail3 mlx5_5 sysfs read timed out");
  EXPECT_EQ(j.verdict.rails[3].status, RailStatus::kDown);
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

}  // namespace
}  // namespace railguard::health
