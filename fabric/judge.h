// SPDX-License-Identifier: GPL-2.0-or-later
// A sweep read in rail terms: each link mapped to host/rail <-> leaf/port or leaf <-> spine/port
// after the rail topology, and judged (error counters, width and speed on both ends).
#pragma once

#include <string>
#include <vector>

#include "fabric/baseline.h"
#include "fabric/sweep.h"
#include "fabric/window.h"
#include "topo/model.h"

namespace railguard::fabric {

// One end of a link: a port of a swept node.
struct End {
  int node = -1;  // index into Sweep::nodes
  int port = 0;
  int entry = -1;  // index into that node's ports
};

enum class LinkKind {
  kHost,     // an HCA of a topology host <-> a switch (a = HCA, b = switch)
  kUplink,   // a leaf <-> a spine (a = leaf, b = spine)
  kCore,     // a spine <-> a core switch (a = spine, b = core), the third tier
  kUnknown,  // anything else (a = the end with the lower GUID)
};

struct MappedLink {
  LinkKind kind = LinkKind::kUnknown;
  End a, b;
  int su = -1;                 // index into Topology::sus (host links, uplinks of a known leaf)
  int rail = -1;               // index into Topology::rails
  std::string host;            // kHost: the topology host
  std::string hca;             // kHost: the device ("mlx5_3")
  std::string name_a, name_b;  // what to call each end: "n005 mlx5_3", "su1-rail3", "spine1",
                               // "core1"
};

// One problem on one link.
struct LinkFinding {
  int link = -1;     // index into FabricReport::links
  std::string kind;  // "errors", "width", "speed", "unread"
  std::string side;  // which end: "host", "leaf", "spine", "core", "switch" or "both"
  std::string message;
};

// An HCA the topology expects that the sweep did not find (cable down or HCA unreachable).
struct MissingHca {
  std::string host, hca;
  int su = -1, rail = -1;
};

struct FabricReport {
  std::vector<MappedLink> links;  // host links by (su, rail, host), then uplinks, then unknown
  std::vector<LinkFinding> findings;
  std::vector<MissingHca> missing;  // topology hosts' HCAs the sweep did not find
};

// The name a sweep gives a switch: its topology name when the YAML has its GUID; else NAME of
// a "MF0;NAME:MODEL/U1" NodeDescription; else the description; else its GUID.
std::string SwitchName(const topo::Topology& topo, const SweptNode& n);

// Maps every link of `sweep` (REQUIRES: `topo` loaded and indexed) and judges it: any error
// counter above 0 on an end, or with `baseline`, above the baseline's value for that GUID and
// port ("errors", naming that end; a counter below its baseline was reset and counts whole); an
// active width or speed below the rail's LinkSpec, or for other links below what both ends enable
// ("width"/"speed", naming the end whose enabled width or speed is the lower one, "both" when
// neither is); counters left unread because a node did not answer ("unread").
// With `window` (a previous sweep), error counters are judged by their growth since it instead
// (a port it lacks, or a counter below its value there, counts whole) against railcheck's
// per-hour limits (fabric/window.h): "SymbolErrorCounter +500 in 60 min (500/h) > limit 120/h";
// `baseline` is then not used for errors.
FabricReport JudgeSweep(const topo::Topology& topo, const Sweep& sweep,
                        const SweepBaseline* baseline = nullptr,
                        const SweepWindow* window = nullptr);

}  // namespace railguard::fabric
