// SPDX-License-Identifier: GPL-2.0-or-later
// Exports of the rail topology for stock Slurm: topology.conf for topology/tree and for
// topology/block (Slurm >= 24.05).
#pragma once

#include <string>

#include "topo/model.h"

namespace railguard::topo {

// topology.conf for topology/tree. Every rail leaf of an SU serves the same nodes, so the SU
// is one leaf-level switch (SwitchName=<su> Nodes=<hostlist>); one top switch named
// "<cluster>-spine" joins all SUs (Switches=<su hostlist>). The physical spines are named in
// a comment. `source` (e.g. the YAML path) goes into the header comment.
// REQUIRES: `topo` loaded and validated.
std::string ExportTreeConf(const Topology& topo, const std::string& source);

// topology.conf for topology/block: one BlockName=<su> Nodes=<hostlist> per SU and
// BlockSizes=B,2B,4B,... where B is the smallest SU's node count and the largest size is the
// biggest power-of-two multiple of B that the SUs can hold together.
// REQUIRES: `topo` loaded and validated.
std::string ExportBlockConf(const Topology& topo, const std::string& source);

}  // namespace railguard::topo
