// SPDX-License-Identifier: GPL-2.0-or-later
// What the check files (checks_*.cc) share: how a finding is made, how a rail NIC and a rate
// are named, and small questions about the facts (is the port up, which device is this).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "healthcheck/checks.h"

namespace railguard::health::check_util {

inline constexpr int kStateActive = 4;  // ports/N/state "4: ACTIVE"
inline constexpr int kPhysLinkUp = 5;   // ports/N/phys_state "5: LinkUp"

// "rail3 mlx5_5".
std::string RailNic(const NicFacts& n);

// "12/h", "0.5/h".
std::string Rate(double per_hour);

// Errors per hour over `seconds`, which is never taken below
// health.min_rate_interval_seconds.
double PerHour(uint64_t delta, double seconds, const HealthConfig& cfg);

// " +N in DURATION since WHEN (RATE) > limit LIMIT", WHEN "the last run" or "the baseline":
// how link.errors and pcie.aer* say a rise over its limit.
std::string RiseOverLimit(uint64_t rise, double seconds, const char* since, double rate,
                          double limit);

// The NIC was gathered, is present and has a readable port.
bool HasPort(const NicFacts& n);
// HasPort, and the port's link_layer reads Ethernet: a RoCE rail, whose IB counters/ mean
// nothing (its link is judged by the eth.* checks from its netdev).
bool IsRoce(const NicFacts& n);
// HasPort, and the port is ACTIVE and LinkUp.
bool ActiveAndUp(const NicFacts& n);
// The NIC was gathered, is present and its PCI path is known.
bool HasPciPath(const NicFacts& n);

// The NIC of `rail`, or nullptr.
const NicFacts* NicOfRail(const NodeFacts& f, int rail);
// The PCI function `bdf`, or nullptr.
const PciDevice* Device(const NodeFacts& f, const std::string& bdf);
// The aer_dev_* file of `kind` ("correctable", "nonfatal", "fatal").
const AerFact& AerFileOf(const PciDevice& d, const std::string& kind);

// "rail3 gpu3", or "gpu9" for a GPU beyond the last rail; `*rail` = its rail or -1.
std::string GpuName(const NodeFacts& f, const GpuFacts& g, int* rail);

// "" when the NIC and the GPU sit under one PCIe switch (their paths share the root port and
// the switch's upstream port); otherwise where their paths meet instead.
std::string SwitchMiss(const NicFacts& n, const GpuFacts& g);

// A finding of `check`: message "CHECK: DETAIL" and `reason`, both made printable and cut at
// kMaxMessageChars (sysfs text reaches them as found); the action is set later by Judge.
Finding Make(const std::string& check, int rail, Severity sev, const std::string& detail,
             const std::string& reason);

}  // namespace railguard::health::check_util
