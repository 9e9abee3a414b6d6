// SPDX-License-Identifier: GPL-2.0-or-later
// Discovery, phase 1 (inference), continued: rails from the leaves of each SU, aligned across
// SUs whose hosts name their NICs differently, and appliances told by their structure.
#include <algorithm>
#include <numeric>
#include <set>
#include <unordered_set>

#include "base/names.h"
#include "topo/discover_infer.h"

namespace railguard::topo {
namespace {

// The runs of digits in `name` ("LEAF-2-13" -> 2, 13); false if one is longer than 9 digits.
bool DigitRuns(const std::string& name, std::vector<long>* out) {
  out->clear();
  for (size_t i = 0; i < name.size();) {
    if (name[i] < '0' || name[i] > '9') {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < name.size() && name[e] >= '0' && name[e] <= '9') ++e;
    if (e - i > 9) return false;
    out->push_back(std::stol(name.substr(i, e - i)));
    i = e;
  }
  return true;
}

// Per switch node: the rail its name gives, or -1 for all when names give none. Names give
// rails when one run of digits in every SU leaf's name ("DGX-LEAF-<rail>-<su>", "su1-rail2")
// takes the same `n_rails` values in at least two SUs that have that many leaves, distinct
// within every SU; the k-th smallest value is rail k.
std::vector<int> RailsFromLeafNames(const Inference& in, size_t n_rails) {
  std::vector<int> none(in.sws.size(), -1);
  const size_t n_su = in.su_hosts.size();
  std::vector<std::vector<int>> su_leaves(n_su);
  std::vector<std::vector<long>> runs(in.sws.size());
  size_t width = 0;
  bool first = true;
  for (size_t sw = 0; sw < in.sws.size(); ++sw) {
    const SwInfo& s = in.sws[sw];
    if (!s.rail_leaf || s.su < 0) continue;
    if (s.yaml_name.empty() || !DigitRuns(s.yaml_name, &runs[sw])) return none;
    if (!first && runs[sw].size() != width) return none;
    width = runs[sw].size();
    first = false;
    su_leaves[s.su].push_back(static_cast<int>(sw));
  }
  if (n_rails < 2) return none;
  int field = -1;
  std::vector<long> values;
  for (size_t k = 0; k < width; ++k) {
    std::set<long> full;
    int full_sus = 0;
    bool ok = true;
    for (size_t s = 0; s < n_su && ok; ++s) {
      std::set<long> v;
      for (int sw : su_leaves[s]) v.insert(runs[sw][k]);
      ok = v.size() == su_leaves[s].size();
      if (ok && v.size() == n_rails) {
        ok = full.empty() || v == full;
        full = v;
        ++full_sus;
      }
    }
    for (size_t s = 0; s < n_su && ok; ++s)
      for (int sw : su_leaves[s]) ok = ok && full.count(runs[sw][k]);
    if (!ok || full_sus < 2) continue;
    if (field >= 0) return none;  // two runs could be the rail: names do not decide
    field = static_cast<int>(k);
    values.assign(full.begin(), full.end());
  }
  if (field < 0) return none;
  std::vector<int> out = none;
  for (const std::vector<int>& leaves : su_leaves)
    for (int sw : leaves)
      out[sw] = static_cast<int>(std::lower_bound(values.begin(), values.end(), runs[sw][field]) -
                                 values.begin());
  return out;
}

}  // namespace

std::string TypeName(const DiscoverOptions& opts, int type) {
  return type == 0 ? opts.node_type : opts.node_type + "-" + std::to_string(type + 1);
}

void AlignRails(const DiscoverOptions& opts, const std::unordered_map<std::string, int>& dev_index,
                Inference* in) {
  std::vector<std::vector<std::string>> lists;
  if (!opts.rail_order.empty()) lists.push_back(opts.rail_order);
  for (const std::vector<std::string>& l : opts.other_rail_orders)
    if (!l.empty()) lists.push_back(l);
  in->rail_order_given = !lists.empty();
  const int n_su = static_cast<int>(in->su_hosts.size());
  // Per SU, the devices its leaves serve.
  std::vector<std::set<int>> su_devs(n_su);
  for (const SwInfo& sw : in->sws)
    if (sw.rail_leaf && sw.su >= 0) su_devs[sw.su].insert(sw.majority_dev);
  // An SU joins the node type of the --rail-order list that names one of its devices, else the
  // first type (largest device sets first) whose devices include all of its own: an SU short
  // of a leaf joins its full peers, and images that share only some NIC names stay apart.
  std::vector<int> order(n_su);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return su_devs[a].size() > su_devs[b].size(); });
  std::vector<int> group(n_su, -1);
  std::vector<std::set<int>> group_devs;
  std::vector<int> group_list;  // per group: its --rail-order list, or -1
  for (int s : order) {
    int li = -1;
    for (size_t l = 0; l < lists.size() && li < 0; ++l)
      for (int d : su_devs[s])
        if (std::find(lists[l].begin(), lists[l].end(), in->devs[d]) != lists[l].end())
          li = static_cast<int>(l);
    int g = -1;
    for (size_t k = 0; k < group_devs.size() && g < 0; ++k) {
      if (li >= 0 ? group_list[k] == li
                  : group_list[k] < 0 && std::includes(group_devs[k].begin(), group_devs[k].end(),
                                                       su_devs[s].begin(), su_devs[s].end()))
        g = static_cast<int>(k);
    }
    if (g < 0) {
      g = static_cast<int>(group_devs.size());
      group_devs.emplace_back();
      group_list.push_back(li);
    }
    group[s] = g;
    group_devs[g].insert(su_devs[s].begin(), su_devs[s].end());
  }
  // Types in the order of their first SU (SUs are in Slurm host order).
  std::map<int, int> root_type;
  in->su_type.assign(n_su, 0);
  for (int s = 0; s < n_su; ++s) {
    auto [it, fresh] = root_type.emplace(group[s], static_cast<int>(root_type.size()));
    in->su_type[s] = it->second;
  }
  const int n_types = static_cast<int>(root_type.size());
  std::vector<std::set<int>> type_devs(n_types);
  for (int s = 0; s < n_su; ++s)
    type_devs[in->su_type[s]].insert(su_devs[s].begin(), su_devs[s].end());
  in->type_nics.assign(n_types, {});
  std::vector<bool> ordered(n_types, false);
  size_t n_rails = 0;
  for (const std::vector<std::string>& l : lists) n_rails = std::max(n_rails, l.size());
  for (int t = 0; t < n_types; ++t) {
    std::vector<std::string>& nics = in->type_nics[t];
    for (size_t li = 0; li < lists.size() && !ordered[t]; ++li) {
      for (int d : type_devs[t]) {
        if (std::find(lists[li].begin(), lists[li].end(), in->devs[d]) != lists[li].end()) {
          nics = lists[li];
          ordered[t] = true;
          break;
        }
      }
    }
    if (!ordered[t]) {
      for (int d : type_devs[t]) nics.push_back(in->devs[d]);
      std::sort(nics.begin(), nics.end(), NaturalLess);
    }
    n_rails = std::max(n_rails, nics.size());
  }
  // Leaf names that number the rails order the NICs of each type no --rail-order list orders,
  // when they give each of its NICs one rail and no two NICs the same.
  const std::vector<int> named = RailsFromLeafNames(*in, n_rails);
  for (int t = 0; t < n_types; ++t) {
    if (ordered[t]) continue;
    std::map<int, int> dev_rail;  // device -> rail its leaves' names give
    std::set<int> taken;
    bool ok = true;
    for (size_t sw = 0; sw < in->sws.size() && ok; ++sw) {
      const SwInfo& s = in->sws[sw];
      if (named[sw] < 0 || in->su_type[s.su] != t) continue;
      auto [it, fresh] = dev_rail.emplace(s.majority_dev, named[sw]);
      ok = fresh ? taken.insert(named[sw]).second : it->second == named[sw];
    }
    if (!ok || dev_rail.empty()) continue;
    std::vector<std::string>& nics = in->type_nics[t];
    nics.assign(n_rails, "");
    for (const auto& [dev, rail] : dev_rail) nics[rail] = in->devs[dev];
    ordered[t] = true;
  }
  // A rail order no leaf follows still gives the rails (each SU then misses their leaves).
  if (n_types == 0 && !lists.empty()) {
    in->type_nics.push_back(lists.front());
    ordered.push_back(true);
  }
  for (int t = 0; t < static_cast<int>(in->type_nics.size()); ++t) {
    std::vector<std::string>& nics = in->type_nics[t];
    if (nics.size() < n_rails && !ordered[t]) in->undecided_types.push_back(t);
    nics.resize(n_rails);
  }
  in->rails = in->type_nics.empty() ? std::vector<std::string>() : in->type_nics.front();
  in->dev_rail.assign(in->devs.size(), -1);
  in->type_dev_rail.assign(in->type_nics.size(), std::vector<int>(in->devs.size(), -1));
  for (size_t t = 0; t < in->type_nics.size(); ++t) {
    const std::vector<std::string>& nics = in->type_nics[t];
    for (size_t r = 0; r < nics.size(); ++r) {
      auto it = nics[r].empty() ? dev_index.end() : dev_index.find(nics[r]);
      if (it == dev_index.end()) continue;
      in->type_dev_rail[t][it->second] = static_cast<int>(r);
      if (in->dev_rail[it->second] < 0) in->dev_rail[it->second] = static_cast<int>(r);
    }
  }
  for (SwInfo& sw : in->sws) {
    if (!sw.rail_leaf) continue;
    sw.rail = in->DevRail(sw.su, sw.majority_dev);
    if (sw.rail < 0) sw.su = kNoSu;
  }
}

