// SPDX-License-Identifier: GPL-2.0-or-later
// The report's history section, built from the health event log (wire/event_log.h): counts
// per rail and node over the two windows, repeat offenders and the drill-down events.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "report/report.h"
#include "wire/event_log.h"

namespace railguard::report {

// Report::nodes position by node name.
using NodeIndex = std::unordered_map<std::string, int>;

// Counts `events` within 7 days before `now` into the rows of `*nodes` (`index` finds them;
// events of other nodes are left out): flaps, degradations and recoveries per rail and
// window, drains and restricts per node, the newest counter rates per rail, and incidents per
// node and window. Returns how many events it counted.
//
// Incidents: a node's problem events (flap, degraded, down, drained, restricted; recovered,
// resumed and restored are not problems) sorted by time, cut wherever two in a row are more
// than kIncidentGapSeconds apart; each run is one incident, counted in the 24 h window when
// its newest event is. One fault makes one incident however many events it logs (a rail
// degraded, the node drained and restricted, every rail of a bad leaf at once).
int CountHistory(const std::vector<wire::HealthEvent>& events, double now,
                 const NodeIndex& index, std::vector<NodeRow>* nodes);

// The nodes of `nodes` with at least kRepeatOffenderIncidents incidents in 7 days, most
// incidents first (then most events, then topology order).
std::vector<Offender> FindOffenders(const std::vector<NodeRow>& nodes);

// Gives each attention node of `*nodes` its events of the last 7 days before `now`, newest
// first, at most 20.
void CollectEvents(const std::vector<wire::HealthEvent>& events, double now,
                   const NodeIndex& index, std::vector<NodeRow>* nodes);

}  // namespace railguard::report
