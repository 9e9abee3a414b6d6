// SPDX-License-Identifier: GPL-2.0-or-later
// Mapping a sweep onto the rail topology, and the per-link judgement.
#include "fabric/judge.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "base/words.h"
#include "topo/ibnet.h"

namespace railguard::fabric {
namespace {

// What a swept node is in the rail topology.
struct Role {
  enum Kind { kNone, kHca, kLeaf, kSpine, kCore } kind = kNone;
  int su = -1;
  int rail = -1;
  int position = -1;  // kHca: the host's index in its SU
  std::string host, hca, name;
};

// A leaf or spine of the topology the YAML gives a GUID or name to, by that key.
struct Known {
  Role::Kind kind;
  int su, rail;
  std::string name;
};

const char* SideName(const Role& r) {
  switch (r.kind) {
    case Role::kHca:
      return "host";
    case Role::kLeaf:
      return "leaf";
    case Role::kSpine:
      return "spine";
    case Role::kCore:
      return "core";
    default:
      return "switch";
  }
}

std::string WidthName(int lanes) { return lanes ? std::to_string(lanes) + "X" : "?"; }

// Roles of every node: HCAs by "<host> <device>" description, switches by GUID or name from
// the YAML, else by the hosts cabled to them (a leaf) or by having none (a spine).
std::vector<Role> AssignRoles(const topo::Topology& topo, const Sweep& sweep) {
  std::map<std::string, Known> by_guid, by_name;
  for (size_t s = 0; s < topo.sus.size(); ++s) {
    for (const topo::Leaf& l : topo.sus[s].leaves) {
      const Known k{Role::kLeaf, static_cast<int>(s), l.rail, topo::LeafName(topo.sus[s], l)};
      if (!l.sw.guid.empty()) by_guid[AsciiLower(l.sw.guid)] = k;
      by_name[k.name] = k;
    }
  }
  for (const topo::Switch& sp : topo.spines) {
    const Known k{Role::kSpine, -1, -1, sp.name};
    if (!sp.guid.empty()) by_guid[AsciiLower(sp.guid)] = k;
    by_name[sp.name] = k;
  }
  for (const topo::Switch& core : topo.cores) {
    const Known k{Role::kCore, -1, -1, core.name};
    if (!core.guid.empty()) by_guid[AsciiLower(core.guid)] = k;
    by_name[core.name] = k;
  }
  std::vector<Role> roles(sweep.nodes.size());
  for (size_t i = 0; i < sweep.nodes.size(); ++i) {
    const SweptNode& n = sweep.nodes[i];
    Role& r = roles[i];
    if (n.is_switch) {
      r.name = SwitchName(topo, n);
      const Known* k = nullptr;
      if (auto g = by_guid.find(topo::GuidString(n.guid)); g != by_guid.end())
        k = &g->second;
      else if (auto m = by_name.find(r.name); m != by_name.end())
        k = &m->second;
      if (k) {
        r.kind = k->kind;
        r.su = k->su;
        r.rail = k->rail;
        r.name = k->name;
      }
      continue;
    }
    r.name = n.description.empty() ? topo::GuidString(n.guid) : n.description;
    const size_t sp = n.description.find(' ');
    if (sp == std::string::npos) continue;
    const std::string host = n.description.substr(0, sp), dev = n.description.substr(sp + 1);
    const topo::NodeRef* ref = topo.FindNode(host);
    const topo::NodeType* type = topo.TypeOfNode(host);
    if (!ref || !type) continue;
    auto d = std::find(type->nics.begin(), type->nics.end(), dev);
    if (d == type->nics.end()) continue;
    r = {Role::kHca, ref->su,      static_cast<int>(d - type->nics.begin()), ref->position, host,
         dev,        n.description};
  }
  // Switches the YAML does not name: a leaf of the (SU, rail) most of its HCAs belong to; with
  // no HCA cabled to it, a spine when it is cabled to a leaf, else a core switch when it is
  // cabled to a spine, else a spine.
  std::vector<size_t> above;  // switches with no CA that the YAML does not name
  for (size_t i = 0; i < sweep.nodes.size(); ++i) {
    const SweptNode& n = sweep.nodes[i];
    if (!n.is_switch || roles[i].kind != Role::kNone) continue;
    std::map<std::pair<int, int>, int> votes;
    bool any_ca = false;
    for (const SweptPort& p : n.ports) {
      const int j = sweep.FindNode(p.peer_guid);
      if (j < 0 || sweep.nodes[j].is_switch) continue;
      any_ca = true;
      if (roles[j].kind == Role::kHca) ++votes[{roles[j].su, roles[j].rail}];
    }
    if (!votes.empty()) {
      auto best = std::max_element(votes.begin(), votes.end(),
                                   [](auto& x, auto& y) { return x.second < y.second; });
      roles[i].kind = Role::kLeaf;
      roles[i].su = best->first.first;
      roles[i].rail = best->first.second;
    } else if (!any_ca) {
      above.push_back(i);
    }
  }
  auto cabled_to = [&](size_t i, Role::Kind kind) {
    for (const SweptPort& p : sweep.nodes[i].ports) {
      const int j = sweep.FindNode(p.peer_guid);
      if (j >= 0 && roles[j].kind == kind) return true;
    }
    return false;
  };
  std::vector<size_t> rest;
  for (size_t i : above) {
    if (cabled_to(i, Role::kLeaf))
      roles[i].kind = Role::kSpine;
    else
      rest.push_back(i);
  }
  for (size_t i : rest) roles[i].kind = cabled_to(i, Role::kSpine) ? Role::kCore : Role::kSpine;
  return roles;
}

// The error counters of one end that grew past their limit since the previous sweep,
// "SymbolErrorCounter +500 in 60 min (500/h) > limit 120/h, ...", or "".
std::string WindowErrors(const SweepWindow& w, uint64_t guid, int port, const SweptPort& p) {
  const auto* prev = w.previous->Find(guid, port);
  std::string errs;
  for (int c = 0; c < kCounterCount; ++c) {
    const std::optional<double> limit = CounterLimit(w.health, c);
    if (!limit) continue;
    const uint64_t now = p.counters[c];
    const uint64_t grew = prev && now >= (*prev)[c] ? now - (*prev)[c] : now;
    if (auto rise = SweepOverLimit(grew, w.seconds, *limit, w.health))
      errs += (errs.empty() ? "" : ", ") + std::string(kCounterNames[c]) +
              SweepRiseText(*rise, *limit);
  }
  return errs;
}

void JudgeLink(const topo::Topology& topo, const Sweep& sweep, const SweepBaseline* baseline,
               const SweepWindow* window, const std::vector<Role>& roles, int index,
               const MappedLink& l, std::vector<LinkFinding>* out) {
  const End ends[2] = {l.a, l.b};
  const SweptPort* p[2];
  for (int e = 0; e < 2; ++e) p[e] = &sweep.nodes[ends[e].node].ports[ends[e].entry];
  auto add = [&](const char* kind, std::string side, std::string msg) {
    out->push_back({index, kind, std::move(side), std::move(msg)});
  };
  for (int e = 0; e < 2; ++e) {
    const SweptNode& n = sweep.nodes[ends[e].node];
    const Role& r = roles[ends[e].node];
    const std::string where = (e ? l.name_b : l.name_a) + " port " + std::to_string(ends[e].port);
    if (!p[e]->counters_read) {
      add("unread", SideName(r), "counters of " + where + " not read: " + n.error);
      continue;
    }
    const auto* base = baseline ? baseline->Find(n.guid, ends[e].port) : nullptr;
    std::string errs = window ? WindowErrors(*window, n.guid, ends[e].port, *p[e]) : "";
    for (int c = 0; c < kCounterCount && !window; ++c) {
      const uint64_t now = p[e]->counters[c];
      const uint64_t grew = base && now >= (*base)[c] ? now - (*base)[c] : now;
      if (!IsErrorCounter(c) || grew == 0) continue;
      errs += (errs.empty() ? "" : ", ") + std::string(kCounterNames[c]) + (base ? " +" : " ") +
              std::to_string(grew);
    }
    if (!errs.empty())
      add("errors", SideName(r), errs + " on the " + SideName(r) + " side (" + where + ")");
  }
  // Width and speed: against the rail's LinkSpec, else against what both ends enable.
  const topo::LinkSpec* spec =
      l.rail >= 0 && l.kind != LinkKind::kUnknown ? &topo.rails[l.rail].link : nullptr;
  const LinkState& A = p[0]->link;
  const LinkState& B = p[1]->link;
  auto limiting = [&](auto lower) {  // the side(s) whose enabled value is below expected
    const bool la = lower(A), lb = lower(B);
    if (la && !lb) return std::string(SideName(roles[l.a.node]));
    if (lb && !la) return std::string(SideName(roles[l.b.node]));
    return std::string("both");
  };
  const int want_w = spec ? spec->width : std::min(A.width_enabled, B.width_enabled);
  const int have_w = std::min(A.width_active, B.width_active);
  if (have_w && want_w && have_w < want_w) {
    const std::string side = limiting([&](const LinkState& s) { return s.width_enabled < want_w; });
    add("width", side,
        "width " + WidthName(have_w) + " < " + WidthName(want_w) + " (enabled " +
            WidthName(A.width_enabled) + " on " + l.name_a + ", " + WidthName(B.width_enabled) +
            " on " + l.name_b + "; " + (side == "both" ? "both ends allow more" : side + " side") +
            ")");
  }
  auto rate = [](const std::string& s) { return topo::LaneRateGbps(s); };
  const std::string want_s =
      spec ? spec->speed
           : (rate(A.speed_enabled) < rate(B.speed_enabled) ? A.speed_enabled : B.speed_enabled);
  const std::string have_s =
      rate(A.speed_active) < rate(B.speed_active) ? A.speed_active : B.speed_active;
  if (!have_s.empty() && rate(want_s) > 0 && rate(have_s) < rate(want_s)) {
    const std::string side =
        limiting([&](const LinkState& s) { return rate(s.speed_enabled) < rate(want_s); });
    add("speed", side,
        "speed " + have_s + " < " + want_s + " (enabled " + A.speed_enabled + " on " + l.name_a +
            ", " + B.speed_enabled + " on " + l.name_b + "; " +
            (side == "both" ? "both ends allow more" : side + " side") + ")");
  }
}

}  // namespace

std::string SwitchName(const topo::Topology& topo, const SweptNode& n) {
  const std::string guid = topo::GuidString(n.guid);
  for (const topo::ScalableUnit& su : topo.sus)
    for (const topo::Leaf& l : su.leaves)
      if (AsciiLower(l.sw.guid) == guid) return topo::LeafName(su, l);
  for (const topo::Switch& s : topo.spines)
    if (AsciiLower(s.guid) == guid) return s.name;
  for (const topo::Switch& s : topo.cores)
    if (AsciiLower(s.guid) == guid) return s.name;
  const std::string& d = n.description;
  const size_t semi = d.find(';'), colon = d.find(':');
  if (d.rfind("MF0;", 0) == 0 && colon != std::string::npos && colon > semi + 1)
    return d.substr(semi + 1, colon - semi - 1);
  return d.empty() ? guid : d;
}

FabricReport JudgeSweep(const topo::Topology& topo, const Sweep& sweep,
                        const SweepBaseline* baseline, const SweepWindow* window) {
  FabricReport report;
  const std::vector<Role> roles = AssignRoles(topo, sweep);
  // Each link once, seen from the end with the lower (GUID, port).
  for (size_t i = 0; i < sweep.nodes.size(); ++i) {
    const SweptNode& n = sweep.nodes[i];
    for (size_t e = 0; e < n.ports.size(); ++e) {
      const SweptPort& p = n.ports[e];
      const int j = sweep.FindNode(p.peer_guid);
      if (j < 0) continue;
      if (std::make_pair(n.guid, p.port) > std::make_pair(p.peer_guid, p.peer_port)) continue;
      int f = -1;
      for (size_t k = 0; k < sweep.nodes[j].ports.size(); ++k)
        if (sweep.nodes[j].ports[k].port == p.peer_port) f = static_cast<int>(k);
      if (f < 0) continue;
      End x{static_cast<int>(i), p.port, static_cast<int>(e)}, y{j, p.peer_port, f};
      const Role *rx = &roles[x.node], *ry = &roles[y.node];
      MappedLink l;
      if (ry->kind == Role::kHca || (rx->kind == Role::kSpine && ry->kind == Role::kLeaf) ||
          (rx->kind == Role::kCore && ry->kind == Role::kSpine)) {
        std::swap(x, y);
        std::swap(rx, ry);
      }
      l.a = x;
      l.b = y;
      if (rx->kind == Role::kHca && sweep.nodes[y.node].is_switch) {
        l.kind = LinkKind::kHost;
        l.su = rx->su;
        l.rail = rx->rail;
        l.host = rx->host;
        l.hca = rx->hca;
      } else if (rx->kind == Role::kLeaf && ry->kind == Role::kSpine) {
        l.kind = LinkKind::kUplink;
        l.su = rx->su;
        l.rail = rx->rail;
      } else if (rx->kind == Role::kSpine && ry->kind == Role::kCore) {
        l.kind = LinkKind::kCore;
      }
      l.name_a = rx->name;
      l.name_b = ry->name;
      report.links.push_back(l);
    }
  }
  auto key = [&](const MappedLink& l) {
    const int pos = l.kind == LinkKind::kHost ? roles[l.a.node].position : 0;
    return std::make_tuple(static_cast<int>(l.kind), l.su, l.rail, pos, l.name_a, l.a.port);
  };
  std::stable_sort(report.links.begin(), report.links.end(),
                   [&](const MappedLink& x, const MappedLink& y) { return key(x) < key(y); });
  for (size_t i = 0; i < report.links.size(); ++i)
    JudgeLink(topo, sweep, baseline, window, roles, static_cast<int>(i), report.links[i],
              &report.findings);
  std::set<std::pair<std::string, int>> seen;
  for (const MappedLink& l : report.links)
    if (l.kind == LinkKind::kHost) seen.insert({l.host, l.rail});
  for (const topo::ScalableUnit& su : topo.sus) {
    const topo::NodeType* type = topo.FindType(su.node_type);
    if (!type) continue;
    for (const std::string& host : su.nodes)
      for (size_t r = 0; r < type->nics.size(); ++r)
        if (!seen.count({host, static_cast<int>(r)}))
          report.missing.push_back(
              {host, type->nics[r], static_cast<int>(&su - topo.sus.data()), static_cast<int>(r)});
  }
  return report;
}

}  // namespace railguard::fabric
