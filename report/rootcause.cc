// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/rootcause.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "base/words.h"
#include "report/text_util.h"
#include "topo/hostlist.h"

namespace railguard::report {
namespace {

int ScopeOrder(const std::string& kind) {
  static const char* const kOrder[] = {"fabric", "core",      "rail-plane", "su",  "spine", "leaf",
                                       "uplink", "core-link", "host",       "nic", "cable"};
  for (size_t i = 0; i < std::size(kOrder); ++i)
    if (kind == kOrder[i]) return static_cast<int>(i);
  return static_cast<int>(std::size(kOrder));
}

std::string JoinInts(const std::vector<int>& v, const char* sep = ", ") {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : sep) + std::to_string(x);
  return out;
}

class Finder {
 public:
  Finder(const Report& r, const topo::Topology& topo, const SweepIndex* sweep)
      : r_(r), topo_(topo), sweep_(sweep), rails_(r.rail_names.size()), sus_(r.sus.size()) {
    explained_.assign(r.nodes.size(), std::vector<char>(rails_, 0));
    consumed_.assign(sus_, std::vector<char>(rails_, 0));
    hit_.assign(sus_, std::vector<char>(rails_, 0));
    for (size_t s = 0; s < sus_; ++s) {
      bool reports = false;
      for (int idx : r.sus[s].nodes)
        reports = reports || r.nodes[static_cast<size_t>(idx)].source != HealthSource::kNone;
      reporting_sus_ += reports;
      for (size_t k = 0; k < rails_; ++k) {
        const Cell& c = r.sus[s].cells[k];
        const int bad = c.degraded + c.down;
        const int reporting = c.ok + c.degraded + c.down;
        hit_[s][k] = bad >= kLeafMinNodes && bad >= kLeafMinFraction * reporting;
      }
    }
  }

  std::vector<Suspect> Run() {
    SuWide();
    RailPlanes();
    Leaves();
    Nodes();
    if (sweep_) ApplySweep(r_, *sweep_, &out_);
    RankSuspects(&out_);
    return std::move(out_);
  }

 private:
  const NodeRow& Node(int idx) const { return r_.nodes[static_cast<size_t>(idx)]; }

  std::string Hosts(const std::vector<int>& idx) const {
    std::vector<std::string> names;
    for (int i : idx) names.push_back(Node(i).name);
    return CompressHostlistSorted(names);
  }

  // "5 degraded, 3 down" for a cell.
  static std::string BadCounts(const Cell& c) {
    std::string s;
    if (c.degraded) s += std::to_string(c.degraded) + " degraded";
    if (c.down) s += std::string(s.empty() ? "" : ", ") + std::to_string(c.down) + " down";
    return s;
  }

  // "port.rate (8), link.errors (2)": the failed checks of `rail` over `nodes`.
  std::string ChecksOf(const std::vector<int>& nodes, int rail) const {
    std::map<std::string, int> count;
    for (int i : nodes) {
      const NodeRow& n = Node(i);
      if (rail >= 0) {
        for (const std::string& c : n.rail_checks[static_cast<size_t>(rail)]) ++count[c];
      } else {
        for (const auto& list : n.rail_checks)
          for (const std::string& c : list) ++count[c];
      }
    }
    std::vector<std::pair<int, std::string>> v;
    for (const auto& kv : count) v.push_back({kv.second, kv.first});
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::string s;
    for (const auto& p : v)
      s += (s.empty() ? "" : ", ") + p.second + " (" + std::to_string(p.first) + ")";
    return s;
  }

