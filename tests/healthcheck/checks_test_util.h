// SPDX-License-Identifier: GPL-2.0-or-later
// What the tests of the checks share (checks_*_test.cc, judge_test.cc): facts of a healthy
// 8-rail node built by hand, and the Checks fixture that judges them with a config, a
// baseline and a last run.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "healthcheck/checks.h"

namespace railguard::health::check_testing {

inline constexpr int kBus[] = {0x18, 0x40, 0x4f, 0x5e, 0x9a, 0xc0, 0xce, 0xdc};
inline constexpr const char* kNic[] = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                                       "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};

inline std::string Bdf(int bus, int dev = 0) {
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

inline PciDevice Pcie(const std::string& bdf) {
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
inline NodeFacts Healthy() {
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
  NodeBaseline baseline_;
  bool have_baseline_ = false;
  RunState last_;
  bool have_last_ = false;
  double now_ = 1700000000;
};

}  // namespace railguard::health::check_testing
