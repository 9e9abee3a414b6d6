// SPDX-License-Identifier: GPL-2.0-or-later
// The rail-optimized fabric model: scalable units (SUs) of nodes, one or more leaf switches
// per (SU, rail), spines above, and the one-hop domains derived from them (the nodes that
// share every rail leaf). Every railguard component reads the fabric through this.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace railguard::topo {

// The link every port of a rail is expected to train to.
struct LinkSpec {
  double rate_gbps = 0;  // e.g. 400; 2.5 for 1X SDR
  int width = 0;       // lanes: 1, 2, 4, 8 or 12 ("4X" -> 4)
  std::string speed;   // InfiniBand speed name: SDR DDR QDR FDR10 FDR EDR HDR NDR XDR

  // The form sysfs uses in ports/N/rate: "400 Gb/sec (4X NDR)".
  std::string ToSysfsRate() const;
  bool operator==(const LinkSpec& o) const {
    return rate_gbps == o.rate_gbps && width == o.width && speed == o.speed;
  }
};

// Parses an ibnetdiscover link token such as "4xNDR" (lanes x speed) into a LinkSpec with the
// nominal data rate of that speed (4xNDR -> 400 Gb/s). Returns nullopt for unknown widths
// or speeds ("4x???", "99999999999xNDR"). Never throws.
std::optional<LinkSpec> LinkSpecFromIbToken(const std::string& token);

// "400", "2.5": a rate in Gb/s as sysfs prints it.
std::string FormatRate(double gbps);

// Nominal per-lane rate in Gb/s of an InfiniBand speed name, or 0 if unknown.
double LaneRateGbps(const std::string& speed);

struct Rail {
  int index = 0;        // 0-based rail number; rail k carries NIC k of every node
  std::string name;     // defaults to "rail<index>"
  LinkSpec link;        // what each port of this rail should train to
};

// A kind of node: how many GPUs and which NIC device serves each rail, in rail order.
struct NodeType {
  std::string name;
  int gpus = 0;
  std::vector<std::string> nics;     // nics[k] is the device on rail k, e.g. "mlx5_3"
  std::vector<std::string> nic_pci;  // optional, same order as nics: "0000:1a:00.0"
  std::vector<std::string> gpu_pci;  // optional, GPU k is closest to nics[k]
};

struct Switch {
  std::string name;     // as the admin calls it; may be empty for leaves (see LeafName)
  std::string guid;     // optional node GUID, "0x" + 16 hex digits
  int ports = 0;        // optional port count; 0 = unknown
};

struct Leaf {
  Leaf() = default;
  // A leaf serving every node of its SU, as {rail, sw} meant before leaves had nodes.
  Leaf(int rail_index, Switch sw_) : rail(rail_index), sw(std::move(sw_)) {}

  int rail = 0;         // which rail this leaf serves
  Switch sw;
  std::string nodes_expr;          // the leaf's `nodes:` hostlist as written; "" = absent
  std::vector<std::string> nodes;  // expanded; empty = every node of the SU
  // The cabling plan's ports, where given: the i-th of the leaf's nodes (of the SU's), in
  // Slurm's host order (n2 before n10, the order the YAML is written in), is on port
  // first_port + i, as in the DGX SuperPOD reference cabling (first_port 1). 0 = not given.
  int first_port = 0;
};

struct ScalableUnit {
  std::string name;
  std::string nodes_expr;          // the hostlist as written
  std::vector<std::string> nodes;  // expanded, in hostlist order
  std::string node_type;           // name of a NodeType
  // Ordered by rail (file order within a rail). After validation the leaves of each rail
  // partition the SU's nodes; with one leaf per rail, leaves[k].rail == k.
  std::vector<Leaf> leaves;
};

// A one-hop domain: the nodes of one SU that share every rail leaf, so that traffic between
// any two of them on any rail crosses one leaf switch and no spine. An SU with one leaf per
// rail is one domain named like the SU; an SU whose rails have several leaves has one domain
// per distinct combination of leaves, named "<su>-d1", "<su>-d2", ... in the order of each
// domain's first node in the SU's hostlist.
struct Domain {
  std::string name;
  int su = -1;                     // index into Topology::sus
  std::vector<std::string> nodes;  // in the SU's hostlist order
  std::vector<int> leaves;         // per rail k: index into sus[su].leaves; -1 = none
};

// Where a node sits.
struct NodeRef {
  int su = -1;        // index into Topology::sus
  int position = -1;  // index into that SU's nodes
  int domain = -1;    // index into Topology::domains
};

struct Topology {
  std::string cluster;
  std::vector<Rail> rails;              // rails[k].index == k after validation
  std::vector<NodeType> node_types;
  std::vector<ScalableUnit> sus;
  std::vector<Switch> spines;  // the switches the leaves are cabled to
  std::vector<Switch> cores;   // a third tier (core, super-spine) above the spines; empty in a
                               // two-tier fabric

  // Derived by Index(); valid until the vectors above change.
  std::vector<Domain> domains;  // SU by SU, each SU's in name order (d1, d2, ...)
  std::vector<int> su_domains;  // per SU: how many domains it has
  // Where each node sits, in SU order, found by name through an open-addressing table of
  // indices into node_refs (-1: empty). Names are compared with the SUs' own: about 20 bytes
  // a node, where a map from name copies was about 90 (0.36 MB of slurmctld at 4,096 nodes).
  std::vector<NodeRef> node_refs;
  std::vector<int32_t> node_slots;
  std::unordered_map<std::string, int> type_index;  // node type name -> index

  // Rebuilds domains, node_refs, node_slots and type_index. First occurrence wins on duplicates
  // (validation reports those separately). A node that a rail's leaves list twice goes to
  // the first; one they leave out has leaf -1 on that rail (validation reports both).
  void Index();

  // REQUIRES: Index() was called. nullptr if unknown.
  const NodeRef* FindNode(const std::string& node) const;
  const NodeType* FindType(const std::string& name) const;
  // The node type of `node`, or nullptr if the node or its type is unknown.
  const NodeType* TypeOfNode(const std::string& node) const;

  size_t NodeCount() const;
};

// "<su>-rail<k>" when the leaf has no name of its own. REQUIRES: the SU has one leaf for
// the rail, or the leaf has a name (validation makes sure of that).
std::string LeafName(const ScalableUnit& su, const Leaf& leaf);

// Whether some SU has more than one one-hop domain. REQUIRES: Index() was called.
bool HasSplitSus(const Topology& topo);

// The topology seen domain by domain, for code that works in SU terms (the fleet report's
// SU x rail grid, its root cause, its capacity): one ScalableUnit per one-hop domain, named
// like the domain, with the domain's nodes and, per rail, the one leaf that serves it (named
// and numbered as in `topo`, `nodes` cleared); rails, node types and spines unchanged; indexed.
// Without split SUs the result equals `topo`. REQUIRES: Index() was called.
Topology DomainView(const Topology& topo);

}  // namespace railguard::topo
