// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/rootcause_sweep.h"

#include <algorithm>
#include <set>

#include "report/rootcause.h"
#include "report/text_util.h"

namespace railguard::report {
namespace {

bool SwitchSide(const std::string& side) {
  return side == "leaf" || side == "switch" || side == "spine" || side == "core";
}

std::string Ints(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

// "sweep of FILE (TIME UTC)": where the evidence comes from.
std::string SweepSource(const SweepInput& s) {
  return "sweep " + s.file + (s.time > 0 ? " (" + FormatTime(s.time) + " UTC)" : "") +
         (s.complete ? "" : ", PARTIAL");
}

// At most 3 messages of `v`, "; " between.
std::string FirstMessages(const std::vector<std::string>& v) {
  std::vector<std::string> head(v.begin(),
                                v.begin() + static_cast<long>(std::min<size_t>(3, v.size())));
  std::string s = JoinStrings(head, "; ");
  if (v.size() > 3) s += "; and " + std::to_string(v.size() - 3) + " more";
  return s;
}

// A leaf's host links as the sweep saw them.
struct LeafStats {
  std::string su, rail;
  int links = 0;
  std::vector<const SweepLink*> bad;  // links with findings
  int switch_side = 0;                // of `bad`: the leaf end errs or negotiated less
};

class Applier {
 public:
  Applier(const Report& r, const SweepIndex& index, std::vector<Suspect>* out)
      : r_(r), index_(index), sweep_(index.sweep()), out_(out) {
    for (size_t i = 0; i < r.nodes.size(); ++i) node_[r.nodes[i].name] = static_cast<int>(i);
    for (const SweepLink& l : sweep_.links) {
      if (l.kind != "host") continue;
      LeafStats& st = leaves_[l.b.name];
      st.su = l.su;
      st.rail = l.rail;
      ++st.links;
      const EndVerdict v = JudgeEnds(l);
      if (v.end.empty()) continue;
      st.bad.push_back(&l);
      st.switch_side += v.end == "switch" || v.end == "both";
    }
  }

  void Run() {
    const size_t given = out_->size();
    for (size_t i = 0; i < given; ++i) Existing(&(*out_)[i]);
    NewLeaves();
    NewLinks();
    Above({"uplink", "spine", "uplink", "uplink", "uplinks", true});
    Above({"core", "core", "core-link", "spine-core link", "spine links", false});
    Missing();
  }

 private:
  int NodeOf(const std::string& name) const {
    auto it = node_.find(name);
    return it == node_.end() ? -1 : it->second;
  }
  int RailOf(const std::string& name) const {
    for (size_t k = 0; k < r_.rail_names.size(); ++k)
      if (r_.rail_names[k] == name) return static_cast<int>(k);
    return -1;
  }
  int SuOf(const std::string& name) const {
    for (size_t s = 0; s < r_.sus.size(); ++s)
      if (r_.sus[s].name == name) return static_cast<int>(s);
    return -1;
  }
  void Cover(int node, int rail) {
    if (rail >= 0) {
      covered_.insert({node, rail});
      return;
    }
    for (size_t k = 0; k < r_.rail_names.size(); ++k) covered_.insert({node, static_cast<int>(k)});
  }

  static bool LeafRule(const LeafStats& st) {
    return LeafFaultRule(static_cast<int>(st.bad.size()), st.links);
  }

  std::string LeafEvidence(const std::string& leaf, const LeafStats& st) const {
    std::vector<int> ports;
    for (const SweepLink* l : st.bad) ports.push_back(l->b.port);
    std::sort(ports.begin(), ports.end());
    const std::string head = SweepSource(sweep_) + ": " + std::to_string(st.bad.size()) + " of " +
                             std::to_string(st.links) + " host ports of " + leaf;
    if (ports.empty()) return head + " have findings: the sweep sees this leaf's links clean";
    return head + " have findings (ports " + Ints(ports) + "; the leaf end on " +
           std::to_string(st.switch_side) + ")";
  }

  // A suspect FindSuspects made from node health.
  void Existing(Suspect* s) {
    if (s->kind == "cable" || s->kind == "nic") {
      Cover(s->node, s->rail);
      const NodeRow& n = r_.nodes[static_cast<size_t>(s->node)];
      const std::string& rail = r_.rail_names[static_cast<size_t>(s->rail)];
      const SweepLink* l = index_.HostLink(n.name, rail);
      if (!l) {
        if (index_.Missing(n.name, rail)) {
          s->end = "link-down";
          s->title = EndPhrase(s->end) + ": " + s->component;
          s->evidence.push_back(SweepSource(sweep_) + ": " + n.name + " " + s->nic +
                                " not found in the fabric (link down)");
        } else {
          s->evidence.push_back(SweepSource(sweep_) + ": no link of " + n.name + " " + rail);
        }
        return;
      }
      s->leaf = l->b.name;
      s->port = l->b.port;
      s->port_source = "sweep";
      const EndVerdict v = JudgeEnds(*l);
      const std::string where = n.name + " " + rail + " (" + s->nic + ") -> " + s->leaf + " port " +
                                std::to_string(s->port);
      if (v.end.empty()) {
        s->evidence.push_back(SweepSource(sweep_) + ": " + where +
                              " is clean on both ends (no error counts, full width and "
                              "speed): the fault is inside the host (NIC, driver, firmware)");
        return;
      }
      s->end = v.end;
      s->kind = "cable";
      s->component = where;
      s->title = LinkTitle(v, where);
      s->evidence.push_back(SweepSource(sweep_) + ": " + FirstMessages(v.messages));
      return;
    }
    if (s->kind == "leaf") {
      for (int i : s->nodes) Cover(i, s->rail);
      auto it = leaves_.find(s->leaf);
      if (it == leaves_.end()) return;
      done_.insert(s->leaf);
      s->evidence.push_back(LeafEvidence(s->leaf, it->second));
      if (LeafRule(it->second)) s->end = "leaf";
      return;
    }
    for (int i : s->nodes) Cover(i, s->kind == "host" ? -1 : s->rail);
  }

  // Leaves whose host ports err on the sweep and that no suspect names yet.
  void NewLeaves() {
    for (const auto& kv : leaves_) {
      const LeafStats& st = kv.second;
      if (done_.count(kv.first) || !LeafRule(st)) continue;
      done_.insert(kv.first);
      Suspect s;
      s.kind = "leaf";
      s.end = "leaf";
      s.su = SuOf(st.su);
      s.rail = RailOf(st.rail);
      s.leaf = kv.first;
      s.component = kv.first;
      std::vector<std::string> msgs;
      for (const SweepLink* l : st.bad) {
        const int node = NodeOf(l->host);
        if (node >= 0) {
          s.nodes.push_back(node);
          Cover(node, s.rail);
        }
        for (const std::string& m : JudgeEnds(*l).messages) msgs.push_back(m);
      }
      std::sort(s.nodes.begin(), s.nodes.end());
      s.title = EndPhrase("leaf") + " " + kv.first + " (" + st.su + ", " + st.rail +
                "): " + std::to_string(st.bad.size()) + " of " + std::to_string(st.links) +
                " host ports have findings";
      s.confidence = st.bad.size() * 4 >= static_cast<size_t>(st.links) * 3 ? "high" : "medium";
      s.evidence.push_back(LeafEvidence(kv.first, st));
      s.evidence.push_back("findings: " + FirstMessages(msgs));
      out_->push_back(std::move(s));
    }
  }

  // Host links with findings that no suspect covers (switch-side errors the host cannot see).
  void NewLinks() {
    for (const SweepLink& l : sweep_.links) {
      if (l.kind != "host") continue;
      const EndVerdict v = JudgeEnds(l);
      if (v.end.empty()) continue;
      const int node = NodeOf(l.host), rail = RailOf(l.rail);
      if (node < 0 || rail < 0 || covered_.count({node, rail})) continue;
      Cover(node, rail);
      const NodeRow& n = r_.nodes[static_cast<size_t>(node)];
      Suspect s;
      s.kind = "cable";
      s.end = v.end;
      s.node = node;
      s.nodes = {node};
      s.su = n.su;
      s.rail = rail;
      s.nic = l.hca;
      s.leaf = l.b.name;
      s.port = l.b.port;
      s.port_source = "sweep";
      s.component = n.name + " " + l.rail + " (" + l.hca + ") -> " + s.leaf + " port " +
                    std::to_string(s.port);
      s.title = LinkTitle(v, s.component);
      s.confidence = "high";
      s.evidence.push_back(SweepSource(sweep_) + ": " + FirstMessages(v.messages));
      const RailState st = n.rails[static_cast<size_t>(rail)];
      s.evidence.push_back("node health: " + n.name + " reports " + l.rail + " " +
                           RailStateName(st) +
                           (st == RailState::kOk ? " (the host end does not see it)" : ""));
      out_->push_back(std::move(s));
    }
  }

  // Links above the leaves with findings, by the upper switch: one with several is one suspect,
  // the others one each. Uplinks (leaf <-> spine) and, in a three-tier fabric, core links
  // (spine <-> core switch).
  struct Tier {
    const char* link_kind;    // the sweep's link kind: "uplink", "core"
    const char* group_kind;   // the suspect of a switch with several: "spine", "core"
    const char* single_kind;  // the suspect of one link: "uplink", "core-link"
    const char* link_name;    // "uplink", "spine-core link"
    const char* links_name;   // "uplinks", "spine links"
    bool from_leaf;           // the link's lower end is a leaf (its suspect names the leaf)
  };
  void Above(const Tier& t) {
    std::map<std::string, std::vector<const SweepLink*>> by_upper;
    for (const SweepLink& l : sweep_.links)
      if (l.kind == t.link_kind && !JudgeEnds(l).end.empty()) by_upper[l.b.name].push_back(&l);
    for (const auto& kv : by_upper) {
      const bool group = static_cast<int>(kv.second.size()) >= kSpineMinPorts;
      for (const SweepLink* l : kv.second) {
        const EndVerdict v = JudgeEnds(*l);
        if (group && l != kv.second.front()) continue;
        Suspect s;
        s.kind = group ? t.group_kind : t.single_kind;
        s.end = t.group_kind;
        s.rail = RailOf(l->rail);
        s.su = SuOf(l->su);
        if (t.from_leaf) s.leaf = l->a.name;
        s.confidence = group ? "high" : "medium";
        if (group) {
          std::vector<std::string> msgs, ports;
          for (const SweepLink* u : kv.second) {
            ports.push_back(u->a.name + " port " + std::to_string(u->a.port) + " <-> port " +
                            std::to_string(u->b.port));
            for (const std::string& m : JudgeEnds(*u).messages) msgs.push_back(m);
          }
          s.su = -1;
          s.leaf.clear();
          s.component = kv.first;
          s.title = EndPhrase(t.group_kind) + " " + kv.first + ": " +
                    std::to_string(kv.second.size()) + " " + t.links_name + " have findings";
          s.evidence.push_back(SweepSource(sweep_) + ": " + JoinStrings(ports));
          s.evidence.push_back("findings: " + FirstMessages(msgs));
        } else {
          s.port = l->a.port;
          s.port_source = "sweep";
          s.component = l->a.name + " port " + std::to_string(l->a.port) + " <-> " + kv.first +
                        " port " + std::to_string(l->b.port);
          s.title = EndPhrase(t.group_kind) + ": " + t.link_name + " " + s.component;
          s.evidence.push_back(SweepSource(sweep_) + ": " + FirstMessages(v.messages));
        }
        out_->push_back(std::move(s));
      }
    }
  }

  // HCAs the sweep did not find and no suspect covers.
  void Missing() {
    for (const SweepMissing& m : sweep_.missing) {
      const int node = NodeOf(m.host), rail = RailOf(m.rail);
      if (node < 0 || rail < 0 || covered_.count({node, rail})) continue;
      Cover(node, rail);
      const NodeRow& n = r_.nodes[static_cast<size_t>(node)];
      Suspect s;
      s.kind = "cable";
      s.end = "link-down";
      s.node = node;
      s.nodes = {node};
      s.su = n.su;
      s.rail = rail;
      s.nic = m.hca;
      s.leaf = r_.sus[static_cast<size_t>(n.su)].leaves[static_cast<size_t>(rail)];
      s.component = n.name + " " + m.rail + " (" + m.hca + ") -> " + s.leaf;
      s.title = EndPhrase(s.end) + ": " + s.component;
      s.confidence = "high";
      s.evidence.push_back(SweepSource(sweep_) + ": " + n.name + " " + m.hca +
                           " not found in the fabric");
      out_->push_back(std::move(s));
    }
  }

  const Report& r_;
  const SweepIndex& index_;
  const SweepInput& sweep_;
  std::vector<Suspect>* out_;
  std::map<std::string, int> node_;
  std::map<std::string, LeafStats> leaves_;  // by leaf name
  std::set<std::pair<int, int>> covered_;    // (node, rail) a suspect explains
  std::set<std::string> done_;               // leaves with a leaf suspect
};

}  // namespace

bool LeafFaultRule(int bad, int links) {
  return bad >= kLeafMinNodes && bad >= kLeafMinFraction * links;
}

SweepIndex::SweepIndex(const SweepInput& sweep) : sweep_(sweep) {
  for (const SweepLink& l : sweep.links)
    if (l.kind == "host" && !l.host.empty() && !l.rail.empty()) host_[{l.host, l.rail}] = &l;
  for (const SweepMissing& m : sweep.missing) missing_[{m.host, m.rail}] = true;
}

const SweepLink* SweepIndex::HostLink(const std::string& host, const std::string& rail) const {
  auto it = host_.find({host, rail});
  return it == host_.end() ? nullptr : it->second;
}

bool SweepIndex::Missing(const std::string& host, const std::string& rail) const {
  return missing_.count({host, rail}) > 0;
}

EndVerdict JudgeEnds(const SweepLink& l) {
  EndVerdict v;
  bool host_err = false, switch_err = false;
  std::string phys;
  for (const SweepFinding& f : l.findings) {
    if (f.kind == "unread") continue;
    v.messages.push_back(f.kind + ": " + f.message);
    if (f.kind == "errors") {
      host_err = host_err || f.side == "host" || f.side == "both";
      switch_err = switch_err || SwitchSide(f.side) || f.side == "both";
      continue;
    }
    const std::string e = f.side == "host" ? "host" : SwitchSide(f.side) ? "switch" : "both";
    phys = phys.empty() || phys == e ? e : "both";
    v.what = v.what.empty() || v.what == f.kind ? f.kind : "width and speed";
  }
  v.end = host_err && switch_err ? "both" : host_err ? "host" : switch_err ? "switch" : phys;
  if (host_err || switch_err) v.what = "errors";
  return v;
}

std::string LinkTitle(const EndVerdict& v, const std::string& where) {
  std::string t = EndPhrase(v.end);
  if (v.what != "errors" && v.end != "both")
    t += ", " + v.what + " down: the " + v.end + " end negotiated it";
  else if (v.what != "errors")
    t += ", " + v.what + " down: both ends allow more";
  return t + ": " + where;
}

std::string EndPhrase(const std::string& end) {
  if (end == "host") return "host side only (NIC, transceiver or host end of the cable)";
  if (end == "switch") return "switch side only (switch port or its transceiver)";
  if (end == "both") return "both ends (the cable or its optics)";
  if (end == "leaf") return "many ports of one leaf: leaf switch";
  if (end == "spine") return "leaf uplinks or a spine's ports";
  if (end == "core") return "spine-core links or a core switch's ports";
  if (end == "link-down") return "link down (cable unplugged or broken, or HCA unreachable)";
  return "";
}

void ApplySweep(const Report& r, const SweepIndex& sweep, std::vector<Suspect>* suspects) {
  Applier(r, sweep, suspects).Run();
}

}  // namespace railguard::report
