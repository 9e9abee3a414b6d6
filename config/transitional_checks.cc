// SPDX-License-Identifier: GPL-2.0-or-later
// TRANSITIONAL: replaced by healthcheck's check table.
#include "config/transitional_checks.h"

namespace railguard {

const CheckCatalog& TransitionalCheckCatalog() {
  static const CheckCatalog kChecks = {
      {"nic.present", HealthAction::kDrain},
      {"port.state", HealthAction::kDrain},
      {"port.link_layer", HealthAction::kDrain},
      {"port.rate", HealthAction::kDrain},
      {"link.errors", HealthAction::kRestrict},
      {"link.flap", HealthAction::kDrain},
      {"link.counters", HealthAction::kWarn},
      {"pcie.speed", HealthAction::kDrain},
      {"pcie.width", HealthAction::kDrain},
      {"pcie.aer", HealthAction::kDrain},
      {"pcie.aer_correctable", HealthAction::kRestrict},
      {"gpu.count", HealthAction::kDrain},
      {"rail.affinity", HealthAction::kRestrict},
      {"gather.timeout", HealthAction::kDrain},
  };
  return kChecks;
}

const std::vector<std::string>& HealthCheckNames() {
  static const std::vector<std::string> kNames = CheckNames(TransitionalCheckCatalog());
  return kNames;
}

std::map<std::string, HealthAction> DefaultHealthActions() {
  return DefaultActions(TransitionalCheckCatalog());
}

}  // namespace railguard
