// SPDX-License-Identifier: GPL-2.0-or-later
// The rail topology YAML, written: canonical emission (topo/topology_yaml.h).
#include <string>
#include <vector>

#include "topo/hostlist.h"
#include "topo/topology_yaml.h"

namespace railguard::topo {
namespace {

// A name (letters, digits, '-', '_', '.') as a YAML scalar that reads back as that name:
// plain, except "-" (a sequence entry) and the spellings of null.
std::string NameScalar(const std::string& name) {
  if (name == "-" || name == "null" || name == "Null" || name == "NULL") return QuoteYaml(name);
  return name;
}

std::string SwitchFields(const Switch& sw, const std::string& default_name) {
  std::string out;
  if (!sw.name.empty() && sw.name != default_name) out += ", name: " + NameScalar(sw.name);
  if (!sw.guid.empty()) out += ", guid: " + QuoteYaml(sw.guid);
  if (sw.ports > 0) out += ", ports: " + std::to_string(sw.ports);
  return out;
}

}  // namespace

std::string EmitTopologyYaml(const Topology& t) {
  std::string y;
  y += "cluster: " + NameScalar(t.cluster) + "\n";
  y += "rails:\n";
  for (const Rail& r : t.rails) {
    y += "  - {index: " + std::to_string(r.index);
    if (!r.name.empty() && r.name != "rail" + std::to_string(r.index))
      y += ", name: " + NameScalar(r.name);
    y += ", link: {rate_gbps: " + FormatRate(r.link.rate_gbps) +
         ", width: " + std::to_string(r.link.width) + "X, speed: " + r.link.speed + "}}\n";
  }
  y += "node_types:\n";
  for (const NodeType& nt : t.node_types) {
    y += "  - name: " + NameScalar(nt.name) + "\n";
    y += "    gpus: " + std::to_string(nt.gpus) + "\n";
    auto list = [&](const char* key, const std::vector<std::string>& v) {
      if (v.empty() && std::string(key) != "nics") return;
      y += std::string("    ") + key + ": [";
      for (size_t i = 0; i < v.size(); ++i) y += (i ? ", " : "") + QuoteYaml(v[i]);
      y += "]\n";
    };
    list("nics", nt.nics);
    list("nic_pci", nt.nic_pci);
    list("gpu_pci", nt.gpu_pci);
  }
  y += "scalable_units:\n";
  for (const ScalableUnit& su : t.sus) {
    y += "  - name: " + NameScalar(su.name) + "\n";
    y += "    nodes: " + QuoteYaml(CompressHostlistSorted(su.nodes)) + "\n";
    y += "    node_type: " + NameScalar(su.node_type) + "\n";
    y += "    leaves:\n";
    for (const Leaf& leaf : su.leaves) {
      Leaf unnamed;
      unnamed.rail = leaf.rail;
      y += "      - {rail: " + std::to_string(leaf.rail) + SwitchFields(leaf.sw, LeafName(su, unnamed));
      if (leaf.first_port > 0) y += ", first_port: " + std::to_string(leaf.first_port);
      if (!leaf.nodes.empty()) y += ", nodes: " + QuoteYaml(CompressHostlistSorted(leaf.nodes));
      y += "}\n";
    }
  }
  auto switches = [&](const char* key, const std::vector<Switch>& list) {
    if (list.empty()) return;
    y += std::string(key) + ":\n";
    for (const Switch& sw : list) y += "  - {" + SwitchFields(sw, "").substr(2) + "}\n";
  };
  switches("spines", t.spines);
  switches("cores", t.cores);
  return y;
}

std::string QuoteYaml(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace railguard::topo
