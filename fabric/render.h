// SPDX-License-Identifier: GPL-2.0-or-later
// A judged sweep as text (an SU x rail grid, then one line per finding) and as JSON.
#pragma once

#include <string>

#include "fabric/judge.h"
#include "fabric/sweep.h"
#include "topo/model.h"

namespace railguard::fabric {

// The text report: a summary line that says "complete" or "PARTIAL", the grid of SUs x rails
// (each cell "ok", or how many of that leaf's links have findings or HCAs are missing; "?"
// added when some of its counters were not read), the findings but "unread" ones, the HCAs
// the topology expects and the sweep did not find, and every node that did not answer with
// the reason.
std::string RenderText(const topo::Topology& topo, const Sweep& sweep, const FabricReport& r);

// {complete, summary, grid, links, findings, unanswered, missing}: every link with both ends'
// width, speed and counters (null when unread); see man/railctl.8.
std::string RenderJson(const topo::Topology& topo, const Sweep& sweep, const FabricReport& r);

}  // namespace railguard::fabric
