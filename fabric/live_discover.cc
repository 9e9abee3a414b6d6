// SPDX-License-Identifier: GPL-2.0-or-later
// Discovered nodes -> topo::IbFabric, in ibnetdiscover's order.
#include "fabric/live_discover.h"

#include <cctype>
#include <unordered_map>

namespace railguard::fabric {

std::string LinkToken(const LinkState& s) {
  return (s.width_active ? std::to_string(s.width_active) : std::string("??")) + "x" +
         (s.speed_active.empty() ? std::string("???") : s.speed_active);
}

namespace {

topo::IbNodeType TypeOf(const SweptNode& n) {
  return n.is_switch ? topo::IbNodeType::kSwitch
         : n.is_router ? topo::IbNodeType::kRouter
                       : topo::IbNodeType::kCa;
}

// ibnetdiscover's clean_nodedesc: what is not printable becomes a space.
std::string Cleaned(const std::string& d) {
  std::string out = d;
  for (char& c : out)
    if (!std::isprint(static_cast<unsigned char>(c))) c = ' ';
  return out;
}

std::string Name(const SweptNode& n) { return topo::IbNodeId(TypeOf(n), n.guid); }

class Builder {
 public:
  Builder(const std::vector<SweptNode>& nodes, topo::IbFabric* out) : nodes_(nodes), out_(out) {
    for (size_t i = 0; i < nodes.size(); ++i) index_.emplace(nodes[i].guid, i);
  }

  // The IbFabric node of nodes_[i], added when this is its first mention.
  int Mention(size_t i) {
    const SweptNode& s = nodes_[i];
    auto [it, fresh] = out_->by_guid.emplace(s.guid, static_cast<int>(out_->nodes.size()));
    if (fresh) {
      topo::IbNode n;
      n.type = TypeOf(s);
      n.guid = s.guid;
      n.id = Name(s);
      n.description = Cleaned(s.description);
      out_->nodes.push_back(std::move(n));
    }
    return it->second;
  }

  // The record of nodes_[i]: its port count, then each linked port.
  bool Record(size_t i, std::string* err) {
    const SweptNode& s = nodes_[i];
    const int self = Mention(i);
    out_->nodes[self].ports = s.num_ports;
    for (const SweptPort& p : s.ports) {
      auto peer_it = index_.find(p.peer_guid);
      const std::string here = Name(s) + "[" + std::to_string(p.port) + "]";
      if (peer_it == index_.end()) {
        *err = here + " is linked to GUID " + topo::GuidString(p.peer_guid) +
               ", which discovery did not return; expected every peer to be a discovered node";
        return false;
      }
      const SweptNode& peer_node = nodes_[peer_it->second];
      const SweptPort* back = nullptr;
      for (const SweptPort& q : peer_node.ports)
        if (q.port == p.peer_port) back = &q;
      if (!back || back->peer_guid != s.guid || back->peer_port != p.port) {
        *err = here + " is linked to " + Name(peer_node) + "[" + std::to_string(p.peer_port) +
               "], which does not link back to it; expected both ends of a link to name each "
               "other";
        return false;
      }
      if (peer_node.guid == s.guid && p.peer_port == p.port) {
        *err = here + " is linked to itself; expected a peer port other than the port itself";
        return false;
      }
      const int peer = Mention(peer_it->second);
      const int existing = out_->FindLink(self, p.port);
      if (existing >= 0) {  // the peer's record came first: this is the second view
        out_->links[existing].token_b = LinkToken(p.link);
        continue;
      }
      topo::IbLink link;
      link.a = {self, p.port};
      link.b = {peer, p.peer_port};
      link.token_a = LinkToken(p.link);
      const int index = static_cast<int>(out_->links.size());
      out_->links.push_back(std::move(link));
      SetLink(self, p.port, index);
      SetLink(peer, p.peer_port, index);
    }
    return true;
  }

 private:
  void SetLink(int node, int port, int link) {
    if (port < topo::kDensePorts) {
      std::vector<int>& links = out_->nodes[node].links;
      if (port >= static_cast<int>(links.size())) links.resize(port + 1, -1);
      links[port] = link;
    } else {
      out_->high_ports[static_cast<uint64_t>(node) << 16 | static_cast<uint64_t>(port)] = link;
    }
  }

  const std::vector<SweptNode>& nodes_;
  topo::IbFabric* out_;
  std::unordered_map<uint64_t, size_t> index_;
};

}  // namespace

bool ToIbFabric(const std::vector<SweptNode>& nodes, topo::IbFabric* out, std::string* err) {
  *out = topo::IbFabric();
  Builder b(nodes, out);
  for (const topo::IbNodeType kind :
       {topo::IbNodeType::kSwitch, topo::IbNodeType::kCa, topo::IbNodeType::kRouter}) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (TypeOf(nodes[i]) == kind && !b.Record(i, err)) return false;
  }
  return true;
}

bool DiscoverLive(FabricSource* source, topo::IbFabric* out, int* smps, std::string* err) {
  std::vector<SweptNode> nodes;
  if (!source->Discover(&nodes, smps, err)) return false;
  return ToIbFabric(nodes, out, err);
}

}  // namespace railguard::fabric
