// SPDX-License-Identifier: GPL-2.0-or-later
// Fabric evidence: what a fabric sweep saw on the switch side of each node's rails and which
// leaves fault as a whole, written by `railctl fabric-evidence` and read by railcheck (checks
// fabric.switch_errors, fabric.switch_rate, fabric.leaf). One JSON file for the fabric:
//   {"railguard_fabric_evidence": 1, "time": 1714560000, "sweep": "/var/lib/railguard/sweep.json",
//    "complete": true,
//    "links": [{"node": "n013", "rail": 3, "leaf": "su2-rail3", "port": 5,
//               "problem": "errors", "detail": "SymbolErrorCounter 42 on the leaf side ..."}],
//    "leaves": [{"su": "su4", "rail": 1, "leaf": "su4-rail1", "bad_ports": 8, "ports": 8}]}
// Only problems are listed: a node's rail that is not in "links" is clean on the switch side.
// "time" is when the sweep was taken; "rail" is the topology's rail index.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"
#include "base/text_file.h"

namespace railguard::wire {

constexpr int kFabricEvidenceVersion = 1;
constexpr InputKind kFabricEvidenceInput{"a fabric evidence file (railctl fabric-evidence)",
                                         64u << 20};

// A problem on the switch end of one node's rail.
struct SwitchSideProblem {
  std::string node;
  int rail = 0;
  std::string leaf;     // the leaf switch
  int port = 0;         // its port, 0 = unknown
  std::string problem;  // "errors" (error counters), "width", "speed"
  std::string detail;   // the sweep's finding
};

// A leaf with many of its host ports erring: it restricts its one-hop domain.
struct LeafFault {
  // A one-hop domain the leaf serves (topo/model.h's Domain::name: the SU's name when the SU
  // has one leaf per rail). A leaf serving several domains has one LeafFault for each.
  std::string su;
  int rail = 0;
  std::string leaf;
  int bad_ports = 0, ports = 0;
};

struct FabricEvidence {
  double time = 0;       // when the sweep was taken (seconds since the epoch)
  std::string sweep;     // where it came from
  bool complete = true;  // false: some switches did not answer that sweep
  std::vector<SwitchSideProblem> links;
  std::vector<LeafFault> leaves;
};

// The file's text (JSON, ends with a newline).
std::string FabricEvidenceToJson(const FabricEvidence& e);

// Parses `text` (`filename` names it in diagnostics). Problems go to `*errors` as
// "file:line:column: <what>; expected <form>" (at most 20); true when there was none. Unknown
// keys are ignored (newer writers); another "railguard_fabric_evidence" version is an error.
bool ParseFabricEvidence(std::string_view text, const std::string& filename, FabricEvidence* out,
                         Diags* errors);

// As ParseFabricEvidence, reading `path` (ReadTextFile's rules and messages).
bool LoadFabricEvidence(const std::string& path, FabricEvidence* out, Diags* errors);

}  // namespace railguard::wire
