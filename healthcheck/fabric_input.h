// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric evidence about one node (wire/fabric_evidence.h), as railcheck's checks
// fabric.switch_errors, fabric.switch_rate and fabric.leaf judge it: only fresh evidence.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "wire/fabric_evidence.h"

namespace railguard::health {

// What a fresh fabric sweep says about this node.
struct NodeFabric {
  std::string file;                            // the evidence file
  double time = 0;                             // when the sweep was taken
  std::vector<wire::SwitchSideProblem> links;  // this node's rails with switch-side problems
  std::vector<wire::LeafFault> leaves;         // faulting leaves of this node's domain
};

// Reads health.fabric_evidence ("%n" expanded for `node`) and keeps what concerns `node` of
// one-hop domain `su` (topo/model.h's Domain::name; the SU's name for an unsplit SU). True with
// `*out` filled when the file is there, parses and its sweep is no older (and no newer) than
// health.fabric_evidence_max_age_seconds relative to `now`. False otherwise, with `*note`
// saying why when it is worth saying: stale ("... is stale: sweep at ..., N ago > M; ignored,
// drains nothing"), or bad (every "file:line:column: ..." problem, "; ignored"). A missing
// file, or no path configured, is false with no note: no evidence never drains.
bool LoadNodeFabric(const HealthConfig& h, const std::string& node, const std::string& su,
                    double now, NodeFabric* out, std::string* note);

}  // namespace railguard::health
