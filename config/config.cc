// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/config.h"

#include <cstddef>


namespace railguard {

namespace {

// An enum value and the word railguard.yaml spells it with.
template <typename E>
struct Named {
  E value;
  const char* name;
};

constexpr Named<PlacementMode> kModeNames[] = {{PlacementMode::kStrict, "strict"},
                                               {PlacementMode::kPrefer, "prefer"},
                                               {PlacementMode::kOff, "off"}};
constexpr Named<HealthAction> kActionNames[] = {{HealthAction::kDrain, "drain"},
                                                {HealthAction::kRestrict, "restrict"},
                                                {HealthAction::kWarn, "warn"},
                                                {HealthAction::kOff, "off"}};
constexpr Named<HealthMode> kHealthModeNames[] = {{HealthMode::kEnforce, "enforce"},
                                                  {HealthMode::kObserve, "observe"}};

// The word of `value` in `table`, or "?".
template <typename E, size_t N>
const char* NameOf(const Named<E> (&table)[N], E value) {
  for (const Named<E>& n : table)
    if (n.value == value) return n.name;
  return "?";
}

// Sets `*out` to the value `text` spells in `table` (exactly); false, `*out` unchanged, if none.
template <typename E, size_t N>
bool ParseName(const Named<E> (&table)[N], std::string_view text, E* out) {
  for (const Named<E>& n : table) {
    if (text == n.name) {
      *out = n.value;
      return true;
    }
  }
  return false;
}

}  // namespace

const char* PlacementModeName(PlacementMode mode) { return NameOf(kModeNames, mode); }

bool ParsePlacementMode(std::string_view text, PlacementMode* out) {
  return ParseName(kModeNames, text, out);
}

const char* HealthActionName(HealthAction action) { return NameOf(kActionNames, action); }
const char* HealthModeName(HealthMode mode) { return NameOf(kHealthModeNames, mode); }

bool ParseHealthAction(std::string_view text, HealthAction* out) {
  return ParseName(kActionNames, text, out);
}

const std::vector<std::string>& LinkErrorCounterNames() {
  // Never destroyed: a plugin thread may still read it while slurmctld exits.
  static const std::vector<std::string>& kNames =
      *new std::vector<std::string>{"symbol_error",
                                    "link_error_recovery",
                                    "port_rcv_errors",
                                    "port_rcv_remote_physical_errors",
                                    "port_rcv_switch_relay_errors",
                                    "port_xmit_discards",
                                    "port_xmit_constraint_errors",
                                    "port_rcv_constraint_errors",
                                    "local_link_integrity_errors",
                                    "excessive_buffer_overrun_errors",
                                    "VL15_dropped",
                                    "port_xmit_wait"};
  return kNames;
}

std::map<std::string, HealthAction> DefaultActions(const CheckCatalog& checks) {
  std::map<std::string, HealthAction> a;
  for (const CheckInfo& c : checks) a[c.name] = c.default_action;
  return a;
}

std::vector<std::string> CheckNames(const CheckCatalog& checks) {
  std::vector<std::string> names;
  names.reserve(checks.size());
  for (const CheckInfo& c : checks) names.push_back(c.name);
  return names;
}

std::map<std::string, long long> DefaultLinkErrorLimits() {
  return {{"symbol_error", 120},
          {"link_error_recovery", 10},
          {"port_rcv_errors", 10},
          {"port_rcv_remote_physical_errors", 100},
          {"port_rcv_switch_relay_errors", 100},
          {"port_xmit_discards", 100},
          {"port_xmit_constraint_errors", 100},
          {"port_rcv_constraint_errors", 100},
          {"local_link_integrity_errors", 0},
          {"excessive_buffer_overrun_errors", 0},
          {"VL15_dropped", 100}};
}

HealthConfig::HealthConfig() : link_error_limits(DefaultLinkErrorLimits()) {}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

}  // namespace railguard
