// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/topology_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/names.h"
#include "base/numbers.h"
#include "base/text_file.h"
#include "base/words.h"
#include "base/yaml_reader.h"
#include "topo/hostlist.h"

namespace railguard::topo {
namespace {

// Largest node count one SU may list; bounds the work a typo like n[1-99999999] can cause.
constexpr size_t kMaxNodesPerSu = 65536;

const char* const kTopKeys[] = {"cluster",        "rails",  "node_types",
                                "scalable_units", "spines", "cores"};
const char* const kRailKeys[] = {"index", "name", "link"};
const char* const kLinkKeys[] = {"rate_gbps", "width", "speed"};
const char* const kTypeKeys[] = {"name", "gpus", "nics", "nic_pci", "gpu_pci"};
const char* const kSuKeys[] = {"name", "nodes", "node_type", "leaves"};
const char* const kLeafKeys[] = {"rail", "name", "guid", "ports", "nodes", "first_port"};
const char* const kSpineKeys[] = {"name", "guid", "ports"};

bool IsPciAddress(const std::string& s) {
  // DDDD:BB:DD.F, hex digits, as in /sys/bus/pci/devices.
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11})
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool IsGuid(const std::string& s) {
  if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  for (size_t i = 2; i < s.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// "0x" + 16 lowercase hex digits.
std::string CanonicalGuid(const std::string& s) {
  const std::string hex = AsciiLower(s.substr(2));
  return "0x" + std::string(16 - hex.size(), '0') + hex;
}

class Loader : public YamlReader {
 public:
  using YamlReader::YamlReader;

  bool Load(const std::string& text, Topology* out);

 private:
  static int LineOf(const YAML::Node& n) { return n.Mark().line + 1; }

  bool ReadStringList(const YAML::Node& v, const std::string& what,
                      std::vector<std::string>* out, std::vector<YAML::Node>* nodes) {
    if (!v.IsSequence()) {
      Error(v, "expected a list for " + what + ", such as [mlx5_0, mlx5_3]");
      return false;
    }
    bool ok = true;
    for (const auto& item : v) {
      std::string s;
      if (!ReadString(item, "each entry of " + what, &s)) {
        ok = false;
        continue;
      }
      out->push_back(s);
      nodes->push_back(item);
    }
    return ok;
  }

  // The "name" of the `kind` item `map` ("node type", "scalable unit") into `*out`; a name
  // already in `*seen` is an error naming the line of its first definition.
  void ReadItemName(const YAML::Node& map, const std::string& kind,
                    std::map<std::string, YAML::Node>* seen, std::string* out) {
    YAML::Node name = Field(map, "name", kind, true);
    if (!name.IsDefined() || !ReadName(name, kind + " name", out)) return;
    auto [it, fresh] = seen->emplace(*out, name);
    if (!fresh)
      Error(name, kind + " '" + *out + "' is defined twice (first at line " +
                      std::to_string(LineOf(it->second)) + ")");
  }

  void LoadRails(const YAML::Node& seq, Topology* t);
  void LoadLink(const YAML::Node& map, const std::string& what, LinkSpec* link);
  void LoadNodeTypes(const YAML::Node& seq, Topology* t);
  void LoadSus(const YAML::Node& seq, Topology* t);
  void LoadLeaves(const YAML::Node& seq, const Topology& t, ScalableUnit* su);
  // A leaf's optional `nodes:` hostlist; nodes outside `su` or listed twice are errors.
  void LoadLeafNodes(const YAML::Node& l, const ScalableUnit& su, Leaf* leaf);
  // REQUIRES: `of_rail` (indexes into su.leaves) are the leaves of `rail`, two or more or
  // one with `nodes:`. Reports overlaps, gaps, and leaves that would serve every node.
  // Leaves to leave out of the SU go to `*drop`.
  void CheckRailPartition(const YAML::Node& seq, const ScalableUnit& su, int rail,
                          const std::vector<size_t>& of_rail, std::vector<size_t>* drop);
  // REQUIRES: t.Index() was called. One-hop domains of fewer than 2 nodes in split SUs.
  void CheckDomains(const Topology& t);
  bool LoadSwitch(const YAML::Node& map, const std::string& what, Switch* sw);
  // `key` (spines, cores): a list of {name, guid, ports}, each a `what` ("spine").
  void LoadSwitches(const YAML::Node& seq, const std::string& key, const std::string& what,
                    std::vector<Switch>* out, std::vector<YAML::Node>* nodes);
  void CheckSwitchNames(const Topology& t);

  int rail_count_ = 0;
  // Where things were defined, for cross-reference messages and positions.
  std::map<std::string, YAML::Node> type_nodes_;
  std::vector<YAML::Node> su_nodes_;
  std::vector<std::vector<YAML::Node>> leaf_nodes_;  // per SU, parallel to su.leaves
  std::vector<YAML::Node> spine_nodes_;
  std::vector<YAML::Node> core_nodes_;
};

void Loader::LoadLink(const YAML::Node& map, const std::string& what, LinkSpec* link) {
  if (!CheckMap(map, kLinkKeys, what)) return;
  YAML::Node rate = Field(map, "rate_gbps", what, true);
  YAML::Node width = Field(map, "width", what, true);
  YAML::Node speed = Field(map, "speed", what, true);
  bool ok = true;
  if (rate.IsDefined()) {
    const std::string s = rate.IsScalar() ? rate.Scalar() : "";
    double r = 0;
    if (!ParseStrtod(s, &r) || !(r > 0 && r <= 100000)) {
      Error(rate, "invalid rate_gbps '" + s + "'; expected a rate in Gb/s such as 400");
      ok = false;
    } else {
      link->rate_gbps = r;
    }
  }
  if (width.IsDefined()) {
    std::string s = width.IsScalar() ? width.Scalar() : "";
    if (!s.empty() && (s.back() == 'X' || s.back() == 'x')) s.pop_back();
    if (s == "1" || s == "2" || s == "4" || s == "8" || s == "12") {
      link->width = std::stoi(s);
    } else {
      Error(width, "invalid width '" + (width.IsScalar() ? width.Scalar() : "") +
                       "'; expected one of 1X, 2X, 4X, 8X, 12X");
      ok = false;
    }
  }
  if (speed.IsDefined()) {
    const std::string s = speed.IsScalar() ? speed.Scalar() : "";
    if (LaneRateGbps(s) == 0) {
      Error(speed, "invalid speed '" + s +
                       "'; expected one of SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR");
      ok = false;
    } else {
      link->speed = s;
    }
  }
  if (ok && rate.IsDefined() && width.IsDefined() && speed.IsDefined()) {
    const double nominal = LaneRateGbps(link->speed) * link->width;
    if (std::abs(nominal - link->rate_gbps) > 0.01) {
      Error(rate, "rate_gbps " + FormatRate(link->rate_gbps) + " does not match " +
                      std::to_string(link->width) + "X " + link->speed + "; expected " +
                      FormatRate(nominal));
    }
  }
}

void Loader::LoadRails(const YAML::Node& seq, Topology* t) {
  if (!seq.IsSequence() || seq.size() == 0) {
    Error(seq, "'rails' must be a non-empty list of {index, name, link}");
    return;
  }
  std::map<long, int> first_line;
  for (const auto& r : seq) {
    if (!CheckMap(r, kRailKeys, "rail")) continue;
    Rail rail;
    long index = -1;
    YAML::Node idx = Field(r, "index", "rail", true);
    if (idx.IsDefined() && ReadInt(idx, "rail index", 0, 63, &index)) {
      auto [it, fresh] = first_line.emplace(index, LineOf(idx));
      if (!fresh) {
        Error(idx, "rail index " + std::to_string(index) + " is defined twice (first at line " +
                       std::to_string(it->second) + ")");
      }
    }
    rail.index = static_cast<int>(index);
    YAML::Node name = Field(r, "name", "rail", false);
    if (name.IsDefined()) ReadName(name, "rail name", &rail.name);
    YAML::Node link = Field(r, "link", "rail", true);
    if (link.IsDefined()) LoadLink(link, "rail link", &rail.link);
    t->rails.push_back(rail);
  }
  // Rails must be numbered 0..N-1 so that "NIC k" and "rail k" mean the same thing.
  const long n = static_cast<long>(seq.size());
  for (long k = 0; k < n; ++k) {
    if (!first_line.count(k)) {
      Error(seq, "rail " + std::to_string(k) + " is missing; expected rails numbered 0 to " +
                     std::to_string(n - 1));
    }
  }
  for (const auto& [index, line] : first_line) {
    if (index >= n) {
      ErrorAtLine(line, "rail index " + std::to_string(index) + " out of range; expected 0 to " +
                            std::to_string(n - 1) + " (" + std::to_string(n) + " rails listed)");
    }
  }
  rail_count_ = static_cast<int>(n);
  std::sort(t->rails.begin(), t->rails.end(),
            [](const Rail& a, const Rail& b) { return a.index < b.index; });
  for (Rail& rail : t->rails)
    if (rail.name.empty()) rail.name = "rail" + std::to_string(rail.index);
}

void Loader::LoadNodeTypes(const YAML::Node& seq, Topology* t) {
  if (!seq.IsSequence() || seq.size() == 0) {
    Error(seq, "'node_types' must be a non-empty list of {name, gpus, nics}");
    return;
  }
  for (const auto& n : seq) {
    if (!CheckMap(n, kTypeKeys, "node type")) continue;
    NodeType nt;
    ReadItemName(n, "node type", &type_nodes_, &nt.name);
    const std::string what = "node type '" + nt.name + "'";
    long gpus = 0;
    YAML::Node g = Field(n, "gpus", what, true);
    if (g.IsDefined() && ReadInt(g, "gpus", 0, 64, &gpus)) nt.gpus = static_cast<int>(gpus);

    YAML::Node nics = Field(n, "nics", what, true);
    std::vector<YAML::Node> nic_nodes;
    if (nics.IsDefined() && ReadStringList(nics, "nics", &nt.nics, &nic_nodes)) {
      std::map<std::string, size_t> seen;
      for (size_t k = 0; k < nt.nics.size(); ++k) {
        auto [it, fresh] = seen.emplace(nt.nics[k], k);
        if (!fresh) {
          Error(nic_nodes[k], "NIC '" + nt.nics[k] + "' is named twice in " + what +
                                  " (rails " + std::to_string(it->second) + " and " +
                                  std::to_string(k) + "); expected one distinct NIC per rail");
        } else if (!IsSafeName(nt.nics[k])) {
          Error(nic_nodes[k], "invalid NIC name '" + nt.nics[k] +
                                  "'; expected a device name such as mlx5_0");
        }
      }
      if (rail_count_ > 0 && static_cast<int>(nt.nics.size()) != rail_count_) {
        Error(nics, what + " lists " + std::to_string(nt.nics.size()) +
                        " NICs; expected one per rail (" + std::to_string(rail_count_) + ")");
      }
    }
    for (const char* key : {"nic_pci", "gpu_pci"}) {
      YAML::Node pci = Field(n, key, what, false);
      if (!pci.IsDefined()) continue;
      std::vector<std::string>* list = key[0] == 'n' ? &nt.nic_pci : &nt.gpu_pci;
      std::vector<YAML::Node> pci_nodes;
      if (!ReadStringList(pci, key, list, &pci_nodes)) continue;
      for (size_t k = 0; k < list->size(); ++k) {
        if (!IsPciAddress((*list)[k])) {
          Error(pci_nodes[k], "invalid PCI address '" + (*list)[k] +
                                  "'; expected domain:bus:device.function such as 0000:1a:00.0");
        }
      }
      const size_t want = key[0] == 'n' ? nt.nics.size() : static_cast<size_t>(nt.gpus);
      if (list->size() != want) {
        Error(pci, what + " lists " + std::to_string(list->size()) + " " + key +
                       " addresses; expected " + std::to_string(want) +
                       (key[0] == 'n' ? " (one per NIC)" : " (one per GPU)"));
      }
    }
    t->node_types.push_back(std::move(nt));
  }
}

bool Loader::LoadSwitch(const YAML::Node& map, const std::string& what, Switch* sw) {
  YAML::Node name = Field(map, "name", what, false);
  if (name.IsDefined()) ReadName(name, what + " name", &sw->name);
  YAML::Node guid = Field(map, "guid", what, false);
  if (guid.IsDefined()) {
    std::string g;
    if (ReadString(guid, what + " guid", &g)) {
      if (IsGuid(g)) {
        sw->guid = CanonicalGuid(g);
      } else {
        Error(guid, "invalid guid '" + g + "'; expected 0x and up to 16 hex digits");
      }
    }
  }
  YAML::Node ports = Field(map, "ports", what, false);
  long p = 0;
  if (ports.IsDefined() && ReadInt(ports, what + " ports", 1, 4096, &p))
    sw->ports = static_cast<int>(p);
  return true;
}

void Loader::LoadLeafNodes(const YAML::Node& l, const ScalableUnit& su, Leaf* leaf) {
  YAML::Node nodes = Field(l, "nodes", "leaf", false);
  if (!nodes.IsDefined()) return;
  const std::string what = "leaf '" + LeafName(su, *leaf) + "'";
  if (!ReadString(nodes, "nodes of " + what, &leaf->nodes_expr)) return;
  std::string err;
  if (!ExpandHostlist(leaf->nodes_expr, &leaf->nodes, &err, kMaxNodesPerSu) ||
      leaf->nodes.empty()) {
    Error(nodes, "invalid hostlist '" + leaf->nodes_expr + "': " +
                     (err.empty() ? std::string("no nodes") : err));
    leaf->nodes.clear();
    leaf->nodes_expr.clear();
    return;
  }
  std::set<std::string> in_su(su.nodes.begin(), su.nodes.end());
  std::set<std::string> seen;
  std::vector<std::string> outside, twice, kept;
  for (const std::string& node : leaf->nodes) {
    if (!seen.insert(node).second) {
      twice.push_back(node);
    } else if (!in_su.count(node)) {
      outside.push_back(node);
    } else {
      kept.push_back(node);
    }
  }
  if (!twice.empty())
    Error(nodes, what + " lists " + CompressHostlist(twice) + " twice");
  if (!outside.empty()) {
    Error(nodes, what + " lists " + CompressHostlist(outside) + ", not in scalable unit '" +
                     su.name + "'; expected a subset of its nodes " + su.nodes_expr);
  }
  leaf->nodes = std::move(kept);
}

void Loader::CheckRailPartition(const YAML::Node& seq, const ScalableUnit& su, int rail,
                                const std::vector<size_t>& of_rail, std::vector<size_t>* drop) {
  const std::vector<YAML::Node>& where = leaf_nodes_.back();
  const std::string what = "scalable unit '" + su.name + "'";
  // With several leaves on a rail, each must say which nodes it serves.
  size_t without = 0;
  for (size_t i : of_rail) without += su.leaves[i].nodes_expr.empty() ? 1 : 0;
  if (without == of_rail.size()) {
    for (size_t j = 1; j < of_rail.size(); ++j) {
      Error(where[of_rail[j]]["rail"],
            what + " has two leaves for rail " + std::to_string(rail) + " (first at line " +
                std::to_string(LineOf(where[of_rail[0]])) + "); expected one leaf per rail");
      drop->push_back(of_rail[j]);  // as before leaves had nodes: only the first is kept
    }
    return;
  }
  std::map<std::string, size_t> owner;  // node -> the first leaf of this rail serving it
  for (size_t i : of_rail) {
    const Leaf& leaf = su.leaves[i];
    if (leaf.nodes_expr.empty()) {
      Error(where[i], "leaf '" + LeafName(su, leaf) + "' of " + what + " has no 'nodes' but rail " +
                          std::to_string(rail) + " has " + std::to_string(of_rail.size()) +
                          " leaves; expected a 'nodes' hostlist on each of them");
      continue;
    }
    std::map<size_t, std::vector<std::string>> overlap;  // earlier leaf -> shared nodes
    for (const std::string& node : leaf.nodes) {
      auto [it, fresh] = owner.emplace(node, i);
      if (!fresh) overlap[it->second].push_back(node);
    }
    for (const auto& [other, shared] : overlap) {
      Error(where[i]["nodes"],
            "leaf '" + LeafName(su, leaf) + "' and leaf '" + LeafName(su, su.leaves[other]) +
                "' (line " + std::to_string(LineOf(where[other])) + ") of rail " +
                std::to_string(rail) + " both serve " + CompressHostlist(shared) +
                "; expected each node of " + what + " on exactly one leaf per rail");
    }
  }
  if (without > 0) return;
  std::vector<std::string> gap;
  for (const std::string& node : su.nodes)
    if (!owner.count(node)) gap.push_back(node);
  if (!gap.empty()) {
    Error(seq, "no leaf of rail " + std::to_string(rail) + " in " + what + " serves " +
                   CompressHostlist(gap) + "; expected each node of the unit on exactly one " +
                   "leaf per rail");
  }
}

void Loader::LoadLeaves(const YAML::Node& seq, const Topology& t, ScalableUnit* su) {
  const std::string what = "scalable unit '" + su->name + "'";
  std::vector<YAML::Node>& where = leaf_nodes_.back();
  if (!seq.IsSequence()) {
    Error(seq, "'leaves' of " + what +
                   " must be a list of {rail, name, guid, ports, nodes, first_port}");
    return;
  }
  std::set<long> rails_seen;
  for (const auto& l : seq) {
    if (!CheckMap(l, kLeafKeys, "leaf")) continue;
    Leaf leaf;
    long rail = -1;
    YAML::Node r = Field(l, "rail", "leaf of " + what, true);
    if (r.IsDefined() && ReadInt(r, "leaf rail", 0, 63, &rail)) {
      if (rail >= rail_count_ && rail_count_ > 0) {
        Error(r, "leaf rail " + std::to_string(rail) + " out of range; expected 0 to " +
                     std::to_string(rail_count_ - 1) + " (" + std::to_string(rail_count_) +
                     " rails)");
        rail = -1;
      } else {
        rails_seen.insert(rail);
      }
    }
    leaf.rail = static_cast<int>(rail);
    LoadSwitch(l, "leaf", &leaf.sw);
    long first_port = 0;
    YAML::Node fp = Field(l, "first_port", "leaf of " + what, false);
    if (fp.IsDefined() && ReadInt(fp, "leaf first_port", 1, 254, &first_port))
      leaf.first_port = static_cast<int>(first_port);
    if (leaf.rail < 0) continue;
    LoadLeafNodes(l, *su, &leaf);
    su->leaves.push_back(leaf);
    where.push_back(l);
  }
  // Order leaves by rail (file order within a rail), keeping `where` parallel.
  std::vector<size_t> order(su->leaves.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return su->leaves[a].rail < su->leaves[b].rail; });
  std::vector<Leaf> leaves;
  std::vector<YAML::Node> nodes;
  for (size_t i : order) {
    leaves.push_back(su->leaves[i]);
    nodes.push_back(where[i]);
  }
  su->leaves = std::move(leaves);
  where = std::move(nodes);
  std::map<int, std::vector<size_t>> by_rail;
  for (size_t i = 0; i < su->leaves.size(); ++i) by_rail[su->leaves[i].rail].push_back(i);
  std::vector<size_t> drop;
  for (const auto& [rail, of_rail] : by_rail) {
    if (of_rail.size() > 1 || !su->leaves[of_rail[0]].nodes_expr.empty())
      CheckRailPartition(seq, *su, rail, of_rail, &drop);
  }
  std::sort(drop.rbegin(), drop.rend());
  for (size_t i : drop) {
    su->leaves.erase(su->leaves.begin() + static_cast<long>(i));
    where.erase(where.begin() + static_cast<long>(i));
  }
  for (int k = 0; k < rail_count_; ++k) {
    if (!rails_seen.count(k)) {
      Error(seq, what + " has no leaf for rail " + std::to_string(k) +
                     "; expected one leaf per rail (0 to " + std::to_string(rail_count_ - 1) +
                     ")");
    }
  }
  for (size_t i = 0; i < su->leaves.size(); ++i) {
    const Leaf& leaf = su->leaves[i];
    const size_t under = leaf.nodes_expr.empty() ? su->nodes.size() : leaf.nodes.size();
    if (leaf.first_port > 0 && leaf.sw.ports > 0 &&
        leaf.first_port + under - 1 > static_cast<size_t>(leaf.sw.ports)) {
      const std::string last = std::to_string(leaf.first_port + under - 1);
      Error(where[i], "leaf '" + LeafName(*su, leaf) + "' puts its " + std::to_string(under) +
                          " nodes on ports " + std::to_string(leaf.first_port) + " to " + last +
                          " but has " + std::to_string(leaf.sw.ports) +
                          " ports; expected first_port + nodes - 1 <= ports");
    }
    if (leaf.sw.ports > 0 && under > static_cast<size_t>(leaf.sw.ports)) {
      Error(where[i], "leaf '" + LeafName(*su, leaf) + "' has " + std::to_string(leaf.sw.ports) +
                          " ports but " + what + " puts " + std::to_string(under) +
                          " nodes under it; expected at most one node per port");
    }
  }
  (void)t;
}

void Loader::CheckDomains(const Topology& t) {
  // Leaves of different rails that split the SU at different nodes leave tiny domains: a
  // typo in a hostlist far more often than a fabric anyone built.
  std::set<std::string> switches;
  for (const ScalableUnit& su : t.sus)
    for (const Leaf& leaf : su.leaves) switches.insert(LeafName(su, leaf));
  for (const Switch& sw : t.spines) switches.insert(sw.name);
  for (const Switch& sw : t.cores) switches.insert(sw.name);
  for (const Domain& d : t.domains) {
    const size_t s = static_cast<size_t>(d.su);
    if (t.su_domains[s] < 2 || s >= su_nodes_.size()) continue;
    if (switches.count(d.name)) {
      Error(su_nodes_[s]["name"], "one-hop domain '" + d.name + "' of scalable unit '" +
                                      t.sus[s].name + "' has the name of a switch; expected " +
                                      "unique switch names (domains are named <su>-d1, -d2, ...)");
    }
    if (d.nodes.size() >= 2) continue;
    Error(su_nodes_[s]["leaves"],
          "one-hop domain '" + d.name + "' of scalable unit '" + t.sus[s].name + "' has only " +
              CompressHostlist(d.nodes) + ": its rails' leaves split the unit at different " +
              "nodes; expected every rail's leaves to split it the same way (domains of 2 " +
              "nodes or more)");
  }
}

void Loader::LoadSus(const YAML::Node& seq, Topology* t) {
  if (!seq.IsSequence() || seq.size() == 0) {
    Error(seq, "'scalable_units' must be a non-empty list of {name, nodes, node_type, leaves}");
    return;
  }
  std::map<std::string, YAML::Node> su_names;
  // node -> (SU index, line of that SU's nodes key); for the "node in two SUs" check.
  std::unordered_map<std::string, std::pair<size_t, int>> owner;
  for (const auto& s : seq) {
    if (!CheckMap(s, kSuKeys, "scalable unit")) continue;
    ScalableUnit su;
    ReadItemName(s, "scalable unit", &su_names, &su.name);
    const std::string what = "scalable unit '" + su.name + "'";
    YAML::Node nodes = Field(s, "nodes", what, true);
    if (nodes.IsDefined() && ReadString(nodes, "nodes of " + what, &su.nodes_expr)) {
      std::string err;
      if (!ExpandHostlist(su.nodes_expr, &su.nodes, &err, kMaxNodesPerSu)) {
        Error(nodes, "invalid hostlist '" + su.nodes_expr + "': " + err);
        su.nodes.clear();
      }
      std::unordered_map<std::string, bool> mine;
      std::vector<std::string> unique;
      for (const std::string& node : su.nodes) {
        if (!mine.emplace(node, true).second) {
          Error(nodes, "node '" + node + "' is listed twice in " + what);
          continue;
        }
        unique.push_back(node);
        auto [it, fresh] = owner.emplace(node, std::make_pair(t->sus.size(), LineOf(nodes)));
        if (!fresh) {
          Error(nodes, "node '" + node + "' is in scalable unit '" +
                           t->sus[it->second.first].name + "' (line " +
                           std::to_string(it->second.second) + ") and in '" + su.name +
                           "'; expected each node in exactly one scalable unit");
        }
      }
      su.nodes = std::move(unique);  // later checks count each node once
    }
    YAML::Node type = Field(s, "node_type", what, true);
    if (type.IsDefined() && ReadString(type, "node_type of " + what, &su.node_type) &&
        !type_nodes_.count(su.node_type)) {
      std::string known;
      for (const auto& kv : type_nodes_) known += (known.empty() ? "" : ", ") + kv.first;
      Error(type, "unknown node type '" + su.node_type + "'; expected one of: " + known);
    }
    su_nodes_.push_back(s);
    leaf_nodes_.emplace_back();
    YAML::Node leaves = Field(s, "leaves", what, true);
    if (leaves.IsDefined()) LoadLeaves(leaves, *t, &su);
    t->sus.push_back(std::move(su));
  }
}

void Loader::LoadSwitches(const YAML::Node& seq, const std::string& key, const std::string& what,
                          std::vector<Switch>* out, std::vector<YAML::Node>* nodes) {
  if (!seq.IsSequence()) {
    Error(seq, "'" + key + "' must be a list of {name, guid, ports}");
    return;
  }
  for (const auto& s : seq) {
    if (!CheckMap(s, kSpineKeys, what)) continue;
    Switch sw;
    if (!Field(s, "name", what, true).IsDefined()) continue;
    LoadSwitch(s, what, &sw);
    out->push_back(sw);
    nodes->push_back(s);
  }
}

void Loader::CheckSwitchNames(const Topology& t) {
  // Leaf, SU and spine names all become switch names in topology.conf and in reports.
  std::map<std::string, int> first;  // name -> line
  auto check = [&](const std::string& name, const YAML::Node& at, const std::string& what) {
    auto [it, fresh] = first.emplace(name, LineOf(at));
    if (!fresh) {
      Error(at, what + " name '" + name + "' is already used at line " +
                    std::to_string(it->second) + "; expected unique switch names");
    }
  };
  for (size_t s = 0; s < t.sus.size() && s < su_nodes_.size(); ++s)
    check(t.sus[s].name, su_nodes_[s], "scalable unit");
  for (size_t s = 0; s < t.sus.size() && s < leaf_nodes_.size(); ++s)
    for (size_t i = 0; i < t.sus[s].leaves.size(); ++i)
      check(LeafName(t.sus[s], t.sus[s].leaves[i]), leaf_nodes_[s][i], "leaf");
  for (size_t i = 0; i < t.spines.size(); ++i) check(t.spines[i].name, spine_nodes_[i], "spine");
  for (size_t i = 0; i < t.cores.size(); ++i) check(t.cores[i].name, core_nodes_[i], "core switch");
}

bool Loader::Load(const std::string& text, Topology* out) {
  YAML::Node root;
  if (!ParseRootMap(text, kTopKeys, &root)) return false;
  *out = Topology();
  try {
    CheckMap(root, kTopKeys, "the topology");
    YAML::Node cluster = Field(root, "cluster", "the topology", true);
    if (cluster.IsDefined()) ReadName(cluster, "cluster name", &out->cluster);
    YAML::Node rails = Field(root, "rails", "the topology", true);
    if (rails.IsDefined()) LoadRails(rails, out);
    YAML::Node types = Field(root, "node_types", "the topology", true);
    if (types.IsDefined()) LoadNodeTypes(types, out);
    YAML::Node sus = Field(root, "scalable_units", "the topology", true);
    if (sus.IsDefined()) LoadSus(sus, out);
    YAML::Node spines = Field(root, "spines", "the topology", false);
    if (spines.IsDefined()) LoadSwitches(spines, "spines", "spine", &out->spines, &spine_nodes_);
    YAML::Node cores = Field(root, "cores", "the topology", false);
    if (cores.IsDefined()) LoadSwitches(cores, "cores", "core switch", &out->cores, &core_nodes_);
    CheckSwitchNames(*out);
  } catch (const std::exception& e) {
    // yaml-cpp throws on some malformed trees (e.g. alias cycles); never let it escape.
    ErrorAtLine(0, std::string("cannot read YAML: ") + e.what());
  }
  out->Index();
  if (errors() == 0) CheckDomains(*out);
  return errors() == 0;
}

}  // namespace

bool LoadTopologyString(const std::string& text, const std::string& filename, Topology* out,
                        Diags* diags) {
  Loader loader(filename, diags);
  return loader.Load(text, out);
}

bool LoadTopologyFile(const std::string& path, Topology* out, Diags* diags) {
  std::string text;
  return ReadTextFile(path, kTopologyYamlInput, &text, diags) &&
         LoadTopologyString(text, path, out, diags);
}

}  // namespace railguard::topo