  // Evidence about Slurm state and timing of `nodes`.
  void StateEvidence(const std::vector<int>& nodes, Suspect* s) const {
    int drained_rc = 0, drained_admin = 0, restricted = 0, down = 0;
    double first = 0, last = 0;
    for (int i : nodes) {
      const NodeRow& n = Node(i);
      drained_rc += n.drained && n.drained_by == "railcheck";
      drained_admin += n.drained && n.drained_by == "admin";
      restricted += n.restricted;
      down += n.down;
      const double t = n.drained && n.reason_time > 0 ? n.reason_time : n.health_time;
      if (t > 0) {
        first = first == 0 ? t : std::min(first, t);
        last = std::max(last, t);
      }
    }
    std::vector<std::string> parts;
    if (drained_rc) parts.push_back(std::to_string(drained_rc) + " drained by railcheck");
    if (drained_admin) parts.push_back(std::to_string(drained_admin) + " drained by an admin");
    if (restricted) parts.push_back(std::to_string(restricted) + " restricted");
    if (down) parts.push_back(std::to_string(down) + " down in Slurm");
    if (!parts.empty()) s->evidence.push_back("Slurm: " + JoinStrings(parts));
    if (first > 0 && nodes.size() > 1 && drained_rc + drained_admin > 0)
      s->evidence.push_back(last - first < 60 ? "all drained or reported within a minute, at " +
                                                    FormatTime(first) + " UTC: they failed together"
                                              : "drained or reported between " + FormatTime(first) +
                                                    " and " + FormatTime(last) + " UTC (" +
                                                    FormatAge(last - first) + " apart)");
  }

  // Evidence from the history about (node, rail).
  void HistoryEvidence(const NodeRow& n, int rail, Suspect* s) const {
    if (rail < 0 || static_cast<size_t>(rail) >= n.history.size()) return;
    const RailHistory& h = n.history[static_cast<size_t>(rail)];
    const std::string& name = r_.rail_names[static_cast<size_t>(rail)];
    if (!h.rates.empty()) {
      std::string rates;
      for (size_t i = 0; i < h.rates.size() && i < 4; ++i)
        rates +=
            (rates.empty() ? "" : ", ") + h.rates[i].name + " " + RatePerHour(h.rates[i].per_hour);
      s->evidence.push_back(name + " counters at " + FormatTime(h.rates_time) +
                            " UTC (history): " + rates);
    }
    if (h.flaps[k7d] > 0 || h.degradations[k7d] > 0)
      s->evidence.push_back(name + " history: " + Plural(h.flaps[k24h], "flap", "flaps") + " and " +
                            Plural(h.degradations[k24h], "degradation", "degradations") +
                            " in 24 h; " + Plural(h.flaps[k7d], "flap", "flaps") + " and " +
                            Plural(h.degradations[k7d], "degradation", "degradations") +
                            " in 7 days");
  }

  // "rail 3 in the other SUs: 24 nodes ok" for a leaf suspect.
  std::string OtherSus(size_t su, size_t rail) const {
    int ok = 0, bad = 0, sus = 0;
    for (size_t s = 0; s < sus_; ++s) {
      if (s == su) continue;
      ++sus;
      ok += r_.sus[s].cells[rail].ok;
      bad += r_.sus[s].cells[rail].degraded + r_.sus[s].cells[rail].down;
    }
    if (sus == 0) return "";
    return r_.rail_names[rail] + " in the other " + Plural(sus, "SU", "SUs") + ": " +
           std::to_string(ok) + " nodes ok, " + std::to_string(bad) + " degraded or down";
  }

  std::string Spines() const {
    std::vector<std::string> names;
    for (const topo::Switch& sw : topo_.spines) names.push_back(sw.name);
    return names.empty() ? std::string("the spines") : JoinStrings(names);
  }

  // Nodes with a bad rail `k` in the cells (s, k) for the given SUs; consumes the cells.
  std::vector<int> Consume(const std::vector<size_t>& sus, const std::vector<size_t>& rails,
                           int* down) {
    std::vector<int> nodes;
    for (size_t s : sus) {
      for (size_t k : rails) {
        if (!hit_[s][k] || consumed_[s][k]) continue;
        consumed_[s][k] = 1;
        for (int idx : r_.sus[s].cells[k].bad) {
          explained_[static_cast<size_t>(idx)][k] = 1;
          if (std::find(nodes.begin(), nodes.end(), idx) == nodes.end()) nodes.push_back(idx);
        }
        *down += r_.sus[s].cells[k].down;
      }
    }
    std::sort(nodes.begin(), nodes.end());
    return nodes;
  }

