// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/rate_window.h"

#include <algorithm>
#include <limits>

#include "config/rate_rule.h"
#include "healthcheck/check_util.h"
#include "healthcheck/checks.h"

namespace railguard::health {
namespace {

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

double Longest(const HealthConfig& cfg) {
  return cfg.rate_windows_seconds.empty() ? 0.0 : cfg.rate_windows_seconds.back();
}

}  // namespace

double RateBucketSeconds(const HealthConfig& cfg) { return std::max(60.0, Longest(cfg) / 240); }

void AddIncrease(RateHistory* h, double from, double to, uint64_t count,
                 const HealthConfig& cfg) {
  if (count > 0) {
    if (from > to) from = to;
    const double bucket = RateBucketSeconds(cfg);
    if (!h->empty() && h->back().to <= to && to - h->back().from <= bucket) {
      h->back().to = to;
      h->back().count = SaturatingAdd(h->back().count, count);
    } else {
      h->push_back(RateSample{from, to, count});
    }
  }
  const double keep_after = to - Longest(cfg);
  h->erase(std::remove_if(h->begin(), h->end(),
                          [&](const RateSample& r) { return r.to <= keep_after; }),
           h->end());
  while (h->size() > kMaxRateSamples) {
    (*h)[1].from = (*h)[0].from;
    (*h)[1].count = SaturatingAdd((*h)[1].count, (*h)[0].count);
    h->erase(h->begin());
  }
}

std::optional<WindowRise> OverLimit(const RateHistory& h, double now, double limit,
                                    const HealthConfig& cfg) {
  for (size_t w = 0; w < cfg.rate_windows_seconds.size(); ++w) {
    if (limit <= 0 && w > 0) break;
    const double window = cfg.rate_windows_seconds[w];
    std::optional<WindowRise> worst;
    uint64_t count = 0;
    // Newest first: each longer stretch adds a sample and, when that sample began before
    // the window, stretches the time its increases are averaged over.
    for (auto it = h.rbegin(); it != h.rend() && it->to > now - window; ++it) {
      count = SaturatingAdd(count, it->count);
      WindowRise r;
      r.window = static_cast<int>(window);
      r.count = count;
      r.seconds = AveragingSeconds(cfg, window, now - it->from);
      r.per_hour = static_cast<double>(count) * 3600.0 / r.seconds;
      if (!worst || r.per_hour > worst->per_hour) worst = r;
    }
    if (worst && RateOverLimit(worst->count, worst->per_hour, limit)) return worst;
  }
  return std::nullopt;
}

std::string WindowRiseText(const WindowRise& w, double limit) {
  const std::string rise = " +" + std::to_string(w.count) + " in the last " +
                           FormatDuration(w.seconds);
  if (limit <= 0) return rise + "; expected no increase";
  return rise + " (" + check_util::Rate(w.per_hour) + ") > limit " + check_util::Rate(limit);
}

}  // namespace railguard::health
