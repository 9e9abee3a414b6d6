// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/check_table.h"

#include <cstdio>

namespace railguard::health {

const std::vector<HealthCheck>& HealthChecks() {
  using A = HealthAction;
  // One line a check: name, function, default action, description (--help, man page).
  // clang-format off
  static const std::vector<HealthCheck> kChecks = {
    {"nic.present",          CheckNicPresent,         A::kDrain,    "rail NIC missing, without a port, or renumbered"},
    {"nic.firmware",         CheckNicFirmware,        A::kWarn,     "rail NICs' fw_ver or board_id not all the same"},
    {"port.state",           CheckPortState,          A::kDrain,    "port not 4: ACTIVE and 5: LinkUp"},
    {"port.link_layer",      CheckPortLinkLayer,      A::kDrain,    "port link_layer other than health.link_layer"},
    {"port.rate",            CheckPortRate,           A::kDrain,    "ACTIVE port slower than its rail's link"},
    {"link.errors",          CheckLinkErrors,         A::kRestrict, "error counter rising above its limit per hour"},
    {"link.flap",            CheckLinkFlap,           A::kDrain,    "link went down between runs"},
    {"link.counters",        CheckLinkCounters,       A::kWarn,     "counters that cannot be judged (N/A, reset...)"},
    {"pcie.speed",           CheckPcieSpeed,          A::kDrain,    "PCIe link slower than both its ends allow"},
    {"pcie.width",           CheckPcieWidth,          A::kDrain,    "PCIe link narrower than both its ends allow"},
    {"pcie.gpu_speed",       CheckPcieGpuSpeed,       A::kWarn,     "GPU's own PCIe link in use (above 2.5 GT/s) below its max"},
    {"pcie.aer",             CheckPcieAer,            A::kDrain,    "fatal AER errors, non-fatal ones above limit"},
    {"pcie.aer_correctable", CheckPcieAerCorrectable, A::kRestrict, "correctable AER errors above their limit"},
    {"gpu.count",            CheckGpuCount,           A::kDrain,    "fewer GPUs than the node type has"},
    {"rail.affinity",        CheckRailAffinity,       A::kRestrict, "GPU k not under the PCIe switch of rail k's NIC"},
    {"gather.timeout",       CheckGatherTimeout,      A::kDrain,    "a read did not finish within read_timeout_ms"},
    {"eth.present",          CheckEthPresent,         A::kDrain,    "RoCE rail without its netdev"},
    {"eth.state",            CheckEthState,           A::kDrain,    "RoCE netdev operstate not up"},
    {"eth.speed",            CheckEthSpeed,           A::kDrain,    "RoCE netdev speed below its rail's link"},
    {"eth.flap",             CheckEthFlap,            A::kDrain,    "RoCE carrier_changes or link_down_events_phy rose"},
    {"eth.errors",           CheckEthErrors,          A::kRestrict, "RoCE ethtool error counter above its limit per hour"},
    {"eth.counters",         CheckEthCounters,        A::kWarn,     "RoCE counters that cannot be judged (ioctl, reset)"},
    {"fabric.switch_errors", CheckFabricSwitchErrors, A::kRestrict, "fabric sweep: errors on the switch end of the rail (as link.errors)"},
    {"fabric.switch_rate",   CheckFabricSwitchRate,   A::kDrain,    "fabric sweep: switch end negotiated width/speed down (as port.rate)"},
    {"fabric.leaf",          CheckFabricLeaf,         A::kRestrict, "fabric sweep: many ports of the rail's leaf erring (restrict at most)"},
  };
  // clang-format on
  return kChecks;
}

size_t HealthCheckIndex(const std::string& name) {
  const std::vector<HealthCheck>& checks = HealthChecks();
  size_t i = 0;
  while (i < checks.size() && name != checks[i].name) ++i;
  return i;
}

const CheckCatalog& CheckCatalogOfTable() {
  static const CheckCatalog kCatalog = [] {
    CheckCatalog out;
    for (const HealthCheck& c : HealthChecks()) out.push_back({c.name, c.default_action});
    return out;
  }();
  return kCatalog;
}

std::string CheckTableHelp() {
  std::string s;
  for (const HealthCheck& c : HealthChecks()) {
    char line[160];
    std::snprintf(line, sizeof(line), "  %-20s %-8s %s\n", c.name,
                  HealthActionName(c.default_action), c.description);
    s += line;
  }
  return s;
}

}  // namespace railguard::health