  std::vector<size_t> AllRails() const {
    std::vector<size_t> v;
    for (size_t k = 0; k < rails_; ++k) v.push_back(k);
    return v;
  }

  void SuWide() {
    if (rails_ < 2) return;
    std::vector<size_t> wide;
    for (size_t s = 0; s < sus_; ++s) {
      int hits = 0;
      for (size_t k = 0; k < rails_; ++k) hits += hit_[s][k];
      if (hits >= std::ceil(kSuMinRailFraction * static_cast<double>(rails_))) wide.push_back(s);
    }
    const bool fabric = static_cast<int>(wide.size()) >= kFabricMinSus &&
                        wide.size() >= kFabricMinSuFraction * reporting_sus_;
    if (fabric) {
      Suspect s;
      s.kind = "fabric";
      std::vector<std::string> names;
      for (size_t su : wide) names.push_back(r_.sus[su].name);
      s.nodes = Consume(wide, AllRails(), &s.down);
      s.component = "spines (" + Spines() + ") or the subnet manager";
      s.title = "spine layer (" + Spines() + ") or the subnet manager: every rail of " +
                Plural(static_cast<int>(wide.size()), "SU", "SUs") + " (" + JoinStrings(names) +
                ") is degraded";
      s.confidence = wide.size() * 4 >= static_cast<size_t>(reporting_sus_) * 3 ? "high" : "medium";
      s.evidence.push_back(std::to_string(wide.size()) + " of " + std::to_string(reporting_sus_) +
                           " SUs with reports have at least " +
                           std::to_string(static_cast<int>(kSuMinRailFraction * 100)) +
                           "% of their rails degraded on many nodes: " + JoinStrings(names));
      s.evidence.push_back(Plural(static_cast<int>(s.nodes.size()), "node", "nodes") +
                           " affected: " + Hosts(s.nodes));
      s.evidence.push_back(
          "leaves of different SUs and rails share only the spines and the "
          "subnet manager: check SM logs (sminfo, opensm.log) and spine health");
      StateEvidence(s.nodes, &s);
      out_.push_back(std::move(s));
      return;
    }
    for (size_t su : wide) {
      Suspect s;
      s.kind = "su";
      s.su = static_cast<int>(su);
      const SuRow& row = r_.sus[su];
      s.nodes = Consume({su}, AllRails(), &s.down);
      s.component = row.name + " leaves (" + row.leaves.front() + " .. " + row.leaves.back() + ")";
      s.title = "every rail of " + row.name +
                ": what its leaves share (their spine uplinks, "
                "rack power or cooling)";
      s.confidence = "medium";
      std::vector<std::string> per;
      for (size_t k = 0; k < rails_; ++k) {
        const Cell& c = row.cells[k];
        per.push_back(r_.rail_names[k] + " " + std::to_string(c.degraded + c.down) + "/" +
                      std::to_string(c.ok + c.degraded + c.down));
      }
      s.evidence.push_back("bad nodes per rail in " + row.name + ": " + JoinStrings(per));
      s.evidence.push_back(Plural(static_cast<int>(s.nodes.size()), "node", "nodes") +
                           " affected: " + Hosts(s.nodes));
      StateEvidence(s.nodes, &s);
      out_.push_back(std::move(s));
    }
  }

