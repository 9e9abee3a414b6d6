// SPDX-License-Identifier: GPL-2.0-or-later
// The error-rate rule of health.link_error_limits, shared by railcheck's sliding windows
// (healthcheck/rate_window.h) and the fabric sweep's sweep-to-sweep windows (fabric/window.h):
// how long increases are averaged over, and when an average is over its limit.
#pragma once

#include <cstdint>

#include "config/config.h"

namespace railguard {

// The seconds that increases seen over `span` seconds are averaged over in a window of
// `window` seconds: the longest of the window, health.min_rate_interval_seconds and the span
// (so that increases seen by runs or sweeps far apart are not averaged over too little time).
double AveragingSeconds(const HealthConfig& health, double window, double span);

// True when `count` increases averaging `per_hour` are over `limit` per hour: count > 0 and
// per_hour > limit (so a limit of 0 means any increase).
bool RateOverLimit(uint64_t count, double per_hour, double limit);

}  // namespace railguard
