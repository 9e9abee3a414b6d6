// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric model of the capture parsers and the bookkeeping they share (topo/ib_fabric.h).
#include "topo/ib_fabric.h"

#include <algorithm>
#include <optional>

#include "topo/model.h"

namespace railguard::topo {
namespace {

uint64_t HighPortKey(int node, int port) {
  return static_cast<uint64_t>(node) << 16 | static_cast<uint64_t>(port);
}

// The link on `port` of node `node`, or -1.
int LinkOf(const IbFabric& f, int node, int port) {
  if (port < kDensePorts) {
    const std::vector<int>& links = f.nodes[node].links;
    return port < static_cast<int>(links.size()) ? links[port] : -1;
  }
  auto it = f.high_ports.find(HighPortKey(node, port));
  return it == f.high_ports.end() ? -1 : it->second;
}

void SetLink(IbFabric* f, int node, int port, int link) {
  if (port < kDensePorts) {
    std::vector<int>& links = f->nodes[node].links;
    if (port >= static_cast<int>(links.size())) links.resize(port + 1, -1);
    links[port] = link;
  } else {
    f->high_ports[HighPortKey(node, port)] = link;
  }
}

}  // namespace

const std::string& IbLink::Token() const {
  if (token_a.empty()) return token_b;
  if (token_b.empty() || token_a == token_b) return token_a;
  return LinkSlower(token_b, token_a) ? token_b : token_a;
}

const std::string& IbLink::TokenSeenFrom(int node, int port) const {
  if (a.node == node && a.port == port) return token_a.empty() ? token_b : token_a;
  return token_b.empty() ? token_a : token_b;
}

int IbFabric::FindNode(uint64_t guid) const {
  auto it = by_guid.find(guid);
  return it == by_guid.end() ? -1 : it->second;
}

int IbFabric::FindLink(int node, int port) const {
  if (node < 0 || node >= static_cast<int>(nodes.size()) || port < 0) return -1;
  return LinkOf(*this, node, port);
}

IbPort IbFabric::Peer(const IbLink& link, int node, int port) const {
  return link.a.node == node && link.a.port == port ? link.b : link.a;
}

IbPortAddress IbFabric::Address(int node, int port) const {
  if (node < 0 || node >= static_cast<int>(nodes.size())) return {};
  const IbNode& n = nodes[node];
  const int p = n.type == IbNodeType::kSwitch ? 0 : port;
  return p >= 0 && p < static_cast<int>(n.addresses.size()) ? n.addresses[p] : IbPortAddress{};
}

size_t IbFabric::CountNodes(IbNodeType type) const {
  size_t n = 0;
  for (const IbNode& node : nodes) n += node.type == type;
  return n;
}

bool LinkSlower(const std::string& a, const std::string& b) {
  std::optional<LinkSpec> sa = LinkSpecFromIbToken(a);
  std::optional<LinkSpec> sb = LinkSpecFromIbToken(b);
  if (!sa || !sb) return !sa && sb;
  if (sa->rate_gbps != sb->rate_gbps) return sa->rate_gbps < sb->rate_gbps;
  return sa->width < sb->width;
}

std::string IbNodeId(IbNodeType type, uint64_t guid) {
  static const char kHex[] = "0123456789abcdef";
  std::string id = type == IbNodeType::kSwitch ? "S-" : type == IbNodeType::kCa ? "H-" : "R-";
  for (int shift = 60; shift >= 0; shift -= 4) id += kHex[(guid >> shift) & 0xf];
  return id;
}

std::string GuidString(uint64_t guid) {
  return "0x" + IbNodeId(IbNodeType::kSwitch, guid).substr(2);
}

IbFabricBuilder::IbFabricBuilder(IbFabric* out) : f_(out) { *f_ = IbFabric(); }

std::string IbFabricBuilder::Quoted(int node) const { return "\"" + f_->nodes[node].id + "\""; }

int IbFabricBuilder::Node(IbNodeType type, uint64_t guid, std::string_view description,
                          std::string* err) {
  auto [it, fresh] = f_->by_guid.emplace(guid, static_cast<int>(f_->nodes.size()));
  if (fresh) {
    IbNode n;
    n.type = type;
    n.guid = guid;
    n.id = IbNodeId(type, guid);
    n.description = std::string(description);
    f_->nodes.push_back(std::move(n));
    return it->second;
  }
  const IbNode& n = f_->nodes[it->second];
  if (n.type != type) {
    *err = "\"" + IbNodeId(type, guid) + "\" has the GUID of " + Quoted(it->second) +
           (n.line ? " (line " + std::to_string(n.line) + ")" : "") +
           "; expected one node type per GUID";
    return -1;
  }
  return it->second;
}

void IbFabricBuilder::Own(int node, int line, std::string_view description, int ports) {
  IbNode& n = f_->nodes[node];
  if (n.line == 0) n.line = line;
  n.description = std::string(description);
  n.ports = std::max(n.ports, ports);
}

bool IbFabricBuilder::AddView(int node, int port, int peer, int peer_port, std::string_view token,
                              int line, std::string* err) {
  const std::string where = "port " + std::to_string(port) + " of " + Quoted(node);
  if (peer == node && port == peer_port) {
    *err = where + " is linked to itself; expected a peer port other than the port itself";
    return false;
  }
  const int mine = LinkOf(*f_, node, port);
  if (mine >= 0) {
    IbLink& link = f_->links[mine];
    const bool first_view = link.a.node == node && link.a.port == port;
    const IbPort far = first_view ? link.b : link.a;
    if (first_view || !link.token_b.empty()) {
      *err = where + " is listed twice in its record (first at line " + std::to_string(link.line) +
             "); expected each port once";
      return false;
    }
    if (far.node != peer || far.port != peer_port) {
      *err = where + " is linked to " + Quoted(peer) + "[" + std::to_string(peer_port) +
             "] here but to " + Quoted(far.node) + "[" + std::to_string(far.port) + "] at line " +
             std::to_string(link.line) + "; expected both ends of a link to name each other";
      return false;
    }
    link.token_b = std::string(token);
    return true;
  }
  const int theirs = LinkOf(*f_, peer, peer_port);
  if (theirs >= 0) {
    const IbLink& link = f_->links[theirs];
    const IbPort far = f_->Peer(link, peer, peer_port);
    *err = where + " is linked to " + Quoted(peer) + "[" + std::to_string(peer_port) +
           "], which line " + std::to_string(link.line) + " links to " + Quoted(far.node) + "[" +
           std::to_string(far.port) + "]; expected both ends of a link to name each other";
    return false;
  }
  IbLink link;
  link.a = IbPort{node, port};
  link.b = IbPort{peer, peer_port};
  link.token_a = std::string(token);
  link.line = line;
  const int index = static_cast<int>(f_->links.size());
  f_->links.push_back(std::move(link));
  SetLink(f_, node, port, index);
  SetLink(f_, peer, peer_port, index);
  return true;
}

void IbFabricBuilder::SetAddress(int node, int port, IbPortAddress address) {
  IbNode& n = f_->nodes[node];
  const int p = n.type == IbNodeType::kSwitch ? 0 : port;
  if (p < 0 || p >= kDensePorts) return;
  if (p >= static_cast<int>(n.addresses.size())) n.addresses.resize(p + 1);
  IbPortAddress& a = n.addresses[p];
  if (a.guid == 0) a.guid = address.guid;
  if (a.lid == 0) a.lid = address.lid;
}

std::vector<std::pair<int, std::string>> IbFabricBuilder::CheckPortRanges() const {
  std::vector<std::pair<int, std::string>> out;
  for (const IbLink& link : f_->links) {
    for (const IbPort& end : {link.a, link.b}) {
      const IbNode& n = f_->nodes[end.node];
      if (n.line != 0 && end.port > n.ports) {
        out.emplace_back(link.line, "port " + std::to_string(end.port) + " of " + Quoted(end.node) +
                                        " exceeds its " + std::to_string(n.ports) +
                                        " ports (line " + std::to_string(n.line) +
                                        "); expected a port from 1 to " + std::to_string(n.ports));
      }
    }
  }
  return out;
}

}  // namespace railguard::topo