  void RailPlanes() {
    for (size_t k = 0; k < rails_; ++k) {
      std::vector<size_t> sus;
      for (size_t s = 0; s < sus_; ++s)
        if (hit_[s][k] && !consumed_[s][k]) sus.push_back(s);
      if (static_cast<int>(sus.size()) < kPlaneMinSus ||
          sus.size() < kPlaneMinSuFraction * reporting_sus_)
        continue;
      Suspect s;
      s.kind = "rail-plane";
      s.rail = static_cast<int>(k);
      std::vector<std::string> names, leaves, per;
      for (size_t su : sus) {
        const Cell& c = r_.sus[su].cells[k];
        names.push_back(r_.sus[su].name);
        leaves.push_back(r_.sus[su].leaves[k]);
        per.push_back(r_.sus[su].name + " " + std::to_string(c.degraded + c.down) + "/" +
                      std::to_string(c.ok + c.degraded + c.down));
      }
      s.nodes = Consume(sus, {k}, &s.down);
      s.component = r_.rail_names[k] + " spine uplinks / subnet manager";
      s.title = r_.rail_names[k] + " in " + Plural(static_cast<int>(sus.size()), "SU", "SUs") +
                " (" + JoinStrings(names) + "): the spine layer of " + r_.rail_names[k] +
                " or its subnet manager, not " + std::to_string(sus.size()) + " leaves at once";
      s.confidence = sus.size() * 4 >= static_cast<size_t>(reporting_sus_) * 3 ? "high" : "medium";
      s.evidence.push_back("bad nodes on " + r_.rail_names[k] + " per SU: " + JoinStrings(per));
      s.evidence.push_back("leaves " + JoinStrings(leaves) +
                           " share only their spine uplinks "
                           "(" +
                           Spines() + ")");
      s.evidence.push_back(Plural(static_cast<int>(s.nodes.size()), "node", "nodes") +
                           " affected: " + Hosts(s.nodes));
      const std::string checks = ChecksOf(s.nodes, static_cast<int>(k));
      if (!checks.empty()) s.evidence.push_back("failed checks: " + checks);
      StateEvidence(s.nodes, &s);
      out_.push_back(std::move(s));
    }
  }

  void Leaves() {
    for (size_t su = 0; su < sus_; ++su) {
      for (size_t k = 0; k < rails_; ++k) {
        if (!hit_[su][k] || consumed_[su][k]) continue;
        const SuRow& row = r_.sus[su];
        const Cell& c = row.cells[k];
        const int bad = c.degraded + c.down;
        const int reporting = c.ok + c.degraded + c.down;
        Suspect s;
        s.kind = "leaf";
        s.su = static_cast<int>(su);
        s.rail = static_cast<int>(k);
        s.leaf = row.leaves[k];
        s.nodes = Consume({su}, {k}, &s.down);
        s.component = row.leaves[k];
        s.title = "leaf switch " + row.leaves[k] + " (" + row.name + ", " + r_.rail_names[k] +
                  ") or its uplinks: " + std::to_string(bad) + " of " + std::to_string(reporting) +
                  " nodes bad on " + r_.rail_names[k];
        const double fraction = reporting > 0 ? static_cast<double>(bad) / reporting : 0;
        s.confidence = fraction >= 0.75 ? "high" : fraction >= 0.5 ? "medium" : "low";
        s.evidence.push_back(std::to_string(bad) + " of " + std::to_string(reporting) +
                             " reporting nodes of " + row.name + " have " + r_.rail_names[k] +
                             " bad (" + BadCounts(c) + "): " + Hosts(s.nodes));
        int other_bad = 0;
        for (int idx : s.nodes) other_bad += Node(idx).BadRails() > 1;
        s.evidence.push_back(
            other_bad == 0
                ? "their other rails are ok: the fault is on " + r_.rail_names[k] + " only"
                : std::to_string(other_bad) + " of them also have another bad rail");
        const std::string others = OtherSus(su, k);
        if (!others.empty()) s.evidence.push_back(others);
        const std::string checks = ChecksOf(s.nodes, static_cast<int>(k));
        if (!checks.empty()) s.evidence.push_back("failed checks: " + checks);
        int with_history = 0;
        for (int idx : s.nodes)
          with_history +=
              Node(idx).history[k].degradations[k24h] > 0 || Node(idx).history[k].flaps[k24h] > 0;
        if (with_history > 0)
          s.evidence.push_back("history: " + std::to_string(with_history) +
                               " of these nodes logged " + r_.rail_names[k] +
                               " degradations or flaps in the last 24 h");
        StateEvidence(s.nodes, &s);
        out_.push_back(std::move(s));
      }
    }
  }

