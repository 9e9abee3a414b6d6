// SPDX-License-Identifier: GPL-2.0-or-later
// The table of railcheck's health checks, the one place that lists them: each check's
// stable name (a key of health.actions), the function that judges it, its default action
// and one line saying what it fails on. Judge runs it; `railcheck --help` and
// railcheck(8) list it.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "healthcheck/checks.h"

namespace railguard::health {

// A check: appends its findings (severity, message and reason set; action not yet).
using CheckFn = void (*)(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);

struct HealthCheck {
  const char* name;             // "port.rate"
  CheckFn judge;                // CheckPortRate
  HealthAction default_action;  // without a health.actions entry
  const char* description;      // one line for --help: what makes it fail
};

// Every check, in report order (findings of equal action and severity are listed in it).
const std::vector<HealthCheck>& HealthChecks();

// The place of `name` in HealthChecks(), or HealthChecks().size() when it is none.
size_t HealthCheckIndex(const std::string& name);

// The table as the config loader takes it (config/load.h): each check's name and default
// action, in order. railcheck and railctl pass it, so health.actions is validated against
// the checks that exist and every check not named there gets its default.
const CheckCatalog& CheckCatalogOfTable();

// The checks as --help lists them: "  NAME  ACTION  DESCRIPTION" per line.
std::string CheckTableHelp();

}  // namespace railguard::health
