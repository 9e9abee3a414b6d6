// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/fabric_sim.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include "topo/ibnet.h"
#include "base/names.h"
#include "base/numbers.h"

namespace railguard::topo {

const char kDefaultHcaDescription[] = "MT4129 ConnectX7 Mellanox Technologies";
const char kSharpDescription[] = "Mellanox Technologies Aggregation Node";

namespace {

// GUID blocks; the Mellanox OUIs keep the output looking like a real fabric.
constexpr uint64_t kHcaGuidBase = 0x0c42a10300000000ULL;    // | node << 8 | rail
constexpr uint64_t kUfmGuidBase = 0x0c42a103ff000000ULL;    // | host << 8
constexpr uint64_t kSharpGuidBase = 0x0c42a103fe000000ULL;  // | index
constexpr uint64_t kApplianceGuidBase = 0x0c42a103fd000000ULL;  // | appliance << 8 | hca
constexpr uint64_t kLeafGuidBase = 0xfc6a1c0300000000ULL;   // | k << 24 | su << 8 | rail
constexpr uint64_t kSpineGuidBase = 0xfc6a1c03ff000000ULL;  // | spine
constexpr uint64_t kServiceLeafGuidBase = 0xfc6a1c03fb000000ULL;  // | group << 8 | leaf
constexpr uint64_t kServiceHcaGuidBase = 0x0c42a103fb000000ULL;   // | group << 16 | host << 8 | k
constexpr uint64_t kCoreGuidBase = 0xfc6a1c03fc000000ULL;   // | core
constexpr int kVendorId = 0x2c9;
constexpr int kHcaDeviceId = 0x1021;     // ConnectX-7 (MT4129)
constexpr int kSwitchDeviceId = 0xd2f2;  // Quantum-2 (MT54002)
constexpr int kSharpDeviceId = 0xcf09;
constexpr int kDefaultSwitchPorts = 64;

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%" PRIx64, v);
  return buf;
}

// "1 uplink", "2 uplinks".
std::string Count(int n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string Token(const LinkSpec& link) { return std::to_string(link.width) + "x" + link.speed; }

// The switch model a Mellanox/NVIDIA switch of that speed reports in its description.
std::string SwitchModel(const std::string& speed) {
  if (speed == "NDR" || speed == "XDR") return "MQM9700";
  if (speed == "HDR") return "MQM8700";
  if (speed == "EDR") return "MSB7800";
  return "MSX6036";
}

uint64_t ParseGuid(const std::string& s) {
  // Validated YAML: "0x" + hex digits.
  uint64_t v = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    char c = s[i];
    v = v << 4 | static_cast<uint64_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return v;
}

struct SimPeer {
  int node = -1;
  int port = 0;
  std::string token;
};

struct SimNode {
  IbNodeType type = IbNodeType::kCa;
  uint64_t guid = 0;
  std::string description;
  int device_id = 0;
  int lid = 0;
  std::vector<SimPeer> ports;  // index 0 unused; ports[p] is port p
  std::string label;           // for error messages: "leaf su1-rail0", "spine spine1"
};

class Builder {
 public:
  Builder(const Topology& topo, const SimOptions& opts) : topo_(topo), opts_(opts) {}

  bool Build(std::string* out, std::string* err);

 private:
  int AddNode(IbNodeType type, uint64_t guid, std::string desc, int device_id, int ports,
              std::string label) {
    SimNode n;
    n.type = type;
    n.guid = guid;
    n.description = std::move(desc);
    n.device_id = device_id;
    n.ports.resize(static_cast<size_t>(ports) + 1);
    n.label = std::move(label);
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size()) - 1;
  }
  void Connect(int a, int pa, int b, int pb, const std::string& token) {
    nodes_[a].ports[pa] = SimPeer{b, pb, token};
    nodes_[b].ports[pb] = SimPeer{a, pa, token};
  }
  // The lowest free port of `node` from `from`, or 0 if it is full.
  int FreePort(int node, int from = 1) const {
    const std::vector<SimPeer>& ports = nodes_[node].ports;
    for (int p = std::max(from, 1); p < static_cast<int>(ports.size()); ++p)
      if (ports[p].node < 0) return p;
    return 0;
  }
  bool CheckGuids(std::string* err) const;
  bool CheckFaults(const Topology& topo, std::string* err) const;
  void Print(std::string* out) const;

  const Topology& topo_;
  const SimOptions& opts_;
  std::vector<SimNode> nodes_;
};

bool Builder::CheckGuids(std::string* err) const {
  std::unordered_map<uint64_t, int> seen;
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
    auto [it, fresh] = seen.emplace(nodes_[i].guid, i);
    if (!fresh) {
      *err = "GUID " + GuidString(nodes_[i].guid) + " is used by both " + nodes_[it->second].label +
             " and " + nodes_[i].label + "; expected unique switch GUIDs";
      return false;
    }
  }
  return true;
}

