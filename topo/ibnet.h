// SPDX-License-Identifier: GPL-2.0-or-later
// Parser for the text that `ibnetdiscover` (infiniband-diags) prints: a graph of switches,
// channel adapters and routers, and the links between their ports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/diag.h"
#include "topo/model.h"

namespace railguard::topo {

// What a node is; ibnetdiscover tags them "Switch"/"S-", "Ca"/"H-" and "Rt"/"R-".
enum class IbNodeType { kSwitch, kCa, kRouter };

// One InfiniBand node: a switch ASIC, an HCA (CA) or a router.
struct IbNode {
  IbNodeType type = IbNodeType::kCa;
  uint64_t guid = 0;        // node GUID
  std::string id;           // as ibnetdiscover quotes it, without quotes: "S-0008f10500200b50"
  std::string description;  // NodeDescription, e.g. "n001 mlx5_3" or "MF0;su1-rail0:MQM9700/U1"
  int ports = 0;            // port count from the node's own record; 0 if it has none
  int line = 0;             // line of the node's own record; 0 if only peers mention it
  std::vector<int> links;   // links[p]: index into IbFabric::links of port p's link, or -1;
                            // ports up to kDensePorts only (see IbFabric::high_ports)
};

// Ports below this are looked up in IbNode::links; InfiniBand switches have at most 254, so only
// simulated giant spines use IbFabric::high_ports.
constexpr int kDensePorts = 256;

// One end of a link: a port of a node.
struct IbPort {
  int node = -1;  // index into IbFabric::nodes
  int port = 0;   // 1-based port number
};

// A cable between two ports. Each end's record lists it once; both views become one link.
struct IbLink {
  IbPort a;  // the end whose record mentioned the link first
  IbPort b;
  std::string token_a;  // active width and speed as a's record prints it ("4xNDR"); "" if unseen
  std::string token_b;  // the same as b's record prints it; "" if b's record lacks the link
  int line = 0;         // first line that mentions the link

  // The link token: token_a, or token_b when a's view is missing. When both views exist and
  // differ, the slower one (see LinkSlower).
  const std::string& Token() const;
};

// The parsed dump.
struct IbFabric {
  std::vector<IbNode> nodes;  // in order of first mention
  std::vector<IbLink> links;  // in order of first mention
  Diags warnings;             // ibnetdiscover's own error lines found in the dump

  // Index of the node with `guid`, or -1.
  int FindNode(uint64_t guid) const;
  // Index of the link on `port` of node `node`, or -1 if that port has no link.
  int FindLink(int node, int port) const;
  // REQUIRES: `link` holds `node`'s port `port`. The port at the far end.
  IbPort Peer(const IbLink& link, int node, int port) const;

  // How many nodes are of `type`.
  size_t CountNodes(IbNodeType type) const;

  // Lookup tables, kept up to date by the parser.
  std::unordered_map<uint64_t, int> by_guid;     // GUID -> index into nodes
  std::unordered_map<uint64_t, int> high_ports;  // (node << 16 | port) -> link, for ports from
                                                 // kDensePorts on
};

// True when `a` is a slower link than `b` (by data rate; ties by fewer lanes). Tokens that do
// not parse (e.g. "4x???") count as slower than any that do.
bool LinkSlower(const std::string& a, const std::string& b);

// Parses ibnetdiscover output held in `text`; `filename` names it in diagnostics. Reads the
// default format and the grouped (-g) form with chassis headers and "[ext N]" ports, with or
// without -f's " s=.. w=.. v=.." tails. Error lines that ibnetdiscover itself interleaves
// ("src/query_smp.c:195; umad ... Connection timed out", "ibwarn: ...") become warnings in
// `out->warnings`. Anything else malformed is appended to `*errors` as
// "file:line: <what>; expected <form>" (at most 50, then one "too many errors" line).
// Returns true when there was no error; `*out` is then complete.
bool ParseIbnetdiscover(std::string_view text, const std::string& filename, IbFabric* out,
                        Diags* errors);

// As ParseIbnetdiscover, reading `path`. A file that cannot be read is one error.
bool ParseIbnetdiscoverFile(const std::string& path, IbFabric* out, Diags* errors);

// "S-0008f10500200b50" for a switch with that GUID ("H-" for CAs, "R-" for routers).
std::string IbNodeId(IbNodeType type, uint64_t guid);

// "0x" + 16 lowercase hex digits, the form topology YAML uses for GUIDs.
std::string GuidString(uint64_t guid);

}  // namespace railguard::topo
