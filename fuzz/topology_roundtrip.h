// SPDX-License-Identifier: GPL-2.0-or-later
// The round-trip property of EmitTopologyYaml, shared by the fuzz targets that produce a
// valid Topology: the emitted YAML loads again, to the same topology, and emits the same text.
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "topo/model.h"
#include "topo/topology_yaml.h"

namespace railguard::fuzz {

// "" when `a` and `b` describe the same fabric, else the first difference. The schema keeps
// rates to tenths of Gb/s (FormatRate), SU nodes as a sorted hostlist, and leaves out leaf
// names that equal their default, so those are compared in that form.
inline std::string TopologyDifference(const topo::Topology& a, const topo::Topology& b) {
  if (a.cluster != b.cluster) return "cluster '" + a.cluster + "' vs '" + b.cluster + "'";
  if (a.rails.size() != b.rails.size()) return "rail count";
  for (size_t k = 0; k < a.rails.size(); ++k) {
    const topo::Rail& x = a.rails[k];
    const topo::Rail& y = b.rails[k];
    if (x.index != y.index || x.name != y.name || x.link.width != y.link.width ||
        x.link.speed != y.link.speed ||
        topo::FormatRate(x.link.rate_gbps) != topo::FormatRate(y.link.rate_gbps))
      return "rail " + std::to_string(k);
  }
  if (a.node_types.size() != b.node_types.size()) return "node type count";
  for (size_t k = 0; k < a.node_types.size(); ++k) {
    const topo::NodeType& x = a.node_types[k];
    const topo::NodeType& y = b.node_types[k];
    if (x.name != y.name || x.gpus != y.gpus || x.nics != y.nics || x.nic_pci != y.nic_pci ||
        x.gpu_pci != y.gpu_pci)
      return "node type '" + x.name + "'";
  }
  if (a.sus.size() != b.sus.size()) return "scalable unit count";
  for (size_t s = 0; s < a.sus.size(); ++s) {
    const topo::ScalableUnit& x = a.sus[s];
    const topo::ScalableUnit& y = b.sus[s];
    if (x.name != y.name || x.node_type != y.node_type) return "scalable unit " + x.name;
    std::vector<std::string> xn = x.nodes;
    std::vector<std::string> yn = y.nodes;
    std::sort(xn.begin(), xn.end());
    std::sort(yn.begin(), yn.end());
    if (xn != yn) return "nodes of scalable unit " + x.name;
    if (x.leaves.size() != y.leaves.size()) return "leaf count of scalable unit " + x.name;
    for (size_t i = 0; i < x.leaves.size(); ++i) {
      const topo::Leaf& p = x.leaves[i];
      const topo::Leaf& q = y.leaves[i];
      if (p.rail != q.rail || topo::LeafName(x, p) != topo::LeafName(y, q) ||
          p.sw.guid != q.sw.guid || p.sw.ports != q.sw.ports || p.first_port != q.first_port ||
          p.nodes.empty() != q.nodes.empty() ||
          std::set<std::string>(p.nodes.begin(), p.nodes.end()) !=
              std::set<std::string>(q.nodes.begin(), q.nodes.end()))
        return "leaf " + std::to_string(i) + " of scalable unit " + x.name;
    }
  }
  if (a.spines.size() != b.spines.size()) return "spine count";
  for (size_t i = 0; i < a.spines.size(); ++i) {
    const topo::Switch& x = a.spines[i];
    const topo::Switch& y = b.spines[i];
    if (x.name != y.name || x.guid != y.guid || x.ports != y.ports) return "spine " + x.name;
  }
  if (a.cores.size() != b.cores.size()) return "core count";
  for (size_t i = 0; i < a.cores.size(); ++i) {
    const topo::Switch& x = a.cores[i];
    const topo::Switch& y = b.cores[i];
    if (x.name != y.name || x.guid != y.guid || x.ports != y.ports) return "core " + x.name;
  }
  return "";
}

// REQUIRES: `t` loaded (or was built) without errors. Aborts unless EmitTopologyYaml(t) loads
// without diagnostics to the same topology and emits the same text again.
inline void CheckTopologyRoundTrip(const topo::Topology& t) {
  const std::string yaml = topo::EmitTopologyYaml(t);
  topo::Topology again;
  Diags diags;
  const bool loaded = topo::LoadTopologyString(yaml, "emitted.yaml", &again, &diags);
  RG_FUZZ_CHECK(loaded && diags.empty(),
                "the emitted YAML does not load:\n" + FormatDiags(diags) + "--- emitted:\n" + yaml);
  const std::string difference = TopologyDifference(t, again);
  RG_FUZZ_CHECK(difference.empty(),
                "the emitted YAML loads to another topology (" + difference + "):\n" + yaml);
  const std::string yaml2 = topo::EmitTopologyYaml(again);
  RG_FUZZ_CHECK(yaml2 == yaml, "emitting again gives other YAML:\n" + yaml + "--- then:\n" + yaml2);
}

}  // namespace railguard::fuzz