bool Builder::CheckFaults(const Topology& topo, std::string* err) const {
  const SimFaults& f = opts_.faults;
  const int rails = static_cast<int>(topo.rails.size());
  auto rail_ok = [&](int r, const std::string& where) {
    if (r >= 0 && r < rails) return true;
    *err = where + ": rail " + std::to_string(r) + " out of range; expected 0 to " +
           std::to_string(rails - 1);
    return false;
  };
  auto node_ok = [&](const std::string& node, const std::string& where) {
    if (topo.FindNode(node)) return true;
    *err = where + ": unknown node '" + node + "'";
    return false;
  };
  auto su_ok = [&](const std::string& su, const std::string& where) {
    for (const ScalableUnit& s : topo.sus)
      if (s.name == su) return true;
    *err = where + ": unknown scalable unit '" + su + "'";
    return false;
  };
  for (const SimFaults::Swap& s : f.swaps)
    if (!node_ok(s.node, "swap") || !rail_ok(s.rail_a, "swap") || !rail_ok(s.rail_b, "swap"))
      return false;
  for (const auto* list : {&f.drops, &f.unnamed})
    for (const SimFaults::NodeRail& n : *list)
      if (!node_ok(n.node, "fault") || !rail_ok(n.rail, "fault")) return false;
  for (const SimFaults::Slow& s : f.slow_links)
    if (!node_ok(s.node, "slow") || !rail_ok(s.rail, "slow")) return false;
  for (const SimFaults::CrossSu& c : f.cross_su)
    if (!node_ok(c.node, "cross-su") || !rail_ok(c.rail, "cross-su") || !su_ok(c.su, "cross-su"))
      return false;
  for (const SimFaults::SuRail& d : f.dropped_leaves)
    if (!su_ok(d.su, "drop-leaf") || !rail_ok(d.rail, "drop-leaf")) return false;
  for (const SimFaults::HostName& h : f.host_names)
    if (!node_ok(h.node, "host-name")) return false;
  for (const std::string& node : f.empty)
    if (!node_ok(node, "empty")) return false;
  for (const SimFaults::Appliance& a : f.appliances) {
    if (!su_ok(a.su, "appliance")) return false;
    for (int r : a.rails)
      if (!rail_ok(r, "appliance")) return false;
  }
  const int spine_count = static_cast<int>(topo.spines.size());
  const int rail_count = static_cast<int>(topo.rails.size());
  const int total = (opts_.rail_planes && rail_count > 0 ? spine_count / rail_count : spine_count) *
                    opts_.uplinks;
  for (const SimFaults::UplinkCut& c : f.uplink_cuts) {
    if (!su_ok(c.su, "drop-uplinks") || !rail_ok(c.rail, "drop-uplinks")) return false;
    if (c.count < 0 || c.count > total) {
      *err = "drop-uplinks " + c.su + ":" + std::to_string(c.rail) + ":" + std::to_string(c.count) +
             ": the leaf has only " + Count(total, "uplink");
      return false;
    }
  }
  return true;
}

