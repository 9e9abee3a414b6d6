// SPDX-License-Identifier: GPL-2.0-or-later
// The rail-optimized fabric model: scalable units (SUs) of nodes, one leaf switch per
// (SU, rail), spines above. Every railguard component reads the fabric through this.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
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
  int rail = 0;         // which rail this leaf serves
  Switch sw;
};

struct ScalableUnit {
  std::string name;
  std::string nodes_expr;          // the hostlist as written
  std::vector<std::string> nodes;  // expanded, in hostlist order
  std::string node_type;           // name of a NodeType
  std::vector<Leaf> leaves;        // after validation: exactly one per rail, leaves[k].rail == k
};

// Where a node sits.
struct NodeRef {
  int su = -1;        // index into Topology::sus
  int position = -1;  // index into that SU's nodes
};

struct Topology {
  std::string cluster;
  std::vector<Rail> rails;              // rails[k].index == k after validation
  std::vector<NodeType> node_types;
  std::vector<ScalableUnit> sus;
  std::vector<Switch> spines;

  // Derived by Index(); valid until the vectors above change.
  std::unordered_map<std::string, NodeRef> node_index;
  std::unordered_map<std::string, int> type_index;  // node type name -> index

  // Rebuilds node_index and type_index. First occurrence wins on duplicates (validation
  // reports those separately).
  void Index();

  // REQUIRES: Index() was called. nullptr if unknown.
  const NodeRef* FindNode(const std::string& node) const;
  const NodeType* FindType(const std::string& name) const;
  // The node type of `node`, or nullptr if the node or its type is unknown.
  const NodeType* TypeOfNode(const std::string& node) const;

  size_t NodeCount() const;
};

// "<su>-rail<k>" when the leaf has no name of its own.
std::string LeafName(const ScalableUnit& su, const Leaf& leaf);

}  // namespace railguard::topo
