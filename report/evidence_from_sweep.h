// SPDX-License-Identifier: GPL-2.0-or-later
// Fabric evidence (wire/fabric_evidence.h) for railcheck, made from a fabric sweep as the
// report reads it: the switch-side problems of every host link, and the leaf faults.
#pragma once

#include "report/sweep_input.h"
#include "topo/model.h"
#include "wire/fabric_evidence.h"

namespace railguard::report {

// From `sweep` (its `time` becomes the evidence's; REQUIRES: `topo` indexed): for each host
// link of a topology node and rail, its findings whose end is the switch (error counters on
// the leaf end, or width/speed the leaf end negotiated down; "both" counts too, the switch end
// is one of them), one entry per kind ("errors", "width", "speed"); and each leaf that matches
// LeafFaultRule, with its SU (the one-hop domain today) and rail. Host-only problems are left
// out: railcheck sees those itself.
wire::FabricEvidence EvidenceFromSweep(const SweepInput& sweep, const topo::Topology& topo);

}  // namespace railguard::report
