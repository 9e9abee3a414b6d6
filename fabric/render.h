// SPDX-License-Identifier: GPL-2.0-or-later
// A judged sweep as text (an SU x rail grid, then one line per finding) and as JSON.
#pragma once

#include <string>

#include "fabric/judge.h"
#include "fabric/sweep.h"
#include "fabric/traffic.h"
#include "topo/model.h"

namespace railguard::fabric {

// "su1 rail0 n001 mlx5_0 port 1 <-> su1-rail0 port 1": where a link is, as findings say it.
std::string LinkWhere(const topo::Topology& topo, const MappedLink& l);

// The text report: a summary line that says "complete" or "PARTIAL", a line that says whether
// the discovery was new or kept and why ("discovery: kept from a discovery 120 s old", "discovery:
// new: no earlier discovery to keep"), the grid of SUs x rails (each cell "ok", or how many of that
// leaf's links have findings or HCAs are missing; "?" added when some of its counters were not
// read), the findings but "unread" ones, the HCAs the topology expects and the sweep did not find,
// and every node that did not answer with the reason; with `traffic`, its section
// (fabric/traffic.h) at the end.
std::string RenderText(const topo::Topology& topo, const Sweep& sweep, const FabricReport& r,
                       const Traffic* traffic = nullptr);

// The sweep JSON (wire/sweep_json.h, which writes it): every link with both ends' width, speed
// and counters (null when unread); summary.time is the sweep's Unix time (what a later
// --previous reads). With `traffic`, each link gets "traffic" (each end's xmit/rcv bytes per
// second, xmit wait per second, utilization) and the top level "traffic" {seconds,
// previous_time, grid, spines}; see man/railctl.8. REQUIRES: r.findings link by link in order
// (as JudgeSweep gives them).
std::string RenderJson(const topo::Topology& topo, const Sweep& sweep, const FabricReport& r,
                       const Traffic* traffic = nullptr);

}  // namespace railguard::fabric
