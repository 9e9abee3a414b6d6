// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric evidence about one node (wire/fabric_evidence.h), as railcheck's checks
// fabric.switch_errors, fabric.switch_rate and fabric.leaf judge it: only fresh evidence.
#pragma once

#include <functional>
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

// How the evidence file is read. True with the file's text in `*text`. False when the file is
// absent (`*why` empty: no evidence, which never drains) or could not be read (`*why` says
// "PATH: ..." why, for the note).
using EvidenceRead =
    std::function<bool(const std::string& path, std::string* text, std::string* why)>;

// Reads `path` in this process (a stat, then the file up to kFabricEvidenceInput's size).
bool ReadEvidenceHere(const std::string& path, std::string* text, std::string* why);

// ReadEvidenceHere in a child process (healthcheck/isolate.h) that may take `limit_ms`: a file
// system that hangs (the evidence is written centrally, often onto NFS) then costs this run
// `limit_ms` and a note ("PATH: not read within N ms ...; this run judges without it"), and
// the child is left to die when its read returns; it never holds the prolog. When no child
// can be started, reads here.
EvidenceRead BoundedEvidenceRead(int limit_ms);

// Reads health.fabric_evidence ("%n" expanded for `node`) through `read` and keeps what
// concerns `node` of one-hop domain `su` (topo/model.h's Domain::name; the SU's name for an
// unsplit SU). True with `*out` filled when the file is there, parses and its sweep is no older
// (and no newer) than health.fabric_evidence_max_age_seconds relative to `now`. False
// otherwise, with `*note` saying why when it is worth saying: stale ("... is stale: sweep at
// ..., N ago > M; ignored, drains nothing"), unreadable or bad ("fabric evidence ignored: "
// and every "file:line:column: ..." problem or the reader's why). A missing file, or no path
// configured, is false with no note: no evidence never drains.
bool LoadNodeFabric(const HealthConfig& h, const std::string& node, const std::string& su,
                    double now, NodeFabric* out, std::string* note,
                    const EvidenceRead& read = ReadEvidenceHere);

}  // namespace railguard::health
