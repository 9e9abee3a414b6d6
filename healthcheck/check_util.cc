// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/check_util.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "healthcheck/parse.h"

namespace railguard::health::check_util {

std::string RailNic(const NicFacts& n) { return "rail" + std::to_string(n.rail) + " " + n.name; }

std::string Rate(double per_hour) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), per_hour >= 10 ? "%.0f/h" : "%.1f/h", per_hour);
  return buf;
}

double PerHour(uint64_t delta, double seconds, const HealthConfig& cfg) {
  return static_cast<double>(delta) * 3600.0 /
         std::max(seconds, static_cast<double>(cfg.min_rate_interval_seconds));
}

std::string RiseOverLimit(uint64_t rise, double seconds, const char* since, double rate,
                          double limit) {
  return " +" + std::to_string(rise) + " in " + FormatDuration(seconds) + " since " + since + " (" +
         Rate(rate) + ") > limit " + Rate(limit);
}

bool HasPort(const NicFacts& n) { return n.complete && n.present && n.port_error.empty(); }

bool IsRoce(const NicFacts& n) {
  return HasPort(n) && n.port.link_layer.ok() && *n.port.link_layer.value == "Ethernet";
}

bool ActiveAndUp(const NicFacts& n) {
  return HasPort(n) && n.port.state.ok() && n.port.state.value->code == kStateActive &&
         n.port.phys_state.ok() && n.port.phys_state.value->code == kPhysLinkUp;
}

bool HasPciPath(const NicFacts& n) { return n.complete && n.present && !n.pci_path.empty(); }

const NicFacts* NicOfRail(const NodeFacts& f, int rail) {
  for (const NicFacts& n : f.nics)
    if (n.rail == rail) return &n;
  return nullptr;
}

const PciDevice* Device(const NodeFacts& f, const std::string& bdf) {
  auto it = f.pci.find(bdf);
  return it == f.pci.end() ? nullptr : &it->second;
}

const AerFact& AerFileOf(const PciDevice& d, const std::string& kind) {
  if (kind == "correctable") return d.aer_correctable;
  if (kind == "nonfatal") return d.aer_nonfatal;
  return d.aer_fatal;
}

std::string GpuName(const NodeFacts& f, const GpuFacts& g, int* rail) {
  *rail = g.index < static_cast<int>(f.nics.size()) ? g.index : -1;
  return (*rail >= 0 ? "rail" + std::to_string(*rail) + " " : std::string()) + "gpu" +
         std::to_string(g.index);
}

std::string SwitchMiss(const NicFacts& n, const GpuFacts& g) {
  std::vector<std::string> a(n.pci_path.rbegin(), n.pci_path.rend());
  std::vector<std::string> b(g.pci_path.rbegin(), g.pci_path.rend());
  if (n.host_bridge != g.host_bridge) {
    return "they are under different root complexes (" + n.host_bridge + ", " + g.host_bridge + ")";
  }
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  if (common >= 2) return "";
  if (common == 1) return "their paths meet at root port " + a[0];
  return "their paths meet only at root complex " + n.host_bridge;
}

Finding Make(const std::string& check, int rail, Severity sev, const std::string& detail,
             const std::string& reason) {
  Finding f;
  f.check = check;
  f.rail = rail;
  f.severity = sev;
  // Paths from directory listings and values read from sysfs reach these as found: whatever
  // a broken or hostile sysfs holds, a message stays one line of printable text for the
  // report and slurmd's log, and the reason Slurm gets stays short.
  f.message = Printable(check + ": " + detail, kMaxMessageChars);
  f.reason = Printable(reason, kMaxMessageChars);
  return f;
}

}  // namespace railguard::health::check_util
