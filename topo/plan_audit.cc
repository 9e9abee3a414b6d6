// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/plan_audit.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "topo/discover_infer.h"
#include "topo/hostlist.h"

namespace railguard::topo {
namespace {

// Where a planned NIC is cabled in the fabric.
struct Cabled {
  std::string node, nic;
  int rail = 0;
  int want = -1;        // the fabric switch its rail's leaf is, -1 when missing
  std::string want_name;
  int at = -1;          // the fabric switch it is cabled to, -1 none
  int port = 0;         // on that switch
  int want_port = 0;    // the port the plan puts it on (Leaf::first_port), 0 when not given
  std::string token;    // the link's width and speed ("4xNDR")
};

std::string SwitchLabel(const IbFabric& f, int sw) {
  return sw < 0 ? std::string("nothing") : SwitchNameFromDescription(f.nodes[sw].description);
}

Finding Make(const char* kind, const Cabled& c, const IbFabric& f, const std::string& message) {
  Finding x;
  x.kind = kind;
  x.node = c.node;
  x.hca = c.nic;
  if (c.at >= 0) {
    x.switch_name = SwitchLabel(f, c.at);
    x.guid = GuidString(f.nodes[c.at].guid);
    x.port = c.port;
  } else {
    x.switch_name = c.want_name;
  }
  x.message = message;
  return x;
}

}  // namespace

std::vector<Finding> AuditAgainstPlan(const Topology& plan, const IbFabric& fabric) {
  // The fabric's switches by GUID and by name, its CAs by description.
  std::unordered_map<std::string, int> switch_by_name, ca_by_desc;
  for (size_t i = 0; i < fabric.nodes.size(); ++i) {
    const IbNode& n = fabric.nodes[i];
    if (n.type == IbNodeType::kSwitch)
      switch_by_name.emplace(SwitchNameFromDescription(n.description), static_cast<int>(i));
    else if (n.type == IbNodeType::kCa)
      ca_by_desc.emplace(n.description, static_cast<int>(i));
  }
  std::vector<Finding> missing_switch, missing_hca, missing_link, swapped, wrong_leaf, moved,
      wrong_speed, extra;
  std::vector<Cabled> cabled;
  std::set<int> plan_switches;                         // fabric switches that are plan leaves
  std::set<std::pair<int, int>> expected_on;           // (switch, CA) the plan puts there
  for (const ScalableUnit& su : plan.sus) {
    const NodeType* type = plan.FindType(su.node_type);
    for (const Leaf& leaf : su.leaves) {
      const std::string name = LeafName(su, leaf);
      int sw = -1;
      if (!leaf.sw.guid.empty()) {
        const uint64_t guid = std::stoull(leaf.sw.guid.substr(2), nullptr, 16);
        sw = fabric.FindNode(guid);
        if (sw >= 0 && fabric.nodes[sw].type != IbNodeType::kSwitch) sw = -1;
      } else if (auto it = switch_by_name.find(name); it != switch_by_name.end()) {
        sw = it->second;
      }
      if (sw < 0) {
        Finding x;
        x.kind = "missing-switch";
        x.switch_name = name;
        x.guid = leaf.sw.guid;
        x.message = "leaf " + name + (leaf.sw.guid.empty() ? "" : " (" + leaf.sw.guid + ")") +
                    " of " + su.name + " rail " + std::to_string(leaf.rail) +
                    " is not in the fabric; expected a switch " +
                    (leaf.sw.guid.empty() ? "whose NodeDescription names it"
                                          : "with that node GUID");
        missing_switch.push_back(std::move(x));
        continue;
      }
      plan_switches.insert(sw);
      if (!type || leaf.rail >= static_cast<int>(type->nics.size())) continue;
      const std::vector<std::string>& nodes = leaf.nodes.empty() ? su.nodes : leaf.nodes;
      // The plan's port of each node: by its place in Slurm's host order (the order the YAML
      // is written in), whatever order the hostlist gives.
      std::vector<std::string> sorted = nodes;
      if (leaf.first_port > 0) std::sort(sorted.begin(), sorted.end(), HostLess);
      for (const std::string& node : nodes) {
        Cabled c;
        c.node = node;
        if (leaf.first_port > 0)
          c.want_port =
              leaf.first_port +
              static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), node, HostLess) -
                               sorted.begin());
        c.nic = type->nics[leaf.rail];
        c.rail = leaf.rail;
        c.want = sw;
        c.want_name = name;
        auto ca = ca_by_desc.find(node + " " + c.nic);
        if (ca == ca_by_desc.end()) {
          missing_hca.push_back(Make("missing-hca", c, fabric,
                                     node + " " + c.nic + " (rail " + std::to_string(c.rail) +
                                         ") is not in the fabric; expected a CA described \"" +
                                         node + " " + c.nic + "\" on " + name));
          continue;
        }
        expected_on.insert({sw, ca->second});
        const IbNode& hca = fabric.nodes[ca->second];
        for (int p = 1; p <= std::max(hca.ports, 1) && c.at < 0; ++p) {
          const int l = fabric.FindLink(ca->second, p);
          if (l < 0) continue;
          const IbPort peer = fabric.Peer(fabric.links[l], ca->second, p);
          if (fabric.nodes[peer.node].type != IbNodeType::kSwitch) continue;
          c.at = peer.node;
          c.port = peer.port;
          c.token = fabric.links[l].Token();
        }
        if (c.at < 0) {
          missing_link.push_back(Make("missing-link", c, fabric,
                                      node + " " + c.nic + " has no link to a switch; expected "
                                      "one to " + name));
          continue;
        }
        cabled.push_back(c);
      }
    }
  }
  // Wrong leaves, pairing each with one whose places it took (swapped cables).
  std::vector<bool> paired(cabled.size(), false);
  for (size_t i = 0; i < cabled.size(); ++i) {
    const Cabled& a = cabled[i];
    if (a.at == a.want || paired[i]) continue;
    size_t j = i + 1;
    for (; j < cabled.size(); ++j) {
      const Cabled& b = cabled[j];
      if (!paired[j] && b.at != b.want && b.at == a.want && a.at == b.want) break;
    }
    if (j < cabled.size()) {
      const Cabled& b = cabled[j];
      paired[i] = paired[j] = true;
      swapped.push_back(Make("swapped", a, fabric,
                             a.node + " " + a.nic + " and " + b.node + " " + b.nic +
                                 " are on each other's leaves: " + a.node + " " + a.nic + " on " +
                                 SwitchLabel(fabric, a.at) + " port " + std::to_string(a.port) +
                                 " (planned " + a.want_name + "), " + b.node + " " + b.nic +
                                 " on " + SwitchLabel(fabric, b.at) + " port " +
                                 std::to_string(b.port) + " (planned " + b.want_name + ")"));
      continue;
    }
    wrong_leaf.push_back(Make("wrong-leaf", a, fabric,
                              a.node + " " + a.nic + " (rail " + std::to_string(a.rail) +
                                  ") is cabled to " + SwitchLabel(fabric, a.at) + " port " +
                                  std::to_string(a.port) + "; expected " + a.want_name));
  }
  // On the right leaf but another port than the plan's: two that took each other's ports are
  // one finding.
  std::vector<bool> port_paired(cabled.size(), false);
  for (size_t i = 0; i < cabled.size(); ++i) {
    const Cabled& a = cabled[i];
    if (a.at != a.want || a.want_port == 0 || a.port == a.want_port || port_paired[i]) continue;
    size_t j = i + 1;
    for (; j < cabled.size(); ++j) {
      const Cabled& b = cabled[j];
      if (!port_paired[j] && b.at == a.at && b.want == a.want && b.port == a.want_port &&
          a.port == b.want_port)
        break;
    }
    const std::string leaf = SwitchLabel(fabric, a.at);
    if (j < cabled.size()) {
      const Cabled& b = cabled[j];
      port_paired[i] = port_paired[j] = true;
      moved.push_back(Make(
          "moved", a, fabric,
          a.node + " " + a.nic + " and " + b.node + " " + b.nic + " are on each other's ports of " +
              leaf + ": " + a.node + " on port " + std::to_string(a.port) + " (planned " +
              std::to_string(a.want_port) + "), " + b.node + " on port " + std::to_string(b.port) +
              " (planned " + std::to_string(b.want_port) + ")"));
      continue;
    }
    moved.push_back(Make("moved", a, fabric,
                         a.node + " " + a.nic + " is on " + leaf + " port " +
                             std::to_string(a.port) + "; the plan puts it on port " +
                             std::to_string(a.want_port) + " (rail " + std::to_string(a.rail) +
                             ")"));
  }
  for (const Cabled& c : cabled) {
    const NodeRef* ref = plan.FindNode(c.node);
    if (!ref) continue;
    const LinkSpec& spec = plan.rails[c.rail].link;
    const std::optional<LinkSpec> got = LinkSpecFromIbToken(c.token);
    if (spec.width > 0 && !spec.speed.empty() && got &&
        (got->width < spec.width || LaneRateGbps(got->speed) < LaneRateGbps(spec.speed)))
      wrong_speed.push_back(Make("wrong-speed", c, fabric,
                                 c.node + " " + c.nic + " on " + SwitchLabel(fabric, c.at) +
                                     " port " + std::to_string(c.port) + " trains at " + c.token +
                                     "; expected " + std::to_string(spec.width) + "x" +
                                     spec.speed + " (rail " + std::to_string(c.rail) + ")"));
  }
  // CAs on the plan's leaves that the plan does not put there (and that no finding above
  // already names).
  std::set<int> named;
  for (const Cabled& c : cabled) {
    auto ca = ca_by_desc.find(c.node + " " + c.nic);
    if (ca != ca_by_desc.end()) named.insert(ca->second);
  }
  for (int sw : plan_switches) {
    const IbNode& s = fabric.nodes[sw];
    for (int p = 1; p <= s.ports; ++p) {
      const int l = fabric.FindLink(sw, p);
      if (l < 0) continue;
      const IbPort peer = fabric.Peer(fabric.links[l], sw, p);
      if (fabric.nodes[peer.node].type != IbNodeType::kCa) continue;
      if (expected_on.count({sw, peer.node}) || named.count(peer.node)) continue;
      Finding x;
      x.kind = "extra";
      x.switch_name = SwitchLabel(fabric, sw);
      x.guid = GuidString(s.guid);
      x.port = p;
      x.message = "\"" + fabric.nodes[peer.node].description + "\" on " + x.switch_name +
                  " port " + std::to_string(p) + " is not in the plan there";
      extra.push_back(std::move(x));
    }
  }
  std::vector<Finding> out;
  for (std::vector<Finding>* v : {&missing_switch, &missing_hca, &missing_link, &swapped,
                                  &wrong_leaf, &moved, &wrong_speed, &extra})
    out.insert(out.end(), v->begin(), v->end());
  return out;
}

}  // namespace railguard::topo
