// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/evidence_from_sweep.h"

#include <map>
#include <set>

#include "report/rootcause_sweep.h"

namespace railguard::report {
namespace {

int RailIndex(const topo::Topology& t, const std::string& name) {
  for (size_t k = 0; k < t.rails.size(); ++k)
    if (t.rails[k].name == name) return static_cast<int>(k);
  return -1;
}

bool SwitchEnd(const std::string& side) { return side != "host"; }  // leaf, switch, both

}  // namespace

wire::FabricEvidence EvidenceFromSweep(const SweepInput& sweep, const topo::Topology& topo) {
  wire::FabricEvidence e;
  e.time = sweep.time;
  e.sweep = sweep.file;
  e.complete = sweep.complete;
  struct Leaf {
    std::string su;
    std::set<std::string> domains;  // of the topology hosts on it, in name order
    int rail = -1, links = 0, bad = 0;
  };
  std::map<std::string, Leaf> leaves;
  for (const SweepLink& l : sweep.links) {
    if (l.kind != "host") continue;
    const int rail = RailIndex(topo, l.rail);
    Leaf& leaf = leaves[l.b.name];
    leaf.su = l.su;
    leaf.rail = rail;
    ++leaf.links;
    leaf.bad += !JudgeEnds(l).end.empty();
    const topo::NodeRef* ref = topo.FindNode(l.host);
    if (ref && ref->domain >= 0) leaf.domains.insert(topo.domains[ref->domain].name);
    if (rail < 0 || !ref) continue;
    std::map<std::string, std::string> kinds;  // kind -> messages
    for (const SweepFinding& f : l.findings)
      if (f.kind != "unread" && SwitchEnd(f.side))
        kinds[f.kind] += (kinds[f.kind].empty() ? "" : "; ") + f.message;
    for (const auto& kv : kinds)
      e.links.push_back({l.host, rail, l.b.name, l.b.port, kv.first, kv.second});
  }
  for (const auto& kv : leaves)
    if (kv.second.rail >= 0 && !kv.second.su.empty() &&
        LeafFaultRule(kv.second.bad, kv.second.links))
      for (const std::string& d : kv.second.domains.empty() ? std::set<std::string>{kv.second.su}
                                                             : kv.second.domains)
        e.leaves.push_back({d, kv.second.rail, kv.first, kv.second.bad, kv.second.links});
  return e;
}

}  // namespace railguard::report
