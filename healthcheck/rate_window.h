// SPDX-License-Identifier: GPL-2.0-or-later
// Error rates over sliding windows (health.rate_windows_seconds): how the run state keeps a
// counter's recent increases (RateHistory, bounded) and how they are judged against a
// per-hour limit, so that a burst ages out instead of counting since the baseline forever.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"
#include "healthcheck/state.h"

namespace railguard::health {

// The most samples one history keeps; beyond it the two oldest are merged into one.
inline constexpr size_t kMaxRateSamples = 512;

// How long one sample may span when runs are merged into it: the longest window / 240, at
// least 60 s (so a history holds at most about 480 samples of the longest window).
double RateBucketSeconds(const HealthConfig& cfg);

// Records in `*h` an increase of `count` over (`from`, `to`], seen by the run at `to`: merged
// into the newest sample when the merged one spans at most RateBucketSeconds, else a new
// sample. Then drops the samples that ended before `to` - the longest window. A count of 0
// only drops old samples.
void AddIncrease(RateHistory* h, double from, double to, uint64_t count, const HealthConfig& cfg);

// The worst stretch of one window: `count` increases averaged over `seconds`.
struct WindowRise {
  int window = 0;       // the window's length (one of health.rate_windows_seconds)
  uint64_t count = 0;   // increases of the samples that ended inside the window
  double seconds = 0;   // what they are averaged over: the window, min_rate_interval_seconds,
                        // or the span of the samples when that is longer (runs far apart)
  double per_hour = 0;  // count * 3600 / seconds
};

// The first window (shortest first) in which the increases of `h` at `now` average more than
// `limit` per hour, with its worst stretch; nullopt when no window does. A limit of 0 means
// any increase and is judged in the shortest window only, so that one error is a finding for
// that long and then ages out.
std::optional<WindowRise> OverLimit(const RateHistory& h, double now, double limit,
                                    const HealthConfig& cfg);

// How a check says it: " +1500 in the last 60 min (1500/h) > limit 120/h", or for a limit
// of 0 " +1 in the last 60 min; expected no increase".
std::string WindowRiseText(const WindowRise& w, double limit);

}  // namespace railguard::health