  void Nodes() {
    for (size_t i = 0; i < r_.nodes.size(); ++i) {
      const NodeRow& n = r_.nodes[i];
      std::vector<int> rails;
      for (size_t k = 0; k < rails_; ++k)
        if ((n.rails[k] == RailState::kDegraded || n.rails[k] == RailState::kDown) &&
            !explained_[i][k])
          rails.push_back(static_cast<int>(k));
      if (rails.empty()) continue;
      const SuRow& row = r_.sus[static_cast<size_t>(n.su)];
      Suspect s;
      s.su = n.su;
      s.node = static_cast<int>(i);
      s.nodes = {static_cast<int>(i)};
      for (int k : rails) s.down += n.rails[static_cast<size_t>(k)] == RailState::kDown;
      if (static_cast<int>(rails.size()) >= kHostMinRails) {
        Host(n, row, rails, &s);
      } else {
        Link(n, row, rails[0], &s);
      }
      if (n.source == HealthSource::kReason) {
        s.confidence = "low";
        s.evidence.push_back("rails known only from the drain reason '" + n.reason +
                             "' (no railcheck report in Extra)");
      }
      StateEvidence(s.nodes, &s);
      out_.push_back(std::move(s));
    }
  }

  void Host(const NodeRow& n, const SuRow& row, const std::vector<int>& rails, Suspect* s) {
    s->kind = "host";
    std::vector<std::string> nics, states;
    bool pcie = false;
    for (int k : rails) {
      nics.push_back(row.nics[static_cast<size_t>(k)]);
      std::string checks = JoinStrings(n.rail_checks[static_cast<size_t>(k)]);
      for (const std::string& c : n.rail_checks[static_cast<size_t>(k)])
        pcie = pcie || IsHostSideCheck(c);
      states.push_back(r_.rail_names[static_cast<size_t>(k)] + " (" + row.nics[k] + ") " +
                       RailStateName(n.rails[static_cast<size_t>(k)]) +
                       (checks.empty() ? "" : ": " + checks));
    }
    s->nic = JoinStrings(nics);
    s->component = n.name + " host side (" + s->nic + ")";
    const bool all = rails.size() == rails_;
    s->title = "host side of " + n.name + " (PCIe switch, NIC card, driver or firmware): " +
               (all ? "every rail" : "rails " + JoinInts(rails)) + " bad";
    s->confidence = pcie || rails.size() * 2 >= rails_ ? "high" : "medium";
    for (const std::string& st : states) s->evidence.push_back(st);
    s->evidence.push_back("one node, " + Plural(static_cast<int>(rails.size()), "rail", "rails") +
                          " on " +
                          Plural(static_cast<int>(rails.size()), "leaf", "different leaves") +
                          ": the leaves are fine for the other nodes of " + row.name +
                          ", so the common part is the host");
    if (!n.node_checks.empty())
      s->evidence.push_back("node-wide failed checks: " + JoinStrings(n.node_checks));
    if (pcie) s->evidence.push_back("PCIe checks failed: look at the PCIe switch and slot");
    for (int k : rails) HistoryEvidence(n, k, s);
  }

