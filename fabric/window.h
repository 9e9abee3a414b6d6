// SPDX-License-Identifier: GPL-2.0-or-later
// Sweep-to-sweep error windows: a sweep's error counters judged by how much they grew since
// the previous sweep per unit time, with railcheck's window rule and limits
// (health.link_error_limits, rate_windows_seconds, min_rate_interval_seconds).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"
#include "fabric/baseline.h"
#include "fabric/sweep.h"

namespace railguard::fabric {

// What a sweep is judged against when a previous sweep is given (--previous).
struct SweepWindow {
  const SweepBaseline* previous = nullptr;  // its counters and time (REQUIRES: time >= 0)
  double seconds = 0;                  // this sweep's time minus the previous one's, > 0
  HealthConfig health;                 // the limits and windows (defaults: railcheck's)
};

// The per-hour limit of error counter `counter` (kCounterNames index): the
// health.link_error_limits entry of its sysfs name (SymbolErrorCounter -> symbol_error, ...);
// LinkDownedCounter 0 (any increase, as railcheck's link.flap); nullopt when the counter is not
// judged (not an error counter, or not in link_error_limits).
std::optional<double> CounterLimit(const HealthConfig& health, int counter);

// How one counter's growth compares with its limit.
struct SweepRise {
  uint64_t count = 0;   // growth since the previous sweep (a counter below it: its value)
  double seconds = 0;   // what it is averaged over
  double per_hour = 0;  // count * 3600 / seconds
};

// railcheck's rule (config/rate_rule.h, as healthcheck/rate_window.h's OverLimit applies it)
// for the one increase two sweeps give: the growth `count` over `elapsed` seconds is averaged
// over AveragingSeconds of the shortest of health.rate_windows_seconds (where a single increase
// averages highest, so the longer ones cannot fail first); nullopt unless RateOverLimit.
std::optional<SweepRise> SweepOverLimit(uint64_t count, double elapsed, double limit,
                                        const HealthConfig& health);

// " +1500 in 60 min (1500/h) > limit 120/h", or with a limit of 0 " +1 in 60 min; expected no
// increase".
std::string SweepRiseText(const SweepRise& r, double limit);

}  // namespace railguard::fabric
