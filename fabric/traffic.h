// SPDX-License-Identifier: GPL-2.0-or-later
// Traffic between two sweeps: per-link utilization from the data counters (PortXmitData and
// PortRcvData count 4-byte words) and congestion from PortXmitWait, over the time between the
// previous sweep and this one, summed per SU x rail (host links, a leaf's uplinks) and per spine
// so that hot spots show in rail terms.
#pragma once

#include <string>
#include <vector>

#include "fabric/baseline.h"
#include "fabric/judge.h"
#include "fabric/sweep.h"
#include "topo/model.h"

namespace railguard::fabric {

// One end of a link between the two sweeps.
struct EndTraffic {
  bool known = false;      // both sweeps read this end's counters
  double xmit_bps = 0;     // bytes per second sent from this end (PortXmitData * 4 / s)
  double rcv_bps = 0;      // bytes per second received
  double xmit_wait = 0;    // PortXmitWait ticks per second (the port had data but could not send)
  double utilization = 0;  // xmit_bps / the link's capacity (0..1, more when counters lie)
  bool saturated = false;  // a 32-bit data counter stood at its maximum: the rate is a floor
};

struct LinkTraffic {
  EndTraffic a, b;          // the ends of FabricReport::links[i]
  double capacity_bps = 0;  // bytes per second the active width and speed carry (0: unknown)
  double utilization = 0;   // the busier direction
  double xmit_wait = 0;     // the larger of the two ends' PortXmitWait rates
};

// Per SU x rail: its leaf's host links and uplinks.
struct CellTraffic {
  double host_max = 0;       // the busiest host link's utilization
  double uplink = 0;         // the leaf's uplinks together: sum of bytes over sum of capacity,
                             // in the busier direction (leaf -> spines or spines -> leaf)
  double uplink_wait = 0;    // PortXmitWait per second summed over both ends of its uplinks
  double host_wait = 0;      // PortXmitWait per second summed over both ends of its host links
  int host_links = 0, uplinks = 0;  // links with traffic known
};

// A spine: all its links to leaves together.
struct SpineTraffic {
  std::string name;
  double utilization = 0;  // sum of bytes over sum of capacity, the busier direction
  double xmit_wait = 0;    // its ports' PortXmitWait per second, summed
  int links = 0;
};

struct Traffic {
  double seconds = 0;                       // between the two sweeps
  double previous_time = 0;                 // the previous sweep's Unix time
  std::vector<LinkTraffic> links;           // parallel to FabricReport::links
  std::vector<std::vector<CellTraffic>> grid;  // [su][rail]
  std::vector<SpineTraffic> spines;         // by name
};

// Rates of every link of `r` from the counters of `sweep` and of `previous` (REQUIRES:
// sweep.time > previous.time >= 0). A data counter below its previous value (reset) counts
// from 0. Capacity is the active lanes times the lane rate of the active speed.
Traffic ComputeTraffic(const topo::Topology& topo, const Sweep& sweep, const FabricReport& r,
                       const SweepBaseline& previous);

// "12.5%" style percentage of a utilization.
std::string Percent(double utilization);

// The text section: the `top` busiest links, the SU x rail grid ("host max/uplinks" percent),
// the same grid of PortXmitWait per second when any port waited, and the spines.
std::string RenderTrafficText(const topo::Topology& topo, const FabricReport& r,
                              const Traffic& t, size_t top = 10);

}  // namespace railguard::fabric