  void Link(const NodeRow& n, const SuRow& row, int rail, Suspect* s) {
    const size_t k = static_cast<size_t>(rail);
    s->rail = rail;
    s->nic = row.nics[k];
    s->leaf = row.leaves[k];
    s->port = n.leaf_ports[k];
    const std::vector<std::string>& checks = n.rail_checks[k];
    bool host_side = !checks.empty();
    for (const std::string& c : checks) host_side = host_side && IsHostSideCheck(c);
    const std::string port = s->port > 0 ? "port " + std::to_string(s->port) : "port unknown";
    const std::string where =
        n.name + " " + r_.rail_names[k] + " (" + s->nic + ") -> " + s->leaf + " " + port;
    if (host_side) {
      s->kind = "nic";
      s->component = n.name + " " + s->nic;
      s->title = "NIC " + s->nic + " of " + n.name + " (" + r_.rail_names[k] +
                 ") or its PCIe slot: " + JoinStrings(checks);
    } else {
      s->kind = "cable";
      s->component = where;
      s->title = "cable, optic or NIC port: " + where;
    }
    const Cell& c = row.cells[k];
    const int others_bad = c.degraded + c.down - 1;
    s->confidence = others_bad == 0 ? "high" : "medium";
    s->evidence.push_back(
        n.name + " reports " + r_.rail_names[k] + " " + RailStateName(n.rails[k]) +
        (checks.empty() ? "" : " (" + JoinStrings(checks) + ")") + "; its other rails are " +
        (n.BadRails() == 1 ? "ok" : "explained by another suspect"));
    const int others = c.ok + c.degraded + c.down - 1;
    if (others > 0)
      s->evidence.push_back(
          others_bad == 0
              ? "the other " + std::to_string(others) + " nodes of " + row.name + " are ok on " +
                    r_.rail_names[k] + ": leaf " + s->leaf + " works"
              : std::to_string(others_bad) + " other node(s) of " + row.name + " are bad on " +
                    r_.rail_names[k] + " too (below the leaf threshold of " +
                    std::to_string(kLeafMinNodes) + "): watch leaf " + s->leaf);
    if (s->port > 0 && !sweep_) {
      s->port_source = "guess";
      s->evidence.push_back("port " + std::to_string(s->port) + " is a guess (no sweep given): " +
                            n.name + " is node " + std::to_string(n.position + 1) + " of " +
                            row.name + " (leaf port = position in the SU + 1)");
    }
    HistoryEvidence(n, rail, s);
  }

  const Report& r_;
  const topo::Topology& topo_;
  const SweepIndex* sweep_;  // nullptr: no sweep given
  size_t rails_;
  size_t sus_;
  int reporting_sus_ = 0;
  std::vector<std::vector<char>> explained_;  // [node][rail]
  std::vector<std::vector<char>> consumed_;   // [su][rail]
  std::vector<std::vector<char>> hit_;        // [su][rail]: matches the leaf rule
  std::vector<Suspect> out_;
};

}  // namespace

bool IsHostSideCheck(const std::string& check) {
  return check.rfind("pcie.", 0) == 0 || check == "nic.present" || check == "rail.affinity";
}

int LeafPort(const topo::Topology& topo, int su, int rail, int position) {
  if (su < 0 || static_cast<size_t>(su) >= topo.sus.size() || position < 0) return 0;
  const int port = position + 1;
  for (const topo::Leaf& leaf : topo.sus[static_cast<size_t>(su)].leaves)
    if (leaf.rail == rail && leaf.sw.ports > 0 && port > leaf.sw.ports) return 0;
  return port;
}

std::vector<Suspect> FindSuspects(const Report& r, const topo::Topology& topo,
                                  const SweepIndex* sweep) {
  return Finder(r, topo, sweep).Run();
}

void RankSuspects(std::vector<Suspect>* s) {
  std::sort(s->begin(), s->end(), [](const Suspect& a, const Suspect& b) {
    if (a.nodes.size() != b.nodes.size()) return a.nodes.size() > b.nodes.size();
    if (ScopeOrder(a.kind) != ScopeOrder(b.kind)) return ScopeOrder(a.kind) < ScopeOrder(b.kind);
    if (a.down != b.down) return a.down > b.down;
    return a.component < b.component;
  });
  for (size_t i = 0; i < s->size(); ++i) (*s)[i].rank = static_cast<int>(i) + 1;
}

}  // namespace railguard::report
