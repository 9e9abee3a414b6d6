// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/model.h"

#include <cctype>

namespace railguard::topo {

double LaneRateGbps(const std::string& speed) {
  // Nominal data rate per lane, the figures sysfs and ibstat print (4X QDR = 40 Gb/sec).
  // Never destroyed: a plugin thread may still read it while slurmctld exits.
  static const std::map<std::string, double>& kRates = *new std::map<std::string, double>{
      {"SDR", 2.5}, {"DDR", 5},  {"QDR", 10},  {"FDR10", 10}, {"FDR", 14},
      {"EDR", 25},  {"HDR", 50}, {"NDR", 100}, {"XDR", 200}};
  auto it = kRates.find(speed);
  return it == kRates.end() ? 0 : it->second;
}

std::string FormatRate(double gbps) {
  // The kernel prints tenths only for the half rates of SDR ("2.5 Gb/sec").
  long tenths = static_cast<long>(gbps * 10 + 0.5);
  return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "");
}

std::string LinkSpec::ToSysfsRate() const {
  return FormatRate(rate_gbps) + " Gb/sec (" + std::to_string(width) + "X " + speed + ")";
}

std::optional<LinkSpec> LinkSpecFromIbToken(const std::string& token) {
  // "4xNDR", "1xSDR", "12xQDR"
  size_t x = token.find_first_of("xX");
  if (x == std::string::npos || x == 0 || x > 2) return std::nullopt;  // 1 to 12 lanes
  for (size_t i = 0; i < x; ++i)
    if (!std::isdigit(static_cast<unsigned char>(token[i]))) return std::nullopt;
  LinkSpec spec;
  spec.width = std::stoi(token.substr(0, x));
  spec.speed = token.substr(x + 1);
  double lane = LaneRateGbps(spec.speed);
  if (lane == 0) return std::nullopt;
  spec.rate_gbps = lane * spec.width;
  return spec;
}

namespace {

// The slot of t.node_slots that holds `name`, or the empty slot where it would go (linear
// probing; the table is at most half full). REQUIRES: node_slots non-empty, a power of two.
size_t SlotOf(const Topology& t, std::string_view name) {
  const size_t mask = t.node_slots.size() - 1;
  for (size_t i = std::hash<std::string_view>{}(name)&mask;; i = (i + 1) & mask) {
    if (t.node_slots[i] < 0) return i;
    const NodeRef& ref = t.node_refs[t.node_slots[i]];
    if (t.sus[ref.su].nodes[ref.position] == name) return i;
  }
}

}  // namespace

void Topology::Index() {
  node_refs.clear();
  node_slots.clear();
  type_index.clear();
  domains.clear();
  su_domains.assign(sus.size(), 0);
  for (int t = 0; t < static_cast<int>(node_types.size()); ++t)
    type_index.emplace(node_types[t].name, t);
  for (int s = 0; s < static_cast<int>(sus.size()); ++s) {
    const ScalableUnit& su = sus[s];
    std::unordered_map<std::string, int> position;
    for (int p = 0; p < static_cast<int>(su.nodes.size()); ++p) position.emplace(su.nodes[p], p);
    // Per node, per rail: the leaf that serves it.
    std::vector<std::vector<int>> key(su.nodes.size(), std::vector<int>(rails.size(), -1));
    for (int i = 0; i < static_cast<int>(su.leaves.size()); ++i) {
      const Leaf& leaf = su.leaves[i];
      if (leaf.rail < 0 || leaf.rail >= static_cast<int>(rails.size())) continue;
      auto serve = [&](int p) {
        if (key[p][leaf.rail] < 0) key[p][leaf.rail] = i;
      };
      if (leaf.nodes.empty()) {
        for (int p = 0; p < static_cast<int>(su.nodes.size()); ++p) serve(p);
      } else {
        for (const std::string& node : leaf.nodes)
          if (auto it = position.find(node); it != position.end()) serve(it->second);
      }
    }
    std::map<std::vector<int>, int> of_key;  // leaf combination -> index into domains
    const int first = static_cast<int>(domains.size());
    for (int p = 0; p < static_cast<int>(su.nodes.size()); ++p) {
      auto [it, fresh] = of_key.emplace(key[p], static_cast<int>(domains.size()));
      if (fresh) domains.push_back(Domain{"", s, {}, key[p]});
      domains[it->second].nodes.push_back(su.nodes[p]);
      node_refs.push_back(NodeRef{s, p, it->second});
    }
    const int count = static_cast<int>(domains.size()) - first;
    su_domains[s] = count;
    for (int d = first; d < first + count; ++d)
      domains[d].name = count == 1 ? su.name : su.name + "-d" + std::to_string(d - first + 1);
  }
  // At most half full; the first of duplicate names keeps the slot.
  size_t size = 16;
  while (size < 2 * node_refs.size()) size *= 2;
  node_slots.assign(size, -1);
  for (size_t r = 0; r < node_refs.size(); ++r) {
    const size_t i = SlotOf(*this, sus[node_refs[r].su].nodes[node_refs[r].position]);
    if (node_slots[i] < 0) node_slots[i] = static_cast<int32_t>(r);
  }
}

const NodeRef* Topology::FindNode(const std::string& node) const {
  if (node_slots.empty()) return nullptr;
  const int32_t r = node_slots[SlotOf(*this, node)];
  return r < 0 ? nullptr : &node_refs[r];
}

const NodeType* Topology::FindType(const std::string& name) const {
  auto it = type_index.find(name);
  return it == type_index.end() ? nullptr : &node_types[it->second];
}

const NodeType* Topology::TypeOfNode(const std::string& node) const {
  const NodeRef* ref = FindNode(node);
  return ref ? FindType(sus[ref->su].node_type) : nullptr;
}

size_t Topology::NodeCount() const {
  size_t n = 0;
  for (const ScalableUnit& su : sus) n += su.nodes.size();
  return n;
}

std::string LeafName(const ScalableUnit& su, const Leaf& leaf) {
  return leaf.sw.name.empty() ? su.name + "-rail" + std::to_string(leaf.rail) : leaf.sw.name;
}

bool HasSplitSus(const Topology& topo) {
  for (int n : topo.su_domains)
    if (n > 1) return true;
  return false;
}

Topology DomainView(const Topology& topo) {
  if (!HasSplitSus(topo)) return topo;
  Topology v;
  v.cluster = topo.cluster;
  v.rails = topo.rails;
  v.node_types = topo.node_types;
  v.spines = topo.spines;
  v.cores = topo.cores;
  for (const Domain& d : topo.domains) {
    const ScalableUnit& su = topo.sus[static_cast<size_t>(d.su)];
    ScalableUnit u;
    u.name = d.name;
    u.nodes = d.nodes;
    u.nodes_expr = d.name;  // not a hostlist of the file; the view is never written out
    u.node_type = su.node_type;
    for (int leaf : d.leaves) {
      if (leaf < 0) continue;
      Leaf l = su.leaves[static_cast<size_t>(leaf)];
      l.sw.name = LeafName(su, l);
      l.nodes.clear();
      l.nodes_expr.clear();
      u.leaves.push_back(std::move(l));
    }
    v.sus.push_back(std::move(u));
  }
  v.Index();
  return v;
}

}  // namespace railguard::topo
