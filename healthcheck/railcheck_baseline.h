// SPDX-License-Identifier: GPL-2.0-or-later
// The act phase of `railcheck baseline`: the node's counters recorded as the commissioning
// baseline, and the run state restarted from them.
#pragma once

#include "healthcheck/railcheck_run.h"

namespace railguard::health {

// The handler of baseline mode: records every readable counter of each rail port and the
// AER totals of each PCI function in `in.facts` as the baseline (replacing a corrupt one),
// and restarts the run state's sums from it; in --dry-run says so instead. Fills
// out->report (reads that timed out are problems: not in the baseline) and returns kExitOk,
// or kExitError on a problem or when a file cannot be written.
int RecordBaseline(const RunContext& ctx, const RunInput& in, RunOutput* out);

}  // namespace railguard::health
