// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/rate_rule.h"

#include <algorithm>

namespace railguard {

double AveragingSeconds(const HealthConfig& health, double window, double span) {
  return std::max({window, static_cast<double>(health.min_rate_interval_seconds), span});
}

bool RateOverLimit(uint64_t count, double per_hour, double limit) {
  return count > 0 && per_hour > limit;
}

}  // namespace railguard
