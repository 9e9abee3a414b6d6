// SPDX-License-Identifier: GPL-2.0-or-later
// The events one railcheck run adds to the health event log (wire/event_log.h): what changed
// on the node since railcheck last published its rails, and what the plan does about it.
#pragma once

#include <string>
#include <vector>

#include "wire/event_log.h"

namespace railguard::health {

struct Verdict;
struct SlurmNode;
struct Plan;
struct CounterMoves;

// The events of one railcheck run, for wire::AppendEvents: a rail whose state differs from
// the one railcheck last published in the node's Extra field (`before.extra`, read with
// wire::ExtraReadMode::kLenient; a rail with no published state counts as ok) gives degraded,
// down or recovered, with the checks of its findings and the counters of its port that rose
// in this run; a flap this run saw gives flap; the plan's drain and resume give drained and
// resumed; a change of `feature` on the node gives restricted or restored. Pure; call it
// with the plan that was applied.
std::vector<wire::HealthEvent> EventsForRun(const SlurmNode& before, const Verdict& verdict,
                                            const Plan& plan, const CounterMoves& moves,
                                            const std::string& feature, double now);

}  // namespace railguard::health
