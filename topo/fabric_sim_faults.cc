// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric simulator's fault flags (AddSimFault in topo/fabric_sim.h): each flag's value
// parsed against the topology into SimFaults.
#include <string>
#include <vector>

#include "base/names.h"
#include "base/numbers.h"
#include "topo/fabric_sim.h"

namespace railguard::topo {
namespace {

// Splits "a:b:c" at ':'.
std::vector<std::string> SplitColons(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    parts.push_back(s.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return parts;
}

bool ParseCount(const std::string& s, int lo, int hi, int* out) {
  return ParseDigits(s, lo, hi, out, 6);
}

// A rail given as an index, a rail name or a NIC name of `type`.
bool ParseRail(const Topology& topo, const NodeType* type, const std::string& s, int* out) {
  const int rails = static_cast<int>(topo.rails.size());
  if (ParseCount(s, 0, rails - 1, out)) return true;
  for (int r = 0; r < rails; ++r) {
    if (topo.rails[r].name == s ||
        (type && r < static_cast<int>(type->nics.size()) && type->nics[r] == s)) {
      *out = r;
      return true;
    }
  }
  return false;
}

}  // namespace

bool AddSimFault(const Topology& topo, const std::string& flag, const std::string& value,
                 SimFaults* faults, std::string* err) {
  const std::vector<std::string> parts = SplitColons(value);
  const int rails = static_cast<int>(topo.rails.size());
  const std::string rail_form =
      "a rail index 0 to " + std::to_string(rails - 1) + ", a rail name or a NIC name";
  auto bad = [&](const std::string& what, const std::string& form) {
    *err = "--" + flag + " " + value + ": " + what + "; expected " + form;
    return false;
  };
  // NODE, then rails: checks the node and parses parts[1..] as rails into `out`.
  auto node_rails = [&](const std::string& form, size_t n_rails, std::vector<int>* out) {
    if (parts.size() < 1 + n_rails) return bad("too few fields", form);
    const NodeType* type = topo.TypeOfNode(parts[0]);
    if (!topo.FindNode(parts[0])) return bad("unknown node '" + parts[0] + "'", form);
    for (size_t i = 1; i <= n_rails; ++i) {
      int r = 0;
      if (!ParseRail(topo, type, parts[i], &r))
        return bad("unknown rail '" + parts[i] + "'", rail_form);
      out->push_back(r);
    }
    return true;
  };
  auto su_rail = [&](const std::string& form, int* su, int* rail) {
    if (parts.size() < 2) return bad("too few fields", form);
    *su = -1;
    for (size_t s = 0; s < topo.sus.size(); ++s)
      if (topo.sus[s].name == parts[0]) *su = static_cast<int>(s);
    if (*su < 0) return bad("unknown scalable unit '" + parts[0] + "'", form);
    if (!ParseRail(topo, topo.FindType(topo.sus[*su].node_type), parts[1], rail))
      return bad("unknown rail '" + parts[1] + "'", rail_form);
    return true;
  };
  std::vector<int> r;
  int su = 0;
  int rail = 0;
  if (flag == "swap") {
    const char form[] = "NODE:RAILa:RAILb";
    if (parts.size() != 3) return bad("wrong number of fields", form);
    if (!node_rails(form, 2, &r)) return false;
    if (r[0] == r[1]) return bad("both rails are " + std::to_string(r[0]), "two different rails");
    faults->swaps.push_back({parts[0], r[0], r[1]});
  } else if (flag == "drop" || flag == "unnamed") {
    const char form[] = "NODE:RAIL";
    if (parts.size() != 2) return bad("wrong number of fields", form);
    if (!node_rails(form, 1, &r)) return false;
    (flag == "drop" ? faults->drops : faults->unnamed).push_back({parts[0], r[0]});
  } else if (flag == "slow") {
    const char form[] = "NODE:RAIL:WIDTHxSPEED (e.g. n001:0:4xHDR)";
    if (parts.size() != 3) return bad("wrong number of fields", form);
    if (!node_rails(form, 1, &r)) return false;
    if (!LinkSpecFromIbToken(parts[2]))
      return bad("bad link '" + parts[2] + "'", "a width and speed such as 4xHDR");
    faults->slow_links.push_back({parts[0], r[0], parts[2]});
  } else if (flag == "cross-su") {
    const char form[] = "NODE:RAIL:SU";
    if (parts.size() != 3) return bad("wrong number of fields", form);
    if (!node_rails(form, 1, &r)) return false;
    bool known = false;
    for (const ScalableUnit& s : topo.sus) known = known || s.name == parts[2];
    if (!known) return bad("unknown scalable unit '" + parts[2] + "'", form);
    const NodeRef* ref = topo.FindNode(parts[0]);
    if (topo.sus[ref->su].name == parts[2])
      return bad(parts[0] + " is already in " + parts[2], "another scalable unit");
    faults->cross_su.push_back({parts[0], r[0], parts[2]});
  } else if (flag == "drop-leaf") {
    const char form[] = "SU:RAIL";
    if (parts.size() != 2) return bad("wrong number of fields", form);
    if (!su_rail(form, &su, &rail)) return false;
    faults->dropped_leaves.push_back({parts[0], rail});
  } else if (flag == "drop-uplinks") {
    const char form[] = "SU:RAIL:N";
    if (parts.size() != 3) return bad("wrong number of fields", form);
    if (!su_rail(form, &su, &rail)) return false;
    int n = 0;
    if (!ParseCount(parts[2], 1, kMaxSimCount, &n))
      return bad("bad uplink count '" + parts[2] + "'", "a count from 1 to 4096");
    faults->uplink_cuts.push_back({parts[0], rail, n});
  } else if (flag == "host-name") {
    const char form[] = "NODE:NAME (e.g. n005:localhost)";
    if (parts.size() != 2) return bad("wrong number of fields", form);
    if (!topo.FindNode(parts[0])) return bad("unknown node '" + parts[0] + "'", form);
    // "(none)" is what a host without a host name reports; anything else must be a name.
    if (parts[1] != "(none)" && !IsSafeName(parts[1]))
      return bad("bad host name '" + parts[1] + "'", "letters, digits, '-', '_', '.' or (none)");
    faults->host_names.push_back({parts[0], parts[1]});
  } else if (flag == "empty") {
    if (!topo.FindNode(value)) return bad("unknown node '" + value + "'", "NODE");
    faults->empty.push_back(value);
  } else if (flag == "appliance") {
    const char form[] = "HOST:SU:RAIL[,RAIL...]";
    if (parts.size() != 3) return bad("wrong number of fields", form);
    if (!IsSafeName(parts[0])) return bad("bad host name '" + parts[0] + "'", form);
    if (topo.FindNode(parts[0])) return bad(parts[0] + " is a compute node", "another host name");
    su = -1;
    for (size_t s = 0; s < topo.sus.size(); ++s)
      if (topo.sus[s].name == parts[1]) su = static_cast<int>(s);
    if (su < 0) return bad("unknown scalable unit '" + parts[1] + "'", form);
    SimFaults::Appliance a{parts[0], parts[1], {}};
    const NodeType* type = topo.FindType(topo.sus[su].node_type);
    size_t start = 0;
    while (true) {
      const size_t comma = parts[2].find(',', start);
      const std::string item = parts[2].substr(start, comma - start);
      if (!ParseRail(topo, type, item, &rail)) return bad("unknown rail '" + item + "'", rail_form);
      a.rails.push_back(rail);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    faults->appliances.push_back(std::move(a));
  } else if (flag == "move") {
    const char form[] = "NODE:RAIL:PORT";
    if (parts.size() != 3) return bad("wrong number of fields", form);
    if (!node_rails(form, 1, &r)) return false;
    int port = 0;
    if (!ParseCount(parts[2], 1, 254, &port))
      return bad("bad port '" + parts[2] + "'", "a port from 1 to 254");
    faults->moves.push_back({parts[0], r[0], port});
  } else if (flag == "service") {
    const char form[] = "PREFIX:HOSTS:HCAS (e.g. login:4:2)";
    if (parts.size() != 3) return bad("wrong number of fields", form);
    if (!IsSafeName(parts[0])) return bad("bad host name prefix '" + parts[0] + "'", form);
    SimFaults::ServiceGroup g{parts[0], 0, 0};
    if (!ParseCount(parts[1], 1, 254, &g.hosts))
      return bad("bad host count '" + parts[1] + "'", "HOSTS from 1 to 254");
    if (!ParseCount(parts[2], 1, 4, &g.hcas))
      return bad("bad HCA count '" + parts[2] + "'", "HCAS from 1 to 4");
    for (int h = 1; h <= g.hosts; ++h)
      if (topo.FindNode(g.prefix + (h < 10 ? "0" : "") + std::to_string(h)))
        return bad("host " + g.prefix + std::to_string(h) + " is a compute node", "another prefix");
    faults->service_groups.push_back(std::move(g));
  } else if (flag == "ufm") {
    if (!IsSafeName(value)) return bad("bad host name", "HOST: letters, digits, '-', '_' or '.'");
    faults->ufm_hosts.push_back(value);
  } else if (flag == "sharp") {
    int n = 0;
    if (!ParseCount(value, 1, kMaxSimCount, &n)) return bad("bad count", "N from 1 to 4096");
    faults->sharp_nodes += n;
  } else {
    *err = "unknown fault '" + flag + "'";
    return false;
  }
  return true;
}

}  // namespace railguard::topo
