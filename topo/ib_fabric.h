// SPDX-License-Identifier: GPL-2.0-or-later
// The InfiniBand fabric a capture describes (ibnetdiscover, its -p ports report, iblinkinfo,
// ibdiagnet2.lst): nodes, their ports' addresses and the links between them, and the builder
// the capture parsers share so that each reports the same contradictions in the same words.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/diag.h"

namespace railguard::topo {

// What a node is; ibnetdiscover tags them "Switch"/"S-", "Ca"/"H-" and "Rt"/"R-".
enum class IbNodeType { kSwitch, kCa, kRouter };

// Where a port answers: its port GUID and LID, as the capture prints them (0 when it does not).
struct IbPortAddress {
  uint64_t guid = 0;
  int lid = 0;
};

// One InfiniBand node: a switch ASIC, an HCA (CA) or a router.
struct IbNode {
  IbNodeType type = IbNodeType::kCa;
  uint64_t guid = 0;        // node GUID (see ParseCapture for the formats that print none)
  std::string id;           // as ibnetdiscover quotes it, without quotes: "S-0008f10500200b50"
  std::string description;  // NodeDescription, e.g. "n001 mlx5_3" or "MF0;su1-rail0:MQM9700/U1"
  int ports = 0;            // port count from the node's own record; 0 if it has none
  int line = 0;             // line of the node's own record; 0 if only peers mention it
  std::vector<int> links;   // links[p]: index into IbFabric::links of port p's link, or -1;
                            // ports up to kDensePorts only (see IbFabric::high_ports)
  // addresses[p]: port p's address; a switch has one for all its ports, kept in addresses[0].
  // Ports up to kDensePorts only.
  std::vector<IbPortAddress> addresses;
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
  // REQUIRES: `node`'s port `port` is one of the link's ends. The token as that end's record
  // prints it, or the other end's when that record lacks the link (what a writer prints there).
  const std::string& TokenSeenFrom(int node, int port) const;
};

// The parsed capture.
struct IbFabric {
  std::vector<IbNode> nodes;  // in order of first mention
  std::vector<IbLink> links;  // in order of first mention
  Diags warnings;             // the diagnostic tools' own error lines found in the capture
  // What a terminal capture wrapped around the dump, blanked before parsing
  // (topo/terminal_capture.h): "a shell prompt and command (line 1)".
  std::vector<std::string> capture_notes;

  // Index of the node with `guid`, or -1.
  int FindNode(uint64_t guid) const;
  // Index of the link on `port` of node `node`, or -1 if that port has no link.
  int FindLink(int node, int port) const;
  // REQUIRES: `link` holds `node`'s port `port`. The port at the far end.
  IbPort Peer(const IbLink& link, int node, int port) const;
  // The address of port `port` of node `node` (a switch's one address for any port); zeros
  // when the capture did not print it.
  IbPortAddress Address(int node, int port) const;

  // How many nodes are of `type`.
  size_t CountNodes(IbNodeType type) const;

  // Lookup tables, kept up to date by IbFabricBuilder.
  std::unordered_map<uint64_t, int> by_guid;     // GUID -> index into nodes
  std::unordered_map<uint64_t, int> high_ports;  // (node << 16 | port) -> link, for ports from
                                                 // kDensePorts on
};

// True when `a` is a slower link than `b` (by data rate; ties by fewer lanes). Tokens that do
// not parse (e.g. "4x???") count as slower than any that do.
bool LinkSlower(const std::string& a, const std::string& b);

// "S-0008f10500200b50" for a switch with that GUID ("H-" for CAs, "R-" for routers).
std::string IbNodeId(IbNodeType type, uint64_t guid);

// "0x" + 16 lowercase hex digits, the form topology YAML uses for GUIDs.
std::string GuidString(uint64_t guid);

// Fills an IbFabric from what a capture says, one statement at a time. Errors come back as
// "<what>; expected <form>" without file and line, which the parser adds: every capture
// parser words a contradiction the same way.
class IbFabricBuilder {
 public:
  // Starts `*out` afresh; `*out` must outlive the builder.
  explicit IbFabricBuilder(IbFabric* out);

  // The node with `guid`, created with `type` and `description` on its first mention.
  // -1 with `*err` set when the GUID was first seen as another type.
  int Node(IbNodeType type, uint64_t guid, std::string_view description, std::string* err);

  // Records that the capture's line `line` holds node `node`'s own record or port line: sets
  // its line (on the first call), its description, and raises its port count to `ports`.
  void Own(int node, int line, std::string_view description, int ports);

  // Records `line`'s view of a cable from port `port` of `node` to port `peer_port` of `peer`,
  // with the link token that end prints. The first view makes the link; the view from the
  // far end fills token_b. False with `*err` set when the port is cabled to itself, is listed
  // twice, or the two ends name different peers.
  bool AddView(int node, int port, int peer, int peer_port, std::string_view token, int line,
               std::string* err);

  // Sets the address of `node`'s port `port` (port 0 for a switch's), keeping GUID and LID
  // already known.
  void SetAddress(int node, int port, IbPortAddress address);

  // Ports beyond their node's port count, one error per link end (at the link's line) as
  // (line, text) pairs.
  std::vector<std::pair<int, std::string>> CheckPortRanges() const;

  // "\"S-0008f10500200b50\"": how messages name node `node`.
  std::string Quoted(int node) const;

 private:
  IbFabric* f_;
};

}  // namespace railguard::topo