bool Builder::Build(std::string* out, std::string* err) {
  const SimFaults& f = opts_.faults;
  const int rails = static_cast<int>(topo_.rails.size());
  const int spines = static_cast<int>(topo_.spines.size());
  const int uplinks = opts_.uplinks;
  if (opts_.cores > 0 && !topo_.cores.empty()) {
    *err = "the topology lists " + std::to_string(topo_.cores.size()) + " core switches" +
           " and --cores asks for " + std::to_string(opts_.cores) + "; expected one of the two";
    return false;
  }
  const int core_count = topo_.cores.empty() ? opts_.cores : static_cast<int>(topo_.cores.size());
  if (uplinks < 0 || uplinks > kMaxSimCount) {
    *err = "uplinks " + std::to_string(uplinks) + " out of range; expected 0 to " +
           std::to_string(kMaxSimCount);
    return false;
  }
  if (opts_.rail_planes && (spines == 0 || rails == 0 || spines % rails != 0)) {
    *err = "rail planes need a spine count that is a multiple of the rail count; the topology "
           "has " + Count(spines, "spine") + " and " + Count(rails, "rail");
    return false;
  }
  // Spine sp serves the leaves of rail sp % rails with planes, else every leaf.
  const int plane_of_spine = opts_.rail_planes ? rails : 0;
  auto serves = [&](int sp, int rail) { return plane_of_spine == 0 || sp % rails == rail; };
  const int spines_per_leaf = plane_of_spine == 0 ? spines : spines / rails;
  Topology topo = topo_;
  topo.Index();
  AssignSwitchGuids(&topo);
  if (!CheckFaults(topo, err)) return false;

  std::set<std::pair<int, int>> dropped_leaves;  // (su, rail)
  for (const SimFaults::SuRail& d : f.dropped_leaves) {
    for (int s = 0; s < static_cast<int>(topo.sus.size()); ++s)
      if (topo.sus[s].name == d.su) dropped_leaves.emplace(s, d.rail);
  }
  std::map<std::pair<int, int>, int> cuts;  // (su, rail) -> uplinks removed
  for (const SimFaults::UplinkCut& c : f.uplink_cuts) {
    for (int s = 0; s < static_cast<int>(topo.sus.size()); ++s)
      if (topo.sus[s].name == c.su) cuts[{s, c.rail}] += c.count;
  }

  // Leaves first (SU-major, rail-minor), then spines, as ibnetdiscover lists switches.
  const int extra_leaf_ports = f.sharp_nodes > 0 ? 1 : 0;
  std::vector<std::vector<int>> leaf_node(topo.sus.size());  // per SU, per leaf: node or -1
  // The nodes a leaf serves: its own `nodes:`, else all of its SU's.
  auto leaf_hosts = [&](int s, const Leaf& leaf) {
    return static_cast<int>(leaf.nodes.empty() ? topo.sus[s].nodes.size() : leaf.nodes.size());
  };
  // The first leaf of `rail` in SU `s` (cross-SU cables, appliances): its node or -1, and
  // in `*from` the first port after its hosts.
  auto first_leaf = [&](int s, int rail, int* from) {
    for (size_t k = 0; k < topo.sus[s].leaves.size(); ++k) {
      if (topo.sus[s].leaves[k].rail != rail) continue;
      *from = leaf_hosts(s, topo.sus[s].leaves[k]) + 1;
      return leaf_node[s][k];
    }
    return -1;
  };
  int leaf_count = 0;
  std::vector<int> rail_leaves(rails, 0);  // leaves per rail, counting dropped ones
  for (int s = 0; s < static_cast<int>(topo.sus.size()); ++s) {
    const ScalableUnit& su = topo.sus[s];
    leaf_node[s].assign(su.leaves.size(), -1);
    for (size_t k = 0; k < su.leaves.size(); ++k) {
      const Leaf& leaf = su.leaves[k];
      ++leaf_count;
      ++rail_leaves[leaf.rail];
      if (dropped_leaves.count({s, leaf.rail})) continue;
      const int hosts = leaf_hosts(s, leaf);
      const int needed = hosts + spines_per_leaf * uplinks + extra_leaf_ports;
      int ports = leaf.sw.ports > 0 ? leaf.sw.ports : std::max(kDefaultSwitchPorts, needed);
      const std::string name = LeafName(su, leaf);
      if (needed > ports) {
        *err = "leaf " + name + " has " + std::to_string(ports) + " ports but needs " +
               std::to_string(needed) + " (" + std::to_string(hosts) + " hosts, " +
               Count(spines_per_leaf * uplinks, "uplink") + (extra_leaf_ports ? ", 1 SHARP node" : "") + ")";
        return false;
      }
      const std::string model = SwitchModel(topo.rails[leaf.rail].link.speed);
      leaf_node[s][k] =
          AddNode(IbNodeType::kSwitch, ParseGuid(leaf.sw.guid), "MF0;" + name + ":" + model + "/U1",
                  kSwitchDeviceId, ports, "leaf " + name);
    }
  }
  std::vector<int> spine_node;
  const int extra_spine_ports = static_cast<int>(f.ufm_hosts.size());
  int service_leaves = 0;
  for (const SimFaults::ServiceGroup& g : f.service_groups) service_leaves += g.hcas;
  for (int i = 0; i < spines; ++i) {
    const Switch& sw = topo.spines[i];
    const int served = plane_of_spine == 0 ? leaf_count : rail_leaves[i % rails];
    const int needed =
        served * uplinks + core_count + service_leaves + (i == 0 ? extra_spine_ports : 0);
    const int ports = sw.ports > 0 ? sw.ports : std::max(kDefaultSwitchPorts, needed);
    if (needed > ports) {
      *err = "spine " + sw.name + " has " + std::to_string(ports) + " ports but needs " +
             std::to_string(needed) + " (" + std::to_string(served) + " leaves x " +
             Count(uplinks, "uplink") + (core_count ? " + " + Count(core_count, "core") : "") +
             (i == 0 && extra_spine_ports ? " + " + Count(extra_spine_ports, "UFM host") : "") +
             ")";
      return false;
    }
    const std::string model = SwitchModel(rails > 0 ? topo.rails[0].link.speed : "NDR");
    spine_node.push_back(AddNode(IbNodeType::kSwitch, ParseGuid(sw.guid),
                                 "MF0;" + sw.name + ":" + model + "/U1", kSwitchDeviceId, ports,
                                 "spine " + sw.name));
  }

  // Uplinks: leaf number g (counting dropped leaves, so ports stay put) uses spine ports
  // g*uplinks+1.., and its own ports from the upper half when they are free.
  int g = 0;
  std::vector<int> rail_g(rails, 0);  // with planes: leaf number within its rail
  for (int s = 0; s < static_cast<int>(topo.sus.size()); ++s) {
    const ScalableUnit& su = topo.sus[s];
    for (size_t lk = 0; lk < su.leaves.size(); ++lk) {
      const Leaf& leaf = su.leaves[lk];
      const int leaf_index = plane_of_spine == 0 ? g++ : rail_g[leaf.rail]++;
      const int node = leaf_node[s][lk];
      if (node < 0) continue;
      const int ports = static_cast<int>(nodes_[node].ports.size()) - 1;
      const int hosts = leaf_hosts(s, leaf);
      int base = std::max(hosts + 1, ports / 2 + 1);
      if (base + spines_per_leaf * uplinks - 1 > ports) base = hosts + 1;
      auto cut = cuts.find({s, leaf.rail});
      int keep = spines_per_leaf * uplinks - (cut == cuts.end() ? 0 : cut->second);
      const std::string token = Token(topo.rails[leaf.rail].link);
      int nth = 0;  // spines of this leaf so far
      for (int sp = 0; sp < spines; ++sp) {
        if (!serves(sp, leaf.rail)) continue;
        const int this_spine = nth++;
        for (int u = 0; u < uplinks; ++u) {
          const int k = this_spine * uplinks + u;
          // Cuts remove the leaf's last uplinks.
          if (k >= keep) continue;
          Connect(node, base + k, spine_node[sp], leaf_index * uplinks + u + 1, token);
        }
      }
    }
  }

  // Core switches: every spine once to every core, on the spine's next free port.
  if (core_count < 0 || core_count > kMaxSimCount || (core_count > 0 && spines == 0)) {
    *err = "cores " + std::to_string(core_count) + ": expected 0 to " +
           std::to_string(kMaxSimCount) + ", and spines to cable them to";
    return false;
  }
  for (int c = 0; c < core_count; ++c) {
    Switch sw;
    if (c < static_cast<int>(topo.cores.size())) sw = topo.cores[c];
    if (sw.name.empty()) sw.name = "core" + std::to_string(c + 1);
    const uint64_t guid =
        sw.guid.empty() ? kCoreGuidBase | static_cast<uint64_t>(c + 1) : ParseGuid(sw.guid);
    const int ports = sw.ports > 0 ? sw.ports : std::max(kDefaultSwitchPorts, spines);
    if (spines > ports) {
      *err = "core switch " + sw.name + " has " + std::to_string(ports) + " ports but needs " +
             std::to_string(spines) + " (one per spine)";
      return false;
    }
    const int core = AddNode(
        IbNodeType::kSwitch, guid,
        "MF0;" + sw.name + ":" + SwitchModel(rails > 0 ? topo.rails[0].link.speed : "NDR") + "/U1",
        kSwitchDeviceId, ports, "core " + sw.name);
    for (int sp = 0; sp < spines; ++sp)
      Connect(spine_node[sp], FreePort(spine_node[sp]), core, sp + 1,
              Token(topo.rails[rails > 0 ? sp % rails : 0].link));
  }

  // Compute HCAs, node by node in SU order, rail by rail.
  std::unordered_map<std::string, std::vector<int>> target;  // node -> leaf rail per HCA rail
  std::set<std::pair<std::string, int>> drops, unnamed;
  std::map<std::pair<std::string, int>, std::string> slow;
  std::map<std::pair<std::string, int>, int> moved;
  for (const SimFaults::Move& m : f.moves) moved[{m.node, m.rail}] = m.port;
  for (const SimFaults::Swap& sw : f.swaps) {
    auto [it, fresh] = target.emplace(sw.node, std::vector<int>());
    if (fresh)
      for (int r = 0; r < rails; ++r) it->second.push_back(r);
    std::swap(it->second[sw.rail_a], it->second[sw.rail_b]);
  }
  for (const SimFaults::NodeRail& d : f.drops) drops.emplace(d.node, d.rail);
  for (const SimFaults::NodeRail& u : f.unnamed) unnamed.emplace(u.node, u.rail);
  for (const SimFaults::Slow& sl : f.slow_links) slow[{sl.node, sl.rail}] = sl.token;
  std::map<std::string, std::string> host_name;  // node -> the name its HCAs give
  for (const SimFaults::HostName& h : f.host_names) host_name[h.node] = h.name;
  const std::set<std::string> empty(f.empty.begin(), f.empty.end());
  std::map<std::pair<std::string, int>, int> cross;  // (node, rail) -> SU index
  for (const SimFaults::CrossSu& c : f.cross_su)
    for (int s = 0; s < static_cast<int>(topo.sus.size()); ++s)
      if (topo.sus[s].name == c.su) cross[{c.node, c.rail}] = s;

  uint64_t node_number = 0;
  for (int s = 0; s < static_cast<int>(topo.sus.size()); ++s) {
    const ScalableUnit& su = topo.sus[s];
    const NodeType* type = topo.FindType(su.node_type);
    // Per leaf: each host's place among the nodes it serves (its port is one more).
    std::vector<std::unordered_map<std::string, int>> leaf_pos(su.leaves.size());
    for (size_t k = 0; k < su.leaves.size(); ++k) {
      const std::vector<std::string>& served =
          su.leaves[k].nodes.empty() ? su.nodes : su.leaves[k].nodes;
      for (size_t i = 0; i < served.size(); ++i)
        leaf_pos[k].emplace(served[i], static_cast<int>(i));
    }
    for (int pos = 0; pos < static_cast<int>(su.nodes.size()); ++pos) {
      const std::string& host = su.nodes[pos];
      ++node_number;
      if (empty.count(host)) continue;
      auto named = host_name.find(host);
      const std::string& described = named == host_name.end() ? host : named->second;
      auto t = target.find(host);
      for (int r = 0; r < rails; ++r) {
        const int leaf_rail = t == target.end() ? r : t->second[r];
        auto cr = cross.find({host, r});
        const int leaf_su = cr == cross.end() ? s : cr->second;
        // At home, the leaf of the host's one-hop domain on that rail, where the host is the
        // pos-th of the leaf's nodes; in another SU, that SU's first leaf of the rail.
        const Domain& dom = topo.domains[topo.FindNode(host)->domain];
        const int home_leaf = dom.leaves[leaf_rail];
        int from = 1;
        const int leaf = leaf_su != s ? first_leaf(leaf_su, leaf_rail, &from)
                         : home_leaf < 0 ? -1 : leaf_node[s][home_leaf];
        if (leaf < 0 || drops.count({host, r})) continue;
        int port = home_leaf < 0 ? 0 : leaf_pos[home_leaf][host] + 1;
        if (auto mv = moved.find({host, r}); mv != moved.end() && leaf_su == s) {
          port = mv->second;
          if (port >= static_cast<int>(nodes_[leaf].ports.size()) ||
              nodes_[leaf].ports[port].node >= 0 ||
              port <= static_cast<int>(leaf_pos[home_leaf].size())) {
            *err = "move " + host + ":" + std::to_string(r) + ":" + std::to_string(port) + ": " +
                   nodes_[leaf].label + " port " + std::to_string(port) +
                   " is a host's, taken or not there; expected a free port above the leaf's hosts";
            return false;
          }
        }
        if (leaf_su != s) {
          port = FreePort(leaf, from);
          if (port == 0) {
            *err = "cross-su " + host + ": " + nodes_[leaf].label + " has no free port";
            return false;
          }
        }
        const std::string nic = type && r < static_cast<int>(type->nics.size())
                                    ? type->nics[r]
                                    : "mlx5_" + std::to_string(r);
        const std::string desc =
            unnamed.count({host, r}) ? kDefaultHcaDescription : described + " " + nic;
        const int ca =
            AddNode(IbNodeType::kCa, kHcaGuidBase | node_number << 8 | static_cast<uint64_t>(r),
                    desc, kHcaDeviceId, 1, "HCA " + host + " " + nic);
        auto sl = slow.find({host, r});
        Connect(ca, 1, leaf, port,
                sl != slow.end() ? sl->second : Token(topo.rails[leaf_rail].link));
      }
    }
  }

  // Non-compute CAs: UFM hosts on the first spine (or the first leaf), SHARP nodes on leaves.
  for (size_t i = 0; i < f.ufm_hosts.size(); ++i) {
    int sw = !spine_node.empty() ? spine_node[0] : -1;
    for (size_t k = 0; sw < 0 && k < nodes_.size(); ++k)
      if (nodes_[k].type == IbNodeType::kSwitch) sw = static_cast<int>(k);
    // After every leaf's uplink ports, so that the layout of the uplinks stays regular.
    const int port = sw < 0 ? 0 : FreePort(sw, spine_node.empty() ? 1 : (plane_of_spine == 0 ? leaf_count : rail_leaves[0]) * uplinks + 1);
    if (port == 0) {
      *err = "no free switch port for UFM host " + f.ufm_hosts[i];
      return false;
    }
    const int ca =
        AddNode(IbNodeType::kCa, kUfmGuidBase | static_cast<uint64_t>(i + 1) << 8,
                f.ufm_hosts[i] + " mlx5_0", kHcaDeviceId, 1, "UFM host " + f.ufm_hosts[i]);
    Connect(ca, 1, sw, port, rails > 0 ? Token(topo.rails[0].link) : "4xNDR");
  }
  struct LeafSlot {
    int node;
    int hosts;
    std::string token;
  };
  std::vector<LeafSlot> leaves_in_order;
  for (int s = 0; s < static_cast<int>(topo.sus.size()); ++s)
    for (size_t k = 0; k < topo.sus[s].leaves.size(); ++k)
      if (leaf_node[s][k] >= 0)
        leaves_in_order.push_back({leaf_node[s][k], leaf_hosts(s, topo.sus[s].leaves[k]),
                                   Token(topo.rails[topo.sus[s].leaves[k].rail].link)});
  if (f.sharp_nodes > static_cast<int>(leaves_in_order.size())) {
    *err = "sharp " + std::to_string(f.sharp_nodes) + " exceeds the " +
           std::to_string(leaves_in_order.size()) +
           " leaves; expected at most one SHARP node per leaf";
    return false;
  }
  for (int i = 0; i < f.sharp_nodes; ++i) {
    const LeafSlot& slot = leaves_in_order[i];
    const int ca =
        AddNode(IbNodeType::kCa, kSharpGuidBase | static_cast<uint64_t>(i + 1), kSharpDescription,
                kSharpDeviceId, 1, "SHARP node " + std::to_string(i + 1));
    Connect(ca, 1, slot.node, FreePort(slot.node, slot.hosts + 1), slot.token);
  }
  // Appliances: one HCA per listed rail, on the SU's leaf, first free port after its hosts.
  for (size_t i = 0; i < f.appliances.size(); ++i) {
    const SimFaults::Appliance& a = f.appliances[i];
    int s = 0;
    while (topo.sus[s].name != a.su) ++s;  // CheckFaults made sure it exists
    for (size_t k = 0; k < a.rails.size(); ++k) {
      int from = 1;
      const int leaf = first_leaf(s, a.rails[k], &from);
      if (leaf < 0) continue;  // the leaf is dropped, and its cables with it
      const int port = FreePort(leaf, from);
      if (port == 0) {
        *err = "appliance " + a.host + ": " + nodes_[leaf].label + " has no free port";
        return false;
      }
      const std::string nic = "mlx5_" + std::to_string(k);
      const int ca =
          AddNode(IbNodeType::kCa,
                  kApplianceGuidBase | static_cast<uint64_t>(i + 1) << 8 | static_cast<uint64_t>(k),
                  a.host + " " + nic, kHcaDeviceId, 1, "appliance " + a.host + " " + nic);
      Connect(ca, 1, leaf, port, Token(topo.rails[a.rails[k]].link));
    }
  }
  // Service groups: their own leaves, each cabled once to every spine.
  for (size_t g = 0; g < f.service_groups.size(); ++g) {
    const SimFaults::ServiceGroup& sg = f.service_groups[g];
    const std::string token = rails > 0 ? Token(topo.rails[0].link) : "4xNDR";
    const std::string model = SwitchModel(rails > 0 ? topo.rails[0].link.speed : "NDR");
    std::vector<int> leaves;
    for (int k = 0; k < sg.hcas; ++k) {
      const std::string name = sg.prefix + "-leaf" + std::to_string(k + 1);
      const int leaf = AddNode(
          IbNodeType::kSwitch,
          kServiceLeafGuidBase | static_cast<uint64_t>(g + 1) << 8 | static_cast<uint64_t>(k + 1),
          "MF0;" + name + ":" + model + "/U1", kSwitchDeviceId,
          std::max(kDefaultSwitchPorts, sg.hosts + spines), "leaf " + name);
      for (int sp = 0; sp < spines; ++sp) {
        const int port = FreePort(spine_node[sp]);
        if (port == 0) {
          *err = "service leaf " + name + ": spine " + topo.spines[sp].name + " has no free port";
          return false;
        }
        Connect(leaf, sg.hosts + 1 + sp, spine_node[sp], port, token);
      }
      leaves.push_back(leaf);
    }
    for (int h = 1; h <= sg.hosts; ++h) {
      const std::string host = sg.prefix + (h < 10 ? "0" : "") + std::to_string(h);
      for (int k = 0; k < sg.hcas; ++k) {
        const std::string nic = "mlx5_" + std::to_string(k);
        const int ca =
            AddNode(IbNodeType::kCa,
                    kServiceHcaGuidBase | static_cast<uint64_t>(g + 1) << 16 |
                        static_cast<uint64_t>(h) << 8 | static_cast<uint64_t>(k),
                    host + " " + nic, kHcaDeviceId, 1, "service host " + host + " " + nic);
        Connect(ca, 1, leaves[k], h, token);
      }
    }
  }
  if (!CheckGuids(err)) return false;

  // LIDs in output order: switches, then CAs.
  int lid = 1;
  for (SimNode& n : nodes_)
    if (n.type == IbNodeType::kSwitch) n.lid = lid++;
  for (SimNode& n : nodes_)
    if (n.type != IbNodeType::kSwitch) n.lid = lid++;
  Print(out);
  return true;
}

