// SPDX-License-Identifier: GPL-2.0-or-later
// A judged sweep as Prometheus samples per link (the text exposition format, version 0.0.4):
// what node_exporter's textfile collector or a scrape of a file server reads.
#pragma once

#include <string>

#include "fabric/judge.h"
#include "fabric/sweep.h"
#include "fabric/traffic.h"
#include "topo/model.h"

namespace railguard::fabric {

// One "# HELP" and "# TYPE" line per metric family, then its samples:
//   railguard_fabric_sweep_complete, railguard_fabric_sweep_seconds,
//   railguard_fabric_sweep_time_seconds (gauges of the sweep);
//   railguard_fabric_port_errors_total{...,end,counter} (counter: each PMA error counter of each
//     end whose counters were read), railguard_fabric_port_xmit_wait_total{...,end} (counter);
//   railguard_fabric_link_width_ok and railguard_fabric_link_speed_ok (gauges, 1 or 0: no
//     width or speed finding on the link);
//   with `traffic`: railguard_fabric_port_utilization_ratio{...,end} (that end's transmit
//     bytes over the link's capacity) and railguard_fabric_port_xmit_wait_per_second{...,end}.
// Link labels: su, rail (empty when not known), leaf (the leaf's name; for other links the
// first end's), port (that switch's port), host and hca (host links, else empty); end is the
// side of the port the sample is about: host or leaf, leaf or spine, a or b for other links. Label values are escaped
// as the format says (backslash, double quote, newline).
std::string RenderPrometheus(const topo::Topology& topo, const Sweep& sweep,
                             const FabricReport& r, const Traffic* traffic = nullptr);

}  // namespace railguard::fabric
