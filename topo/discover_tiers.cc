// SPDX-License-Identifier: GPL-2.0-or-later
// Discovery, phase 1 (inference), what the switches are: leaf groups that hold service hosts
// rather than GPU nodes, and the tier of every switch (leaf, spine, core) from the fabric's
// structure, with the switch names checked against it.
#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <set>
#include <unordered_set>

#include "base/names.h"
#include "base/words.h"
#include "topo/discover_infer.h"
#include "topo/hostlist.h"

namespace railguard::topo {
namespace {

// Leaves on a domain's rails: how many rails of it have a leaf.
int DomainLeaves(const Inference& in, size_t d) {
  int n = 0;
  for (int sw : in.su_leaf[d]) n += sw >= 0;
  return n;
}

bool NamedCore(const std::string& lower) {
  return lower.find("core") != std::string::npos || lower.find("super") != std::string::npos;
}

bool NamedSpine(const std::string& lower) {
  return lower.find("spine") != std::string::npos && lower.find("super") == std::string::npos;
}

}  // namespace

const char* TierName(SwitchTier tier) {
  switch (tier) {
    case SwitchTier::kLeaf:
      return "leaf";
    case SwitchTier::kSpine:
      return "spine";
    case SwitchTier::kCore:
      return "core";
    case SwitchTier::kService:
      return "service";
  }
  return "spine";
}

Appliances FindServiceGroups(const Inference& in) {
  Appliances out;
  int widest = 0;
  for (size_t d = 0; d < in.su_leaf.size(); ++d) widest = std::max(widest, DomainLeaves(in, d));
  if (widest < 4) return out;
  int group = 0;
  for (size_t d = 0; d < in.su_leaf.size(); ++d) {
    const int leaves = DomainLeaves(in, d);
    if (leaves == 0 || leaves > 2 || 2 * leaves > widest) continue;
    for (const Attach& a : in.attaches) {
      const int host = in.ca[a.ca].host;
      if (host < 0 || in.host_su[host] != static_cast<int>(d)) continue;
      CaInfo ci = in.ca[a.ca];
      ci.role = CaRole::kNonCompute;
      ci.reason = "a service host";
      ci.service_group = group;
      out[a.ca] = ci;
    }
    ++group;
  }
  return out;
}

void AssignTiers(const IbFabric& fabric, Inference* in) {
  const size_t n = fabric.nodes.size();
  // Per switch: its switch neighbours, its service hosts and its other non-compute CAs.
  std::vector<std::set<int>> peers(n);
  for (int li : in->switch_links) {
    const IbLink& l = fabric.links[li];
    peers[l.a.node].insert(l.b.node);
    peers[l.b.node].insert(l.a.node);
  }
  std::vector<int> switch_links(n, 0), service(n, 0), other_cas(n, 0);
  for (int li : in->switch_links) {
    ++switch_links[fabric.links[li].a.node];
    ++switch_links[fabric.links[li].b.node];
  }
  for (const IbLink& l : fabric.links) {
    for (const auto& [sw, ca] :
         {std::make_pair(l.a.node, l.b.node), std::make_pair(l.b.node, l.a.node)}) {
      if (fabric.nodes[sw].type != IbNodeType::kSwitch ||
          fabric.nodes[ca].type == IbNodeType::kSwitch)
        continue;
      const CaInfo& ci = in->ca[ca];
      if (ci.role != CaRole::kNonCompute) continue;
      if (ci.service_group >= 0)
        ++service[sw];
      else if (ci.reason != "a SHARP aggregation node")
        ++other_cas[sw];
    }
  }
  // Hops from the nearest leaf, through every switch but service leaves.
  std::vector<int> hops(n, -1);
  std::deque<int> queue;
  for (size_t i = 0; i < n; ++i) {
    if (fabric.nodes[i].type != IbNodeType::kSwitch) continue;
    SwInfo& s = in->sws[i];
    if (s.HasHcas()) {
      s.tier = SwitchTier::kLeaf;
      hops[i] = 0;
      queue.push_back(static_cast<int>(i));
    } else if (service[i] > 0) {
      s.tier = SwitchTier::kService;
    }
  }
  while (!queue.empty()) {
    const int sw = queue.front();
    queue.pop_front();
    for (int p : peers[sw]) {
      if (hops[p] >= 0 || in->sws[p].tier == SwitchTier::kService) continue;
      hops[p] = hops[sw] + 1;
      queue.push_back(p);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (fabric.nodes[i].type != IbNodeType::kSwitch) continue;
    SwInfo& s = in->sws[i];
    if (s.tier == SwitchTier::kLeaf || s.tier == SwitchTier::kService) continue;
    if (hops[i] >= 2)
      // A core switch may hold a UFM pair; a leaf of storage or login hosts holds more.
      s.tier = other_cas[i] >= 3 || other_cas[i] > switch_links[i] ? SwitchTier::kService
                                                                   : SwitchTier::kCore;
    else
      s.tier = SwitchTier::kSpine;  // cabled to a leaf, or reached by none
  }
  // Names that say the other tier.
  bool any_core = false;
  for (size_t i = 0; i < n; ++i)
    any_core |= fabric.nodes[i].type == IbNodeType::kSwitch && in->sws[i].tier == SwitchTier::kCore;
  for (size_t i = 0; i < n; ++i) {
    if (fabric.nodes[i].type != IbNodeType::kSwitch) continue;
    const SwInfo& s = in->sws[i];
    const std::string name = AsciiLower(s.display);
    // Two-tier fabrics often call their spines "core" switches: only a third tier makes
    // that name say the wrong tier.
    if (any_core && s.tier == SwitchTier::kSpine && hops[i] == 1 && NamedCore(name) &&
        !NamedSpine(name)) {
      in->notes.push_back(
          {"tier-name", static_cast<int>(i),
           s.display + " is named like a core switch but is cabled to leaves, so it is a spine "
                       "(the core switches here are those cabled only to spines); expected a "
                       "spine's name, or its uplinks on spines only"});
    } else if (s.tier == SwitchTier::kCore && NamedSpine(name)) {
      in->notes.push_back(
          {"tier-name", static_cast<int>(i),
           s.display + " is named like a spine but is cabled to no leaf, only to " +
               std::to_string(peers[i].size()) +
               " switches above the leaves, so it is a core switch; expected a core switch's "
               "name, or cables to the leaves it should serve"});
    }
  }
}

// not-rail-fabric: every host has one HCA here, so each "SU" is one leaf of one rail.
void NoteRailFabric(Inference* in_) {
  Inference& in = *in_;
  if (in.rails.size() != 1 || in.su_hosts.empty()) return;
  std::unordered_set<int> leaves;
  for (const Attach& a : in.attaches) leaves.insert(a.sw);
  in.notes.push_back({"not-rail-fabric", -1,
          (in.counts.hosts == 1 ? std::string("the only host")
                                : "every one of the " + Plural(in.counts.hosts, "host")) +
              " has one HCA on this fabric (on " +
              Plural(static_cast<long>(leaves.size()), "leaf", "leaves") +
              "): it is not a GPU rail fabric but a storage or management fabric, or one plane of "
              "a multi-plane fabric; its leaves are kept as one-rail scalable units; expected "
              "hosts with one HCA per rail for a rail-optimized fabric"});
}

// service-hosts: one finding per leaf group of service hosts (FindServiceGroups).
void NoteServiceGroups(const IbFabric& f, Inference* in_) {
  Inference& in = *in_;
  std::map<int, std::map<int, int>> group_hosts;  // group -> host -> HCAs
  std::map<int, std::set<int>> group_leaves;      // group -> switches
  for (const IbLink& l : f.links) {
    for (const auto& [ca, sw] :
         {std::make_pair(l.a.node, l.b.node), std::make_pair(l.b.node, l.a.node)}) {
      if (f.nodes[sw].type != IbNodeType::kSwitch || f.nodes[ca].type == IbNodeType::kSwitch)
        continue;
      const CaInfo& ci = in.ca[ca];
      if (ci.role != CaRole::kNonCompute || ci.service_group < 0 || ci.host < 0) continue;
      ++group_hosts[ci.service_group][ci.host];
      group_leaves[ci.service_group].insert(sw);
    }
  }
  for (const auto& [g, hosts] : group_hosts) {
    std::vector<int> order;
    int lo = 0, hi = 0;
    for (const auto& [h, hcas] : hosts) {
      order.push_back(h);
      lo = lo ? std::min(lo, hcas) : hcas;
      hi = std::max(hi, hcas);
    }
    std::sort(order.begin(), order.end(),
              [&](int a, int b) { return HostLess(in.hosts[a], in.hosts[b]); });
    std::string names;
    for (size_t i = 0; i < order.size() && i < 3; ++i)
      names += (i ? ", " : "") + in.hosts[order[i]];
    if (order.size() > 3) names += " and " + std::to_string(order.size() - 3) + " more";
    std::vector<std::string> leaf_names;
    for (int sw : group_leaves[g]) leaf_names.push_back(in.sws[sw].display);
    std::sort(leaf_names.begin(), leaf_names.end(),
              [](const std::string& a, const std::string& b) { return NaturalLess(a, b); });
    std::string leaves;
    for (const std::string& n : leaf_names) leaves += (leaves.empty() ? "" : ", ") + n;
    const std::string hcas =
        lo == hi ? Plural(lo, "HCA") : std::to_string(lo) + " to " + std::to_string(hi) + " HCAs";
    in.notes.push_back({"service-hosts", *group_leaves[g].begin(),
            "leaf group " + leaves + " holds " + Plural(static_cast<long>(order.size()), "host") +
                " with " + hcas + " each (" + names + ") where the GPU nodes have " +
                std::to_string(in.rails.size()) +
                ": login, controller, cache or storage hosts, not GPU compute nodes; left out "
                "of the scalable units"});
  }
}

}  // namespace railguard::topo
