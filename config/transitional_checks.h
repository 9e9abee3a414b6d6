// SPDX-License-Identifier: GPL-2.0-or-later
// TRANSITIONAL: the checks railcheck runs, as one CheckCatalog, until healthcheck's check
// table (name, function, default action, description) replaces this file. railcheck and
// railctl pass it to the loader; HealthConfig() takes its default actions from it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/config.h"

namespace railguard {

// Replaced by healthcheck's check table. Every check railcheck runs, in report order, with
// its default action: drain for hardware faults, restrict for degraded links (link.errors,
// pcie.aer_correctable) and PCIe affinity, warn for counter notes.
const CheckCatalog& TransitionalCheckCatalog();

// Replaced by healthcheck's check table. The names of TransitionalCheckCatalog(), in order.
const std::vector<std::string>& HealthCheckNames();

// Replaced by healthcheck's check table. DefaultActions(TransitionalCheckCatalog()).
std::map<std::string, HealthAction> DefaultHealthActions();

}  // namespace railguard
