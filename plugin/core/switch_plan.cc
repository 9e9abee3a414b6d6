// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/switch_plan.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>
#include <utility>

#include "topo/hostlist.h"

namespace railguard::plugin {
namespace {

// `base`, or base-2, base-3, ... : the first that no switch of the topology is called.
std::string UniqueName(const std::string& base, std::set<std::string>* taken) {
  std::string name = base;
  for (int i = 2; taken->count(name); ++i) name = base + "-" + std::to_string(i);
  taken->insert(name);
  return name;
}

std::set<std::string> SwitchNames(const topo::Topology& topo) {
  std::set<std::string> names;
  for (const topo::ScalableUnit& su : topo.sus) {
    names.insert(su.name);
    for (const topo::Leaf& leaf : su.leaves) names.insert(topo::LeafName(su, leaf));
  }
  for (const topo::Switch& spine : topo.spines) names.insert(spine.name);
  return names;
}

}  // namespace

SwitchPlan PlanSwitches(const topo::Topology& topo, const std::vector<std::string>& slurm_nodes,
                        const std::string& source) {
  SwitchPlan plan;
  plan.rank.assign(slurm_nodes.size(), 0);
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < slurm_nodes.size(); ++i)
    index.emplace(slurm_nodes[i], static_cast<int>(i));

  double rate = 0;
  for (const topo::Rail& rail : topo.rails) rate += rail.link.rate_gbps;
  const uint32_t link_speed = std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(rate)));

  std::set<std::string> taken = SwitchNames(topo);
  std::vector<bool> mapped(slurm_nodes.size(), false);
  std::vector<std::string> missing;  // in the topology, not in slurm.conf
  uint32_t next_rank = 0;
  std::vector<int> tops;  // switches right under the top: unsplit SUs' leaves, split SUs
  for (size_t s = 0; s < topo.sus.size(); ++s) {
    const topo::ScalableUnit& su = topo.sus[s];
    std::vector<int> leaves;  // this SU's domain leaves
    for (const topo::Domain& d : topo.domains) {
      if (d.su != static_cast<int>(s)) continue;
      PlannedSwitch leaf;
      leaf.name = d.name;
      leaf.link_speed = link_speed;
      for (const std::string& node : d.nodes) {
        auto it = index.find(node);
        if (it == index.end()) {
          missing.push_back(node);
          continue;
        }
        leaf.nodes.push_back(it->second);
        mapped[it->second] = true;
        plan.rank[it->second] = next_rank++;
      }
      if (leaf.nodes.empty()) continue;
      leaves.push_back(static_cast<int>(plan.switches.size()));
      plan.switches.push_back(std::move(leaf));
    }
    if (leaves.empty()) {
      plan.notes.push_back({true, "scalable unit " + su.name +
                                      " has none of its nodes in slurm.conf; it gets no "
                                      "switch"});
      continue;
    }
    if (topo.su_domains[s] <= 1) {
      tops.push_back(leaves[0]);
      continue;
    }
    // An SU of several one-hop domains: a switch above its domain leaves.
    PlannedSwitch unit;
    unit.name = su.name;
    unit.level = 1;
    unit.link_speed = link_speed;
    std::vector<std::string> names;
    for (int i : leaves) {
      unit.children.push_back(i);
      unit.descendants.push_back(i);
      names.push_back(plan.switches[i].name);
    }
    unit.children_expr = CompressHostlist(names);
    tops.push_back(static_cast<int>(plan.switches.size()));
    plan.switches.push_back(std::move(unit));
  }
  if (!missing.empty()) {
    plan.notes.push_back({true, std::to_string(missing.size()) + " node(s) of " + source +
                                    " are not in slurm.conf: " + CompressHostlist(missing) +
                                    "; left out of the topology"});
  }

  std::vector<std::string> unmapped;
  for (size_t i = 0; i < slurm_nodes.size(); ++i)
    if (!mapped[i]) unmapped.push_back(slurm_nodes[i]);
  if (!unmapped.empty()) {
    std::sort(unmapped.begin(), unmapped.end(), HostLess);
    PlannedSwitch leaf;
    leaf.name = UniqueName(topo.cluster + "-unmapped", &taken);
    leaf.unmapped = true;
    for (const std::string& node : unmapped) {
      const int i = index.at(node);
      leaf.nodes.push_back(i);
      plan.rank[i] = next_rank++;
    }
    plan.notes.push_back({true, std::to_string(unmapped.size()) +
                                    " node(s) of slurm.conf are "
                                    "not in " +
                                    source + ": " + CompressHostlist(unmapped) +
                                    "; they go under switch " + leaf.name +
                                    ", usable but outside every scalable unit"});
    tops.push_back(static_cast<int>(plan.switches.size()));
    plan.switches.push_back(std::move(leaf));
  }
  if (plan.switches.empty()) return plan;

  // One top switch joins every SU: the spines of a rail-optimized fat tree reach every leaf.
  const int top = static_cast<int>(plan.switches.size());
  PlannedSwitch root;
  root.name = UniqueName(topo.cluster + "-spine", &taken);
  root.link_speed = link_speed;
  root.parent = top;
  std::vector<std::string> child_names;
  for (int i : tops) {
    root.children.push_back(i);
    root.level = std::max(root.level, plan.switches[i].level + 1);
    child_names.push_back(plan.switches[i].name);
  }
  for (int i = 0; i < top; ++i) root.descendants.push_back(i);
  for (int i = 0; i < top; ++i)
    for (int c : plan.switches[i].children) plan.switches[c].parent = i;
  for (int i : tops) plan.switches[i].parent = top;
  root.children_expr = CompressHostlist(child_names);
  plan.switches.push_back(std::move(root));
  plan.levels = plan.switches[top].level;

  // Hops between two switches: up from each to their lowest common ancestor.
  const size_t n = plan.switches.size();
  std::vector<std::vector<int>> up(n);  // each switch, then its ancestors up to the top
  for (size_t i = 0; i < n; ++i) {
    for (int at = static_cast<int>(i);; at = plan.switches[at].parent) {
      up[i].push_back(at);
      if (at == top) break;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    std::vector<uint32_t>& dist = plan.switches[i].dist;
    dist.assign(n, 0);
    for (size_t j = 0; j < n; ++j) {
      for (size_t a = 0; a < up[i].size(); ++a) {
        auto it = std::find(up[j].begin(), up[j].end(), up[i][a]);
        if (it == up[j].end()) continue;
        dist[j] = static_cast<uint32_t>(a + static_cast<size_t>(it - up[j].begin()));
        break;
      }
    }
  }

  size_t ranked = 0, leaves = 0;
  for (const PlannedSwitch& sw : plan.switches) {
    ranked += sw.nodes.size();
    leaves += sw.level == 0 ? 1 : 0;
  }
  const std::string below = leaves == tops.size()
                                ? std::to_string(leaves) + " leaf switch(es) "
                                : std::to_string(leaves) + " leaf switch(es) (one per one-hop " +
                                      "domain) in ";
  plan.notes.push_back(
      {false, "cluster " + topo.cluster + ": " + below + plan.switches[top].children_expr +
                  " under " + plan.switches[top].name + ", " + std::to_string(ranked) +
                  " nodes ranked scalable unit by scalable unit"});
  return plan;
}

