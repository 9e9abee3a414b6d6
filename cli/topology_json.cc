// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/topology_json.h"

#include "topo/hostlist.h"

namespace railguard::cli {

using nlohmann::json;

json RailsJson(const topo::Topology& t) {
  const topo::NodeType* type = t.node_types.empty() ? nullptr : &t.node_types[0];
  json rails = json::array();
  for (const topo::Rail& r : t.rails)
    rails.push_back(
        {{"index", r.index},
         {"name", r.name},
         {"hca", type && r.index < static_cast<int>(type->nics.size()) ? type->nics[r.index] : ""},
         {"link", std::to_string(r.link.width) + "x" + r.link.speed},
         {"rate_gbps", r.link.rate_gbps},
         {"width", r.link.width},
         {"speed", r.link.speed},
         {"sysfs_rate", r.link.ToSysfsRate()}});
  return rails;
}

json ScalableUnitsJson(const topo::Topology& t) {
  json sus = json::array();
  for (const topo::ScalableUnit& su : t.sus) {
    json leaves = json::array();
    for (const topo::Leaf& l : su.leaves)
      leaves.push_back({{"rail", l.rail},
                        {"name", topo::LeafName(su, l)},
                        {"guid", l.sw.guid},
                        {"ports", l.sw.ports},
                        {"nodes", CompressHostlistSorted(l.nodes.empty() ? su.nodes : l.nodes)}});
    sus.push_back({{"name", su.name},
                   {"nodes", CompressHostlistSorted(su.nodes)},
                   {"node_count", su.nodes.size()},
                   {"node_type", su.node_type},
                   {"leaves", leaves}});
  }
  return sus;
}

json DomainsJson(const topo::Topology& t) {
  json domains = json::array();
  for (const topo::Domain& d : t.domains) {
    const topo::ScalableUnit& su = t.sus[static_cast<size_t>(d.su)];
    json leaves = json::array();
    for (size_t k = 0; k < d.leaves.size(); ++k)
      leaves.push_back(d.leaves[k] < 0
                           ? std::string()
                           : topo::LeafName(su, su.leaves[static_cast<size_t>(d.leaves[k])]));
    domains.push_back({{"name", d.name},
                       {"su", su.name},
                       {"nodes", CompressHostlistSorted(d.nodes)},
                       {"node_count", d.nodes.size()},
                       {"leaves", leaves}});
  }
  return domains;
}

json SwitchesJson(const std::vector<topo::Switch>& list) {
  json out = json::array();
  for (const topo::Switch& sw : list)
    out.push_back({{"name", sw.name}, {"guid", sw.guid}, {"ports", sw.ports}});
  return out;
}

json SpinesJson(const topo::Topology& t) { return SwitchesJson(t.spines); }

json CoresJson(const topo::Topology& t) { return SwitchesJson(t.cores); }

json DiagsJson(const Diags& diags) {
  json out = json::array();
  for (const Diag& d : diags)
    out.push_back(
        {{"file", d.file}, {"line", d.line}, {"column", d.column}, {"message", d.message}});
  return out;
}

}  // namespace railguard::cli
