// SPDX-License-Identifier: GPL-2.0-or-later
// The sweep-to-sweep error window rule.
#include "fabric/window.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "config/rate_rule.h"

namespace railguard::fabric {
namespace {

// The sysfs name (ports/N/counters/<name>) of each error counter but LinkDownedCounter: config/
// lists them in PortCounters order without link_downed (which railcheck's link.flap judges).
const char* SysfsName(int counter) {
  if (!IsErrorCounter(counter) || counter == kLinkDowned) return nullptr;
  return LinkErrorCounterNames()[counter < kLinkDowned ? counter : counter - 1].c_str();
}

std::string Duration(double s) {
  char buf[32];
  if (s >= 3600 && std::fmod(s, 3600) == 0)
    std::snprintf(buf, sizeof buf, "%.0f h", s / 3600);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  return buf;
}

std::string PerHour(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 10 || v == std::floor(v) ? "%.0f/h" : "%.1f/h", v);
  return buf;
}

}  // namespace

std::optional<double> CounterLimit(const HealthConfig& health, int counter) {
  if (counter == kLinkDowned) return 0.0;
  const char* name = SysfsName(counter);
  if (!name) return std::nullopt;
  auto it = health.link_error_limits.find(name);
  if (it == health.link_error_limits.end()) return std::nullopt;
  return static_cast<double>(it->second);
}

std::optional<SweepRise> SweepOverLimit(uint64_t count, double elapsed, double limit,
                                        const HealthConfig& health) {
  // The shortest window is where one increase averages highest (and a limit of 0 is judged
  // in it alone), as in railcheck's OverLimit.
  const double shortest =
      health.rate_windows_seconds.empty() ? 0 : health.rate_windows_seconds.front();
  SweepRise r;
  r.count = count;
  r.seconds = AveragingSeconds(health, shortest, elapsed);
  r.per_hour = static_cast<double>(count) * 3600.0 / r.seconds;
  if (!RateOverLimit(r.count, r.per_hour, limit)) return std::nullopt;
  return r;
}

std::string SweepRiseText(const SweepRise& r, double limit) {
  const std::string rise = " +" + std::to_string(r.count) + " in " + Duration(r.seconds);
  if (limit <= 0) return rise + "; expected no increase";
  return rise + " (" + PerHour(r.per_hour) + ") > limit " + PerHour(limit);
}

}  // namespace railguard::fabric
