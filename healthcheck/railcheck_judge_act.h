// SPDX-License-Identifier: GPL-2.0-or-later
// The judge and act phases of --prolog, --epilog and --periodic: the checks over the facts,
// the node's update in Slurm, the event log and the next run state, and the exit code.
#pragma once

#include "healthcheck/railcheck_run.h"

namespace railguard::health {

// What the checks judge the node with (pure): pointers into `in`, which must outlive it.
JudgeInput JudgeInputOf(const RunInput& in);

// The handler of the judging modes: judges `in`, acts in Slurm, then (not in --dry-run, and
// not when ctx.late) appends the events of a plan Slurm carried out to the event log and
// records the next run state. Fills `*out` (the report points into out->judgement) and
// returns the exit code of the verdict and of what acting on it met.
int CheckAndAct(const RunContext& ctx, const RunInput& in, RunOutput* out);

}  // namespace railguard::health
