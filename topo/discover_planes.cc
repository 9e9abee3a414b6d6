// SPDX-License-Identifier: GPL-2.0-or-later
// Discovery, phase 1 (inference), evidence from the spines: in a fabric built in rail planes
// (each spine serves the leaves of one rail), the spines a leaf uses say which rail it is.
#include <map>
#include <set>

#include "topo/discover_infer.h"

namespace railguard::topo {
namespace {

// "spine1, spine5" (at most 4 names, then "and N more").
std::string SpineList(const Inference& in, const std::set<int>& spines) {
  std::string list;
  int n = 0;
  for (int sp : spines) {
    if (n++ == 4) {
      list += " and " + std::to_string(spines.size() - 4) + " more";
      break;
    }
    list += (list.empty() ? "" : ", ") + in.sws[sp].display;
  }
  return list;
}

std::string RailName(const Inference& in, int su, int rail) {
  const std::string& nic = in.Nic(su, rail);
  return "rail " + std::to_string(rail) + (nic.empty() ? "" : " (" + nic + ")");
}

}  // namespace

void CheckSpinePlanes(const IbFabric& fabric, Inference* in) {
  const int n_rails = static_cast<int>(in->rails.size());
  if (n_rails < 2) return;
  // Per SU leaf: the spines it is cabled to.
  std::map<int, std::set<int>> leaf_spines;
  for (int li : in->switch_links) {
    const IbLink& l = fabric.links[li];
    for (const auto& [leaf, spine] : {std::make_pair(l.a.node, l.b.node),
                                      std::make_pair(l.b.node, l.a.node)}) {
      const SwInfo& sw = in->sws[leaf];
      if (sw.su >= 0 && sw.rail >= 0 && !in->sws[spine].HasHcas()) leaf_spines[leaf].insert(spine);
    }
  }
  // Per spine: how many leaves of each rail use it; its plane is the rail of more than half.
  std::map<int, std::vector<int>> spine_rails;
  for (const auto& [leaf, spines] : leaf_spines)
    for (int sp : spines) {
      std::vector<int>& v = spine_rails[sp];
      v.resize(n_rails, 0);
      ++v[in->sws[leaf].rail];
    }
  std::map<int, int> plane;
  std::map<int, std::set<int>> rail_spines;  // rail -> the spines of its plane
  for (const auto& [sp, v] : spine_rails) {
    int best = 0;
    int total = 0;
    for (int r = 0; r < n_rails; ++r) {
      total += v[r];
      if (v[r] > v[best]) best = r;
    }
    if (2 * v[best] <= total) return;  // a spine of no one rail: the fabric has no planes
    plane[sp] = best;
    rail_spines[best].insert(sp);
  }
  if (rail_spines.size() < 2) return;
  for (const auto& [leaf, spines] : leaf_spines) {
    const SwInfo& sw = in->sws[leaf];
    std::map<int, int> votes;  // plane -> the leaf's spines in it
    for (int sp : spines) ++votes[plane[sp]];
    if (votes.count(sw.rail)) continue;
    const int says = Mode<int>(votes, [](int a, int b) { return a < b; }, -1);
    auto own = rail_spines.find(sw.rail);
    in->notes.push_back(
        {"spine-plane", leaf,
         sw.display + " serves " + RailName(*in, sw.su, sw.rail) + " of " + in->SuName(sw.su) +
             " by its HCAs' names, but its uplinks go only to " + SpineList(*in, spines) +
             ", spines of the plane of " + RailName(*in, sw.su, says) + "; expected " +
             (own == rail_spines.end() ? "spines of its own rail's plane"
                                       : "its own rail's (" + SpineList(*in, own->second) + ")") +
             "; the HCA names and the spine planes disagree: check its uplinks, or give "
             "--rail-order for these hosts' HCAs to decide it"});
  }
}

}  // namespace railguard::topo
