// SPDX-License-Identifier: GPL-2.0-or-later
// The job phase of a railcheck run: the job's fabric counters (job_counters.h). A Prolog
// opens the job's file, a periodic run adds a reading to every open one (and removes those
// no Epilog closed within kStaleJobSeconds), an Epilog closes it into the job log.
#pragma once

#include "healthcheck/railcheck_run.h"

namespace railguard::health {

// A job file older than this with no Epilog (the node crashed, railguard was installed while
// the job ran) is removed by a periodic run.
inline constexpr double kStaleJobSeconds = 31 * 24 * 3600.0;

// Does the mode's part, under the run's state lock; what it did goes to r->job, what failed
// to r->warnings (never the verdict or the exit code: the job's record is bookkeeping).
// Not called in --dry-run, for a late gather, or in baseline mode.
void RecordJobCounters(const RunContext& ctx, const RunInput& in, RunReport* r);

}  // namespace railguard::health
