// SPDX-License-Identifier: GPL-2.0-or-later
// Exports of the rail topology for stock Slurm: topology.conf for topology/tree and for
// topology/block (Slurm >= 24.05), and topology.yaml (Slurm >= 25.05) holding both and flat.
#pragma once

#include <string>

#include "topo/model.h"

namespace railguard::topo {

// topology.conf for topology/tree. Each one-hop domain is one leaf-level switch
// (SwitchName=<domain> Nodes=<hostlist>); an SU of one domain is that switch, named like the
// SU, and an SU of several domains is a switch of its own above them (SwitchName=<su>
// Switches=<domains>). One top switch named "<cluster>-spine" joins all SUs (Switches=<su
// hostlist>). The physical spines (and core switches, if any) are named in comments: to
// Slurm the spine and core tiers are one level above the SUs. `source` (e.g. the YAML path) goes
// into the header comment. With one leaf per rail everywhere, the output is what it was
// before one-hop domains existed.
// REQUIRES: `topo` loaded and validated.
std::string ExportTreeConf(const Topology& topo, const std::string& source);

// topology.conf for topology/block: one BlockName=<domain> Nodes=<hostlist> per one-hop
// domain (an SU of one leaf per rail is one domain named like the SU) and
// BlockSizes=B,2B,4B,... where B is the smallest domain's node count and the largest size is
// the biggest power-of-two multiple of B that the domains can hold together.
// REQUIRES: `topo` loaded and validated.
std::string ExportBlockConf(const Topology& topo, const std::string& source);

// topology.yaml for Slurm >= 25.05 (topology.yaml(5)), where each partition picks a topology
// (PartitionName=... Topology=<name>): "flat" (cluster_default: true, for CPU partitions and
// what no partition owns), "<cluster>-tree" (the switches of ExportTreeConf) and
// "<cluster>-block" (the blocks and sizes of ExportBlockConf). Names and hostlists are YAML
// double-quoted scalars. `source` goes into the header comment.
// REQUIRES: `topo` loaded and validated.
std::string ExportTopologyYaml(const Topology& topo, const std::string& source);

}  // namespace railguard::topo