Ranking RankNodes(const std::vector<std::string>& nodes, const std::vector<uint32_t>& fresh,
                  const RankingFacts& facts, const std::string& source) {
  Ranking out;
  out.rank = fresh;
  if (facts.previous.empty() || (facts.jobs_known && facts.multi_node_jobs <= 0)) return out;

  std::unordered_map<std::string, size_t> before;
  for (size_t i = 0; i < facts.previous.size(); ++i) before.emplace(facts.previous[i], i);
  // Sort key: (0, place before) for nodes the table had, (1, fresh rank) for new ones.
  const auto key = [&](size_t i) {
    auto it = before.find(nodes[i]);
    return it == before.end() ? std::make_pair(1, static_cast<size_t>(fresh[i]))
                              : std::make_pair(0, it->second);
  };
  std::vector<size_t> order(nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  size_t added = 0;
  for (size_t place = 0; place < order.size(); ++place) {
    out.rank[order[place]] = static_cast<uint32_t>(place);
    if (!before.count(nodes[order[place]])) ++added;
  }

  // Only the order matters to Slurm (it sorts by rank): compare orders, not rank values.
  std::vector<size_t> fresh_order = order;
  std::sort(fresh_order.begin(), fresh_order.end(),
            [&](size_t a, size_t b) { return fresh[a] < fresh[b]; });
  if (fresh_order == order) {
    out.rank = fresh;
    return out;
  }
  out.kept = true;
  std::string text = facts.jobs_known
                         ? std::to_string(facts.multi_node_jobs) +
                               " job(s) run on more than one node: the node order stays as it was"
                         : std::string("slurmctld ranks nodes before it recovers its jobs: the "
                                       "node order it saved (") +
                               kNodeOrderFile + ") stays";
  if (added) text += " (" + std::to_string(added) + " new node(s) after the others)";
  text += "; the scalable-unit order of " + source +
          " applies at the first reconfigure while " +
          (facts.jobs_known ? "none does" : "no job runs on more than one node");
  out.notes.push_back({false, text});
  return out;
}

std::string FormatNodeOrder(const std::vector<std::string>& order) {
  std::string text =
      "# slurmctld's node order as topology/rail last left it; kept at the next start\n";
  for (const std::string& node : order) text += node + "\n";
  return text;
}

bool ParseNodeOrder(const std::string& text, const std::string& path,
                    std::vector<std::string>* order, std::string* error) {
  order->clear();
  std::set<std::string> seen;
  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    const auto fail = [&](const std::string& what) {
      *error = path + ":" + std::to_string(line_no) + ": " + what +
               "; expected one node name per line";
      order->clear();
      return false;
    };
    if (line.find_first_of(" \t\r\v\f") != std::string::npos)
      return fail("'" + line + "' has blanks");
    if (!seen.insert(line).second) return fail("node " + line + " is listed twice");
    order->push_back(line);
  }
  return true;
}

}  // namespace railguard::plugin