void Builder::Print(std::string* out) const {
  std::string& o = *out;
  o.clear();
  o.reserve(nodes_.size() * 400);
  int from = -1;
  for (int i = 0; i < static_cast<int>(nodes_.size()) && from < 0; ++i)
    if (nodes_[i].type == IbNodeType::kCa) from = i;
  o += "#\n# Topology file: generated by railctl topology simulate for cluster " + topo_.cluster +
       "\n#\n";
  if (from >= 0) {
    const std::string id = IbNodeId(IbNodeType::kCa, nodes_[from].guid).substr(2);
    o += "# Initiated from node " + id + " port " + id + "\n";
  }
  auto print_node = [&](const SimNode& n) {
    const std::string hex = Hex(n.guid);
    o += "\nvendid=0x" + Hex(kVendorId) + "\ndevid=0x" + Hex(n.device_id) + "\nsysimgguid=0x" +
         hex + "\n";
    const int ports = static_cast<int>(n.ports.size()) - 1;
    if (n.type == IbNodeType::kSwitch) {
      o += "switchguid=0x" + hex + "(" + hex + ")\n";
      o += "Switch\t" + std::to_string(ports) + " \"" + IbNodeId(n.type, n.guid) + "\"\t\t# \"" +
           n.description + "\" enhanced port 0 lid " + std::to_string(n.lid) + " lmc 0\n";
    } else {
      o += "caguid=0x" + hex + "\n";
      o += "Ca\t" + std::to_string(ports) + " \"" + IbNodeId(n.type, n.guid) + "\"\t\t# \"" +
           n.description + "\"\n";
    }
    for (int p = 1; p <= ports; ++p) {
      const SimPeer& peer = n.ports[p];
      if (peer.node < 0) continue;
      const SimNode& m = nodes_[peer.node];
      const std::string remote =
          "\"" + IbNodeId(m.type, m.guid) + "\"[" + std::to_string(peer.port) + "]";
      if (n.type == IbNodeType::kSwitch) {
        o += "[" + std::to_string(p) + "]\t" + remote;
        if (m.type != IbNodeType::kSwitch) o += "(" + Hex(m.guid) + ") ";
        o += "\t\t# \"" + m.description + "\" lid " + std::to_string(m.lid) + " " + peer.token +
             "\n";
      } else {
        o += "[" + std::to_string(p) + "](" + hex + ") \t" + remote + "\t\t# lid " +
             std::to_string(n.lid) + " lmc 0 \"" + m.description + "\" lid " +
             std::to_string(m.lid) + " " + peer.token + "\n";
      }
    }
  };
  for (const SimNode& n : nodes_)
    if (n.type == IbNodeType::kSwitch) print_node(n);
  for (const SimNode& n : nodes_)
    if (n.type != IbNodeType::kSwitch) print_node(n);
}

}  // namespace

void AssignSwitchGuids(Topology* topo) {
  for (size_t s = 0; s < topo->sus.size(); ++s) {
    std::map<int, uint64_t> nth;  // rail -> leaves of it so far
    for (Leaf& leaf : topo->sus[s].leaves)
      if (const uint64_t k = nth[leaf.rail]++; leaf.sw.guid.empty())
        leaf.sw.guid = GuidString(kLeafGuidBase | k << 24 |
                                  static_cast<uint64_t>(s + 1) << 8 |
                                  static_cast<uint64_t>(leaf.rail));
  }
  for (size_t i = 0; i < topo->spines.size(); ++i)
    if (topo->spines[i].guid.empty())
      topo->spines[i].guid = GuidString(kSpineGuidBase | static_cast<uint64_t>(i + 1));
  for (size_t i = 0; i < topo->cores.size(); ++i)
    if (topo->cores[i].guid.empty())
      topo->cores[i].guid = GuidString(kCoreGuidBase | static_cast<uint64_t>(i + 1));
}

bool SimulateFabric(const Topology& topo, const SimOptions& opts, std::string* out,
                    std::string* err) {
  Builder builder(topo, opts);
  return builder.Build(out, err);
}

}  // namespace railguard::topo