Appliances FindAppliances(const Inference& in) {
  Appliances out;
  const int n_su = static_cast<int>(in.su_hosts.size());
  // Per host: its rails (on any rail leaf) and its ports on its own SU's leaves.
  std::vector<std::set<int>> rails(in.hosts.size());
  std::vector<std::vector<int>> ports(in.hosts.size());
  std::vector<std::vector<int>> cas(in.hosts.size());
  for (const Attach& a : in.attaches) {
    const int h = in.ca[a.ca].host;
    const SwInfo& sw = in.sws[a.sw];
    if (sw.rail >= 0 && (sw.su >= 0 || sw.su == kDuplicate)) rails[h].insert(sw.rail);
    if (sw.su >= 0 && sw.su == in.host_su[h]) ports[h].push_back(a.sw_port);
    cas[h].push_back(a.ca);
  }
  for (int s = 0; s < n_su; ++s) {
    int leaves = 0;
    for (int sw : in.su_leaf[s]) leaves += sw >= 0;
    int lo = 0;
    int hi = 0;
    for (int h : in.su_hosts[s]) {
      if (static_cast<int>(rails[h].size()) < leaves) continue;
      for (int p : ports[h]) {
        lo = lo == 0 ? p : std::min(lo, p);
        hi = std::max(hi, p);
      }
    }
    if (hi == 0) continue;  // no host has every rail: nothing to compare with
    for (int h : in.su_hosts[s]) {
      const int on = static_cast<int>(rails[h].size());
      // Against all rails, not the leaves the SU has: an SU short of a leaf keeps its bar.
      if (2 * on > static_cast<int>(in.rails.size()) || ports[h].empty()) continue;
      if (*std::min_element(ports[h].begin(), ports[h].end()) <= hi) continue;
      for (int ca : cas[h]) {
        CaInfo ci;
        ci.role = CaRole::kNonCompute;
        ci.rails_on = on;
        ci.su_rails = static_cast<int>(in.rails.size());
        ci.lo = lo;
        ci.hi = hi;
        out[ca] = ci;
      }
    }
  }
  return out;
}

}  // namespace railguard::topo
