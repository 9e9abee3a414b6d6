// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/discover_audit.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "base/names.h"
#include "base/words.h"
#include "topo/hostlist.h"

namespace railguard::topo {
namespace {

// Findings are reported grouped by kind, in this order (the order topo/discover.h lists them).
const char* const kKindOrder[] = {
    "ibnetdiscover-error", "not-rail-optimized", "not-rail-fabric", "rail-alignment",
    "su-grouping",         "spine-plane",        "tier-name",       "missing-leaf",
    "duplicate-leaf",      "stray-leaf",         "rail-mismatch",   "su-mismatch",
    "missing-link",        "duplicate-hca",      "host-name",       "stray-hca",
    "nic-naming",          "unnamed-hca",        "link-speed",      "link-disagree",
    "uplink-deficit",      "leaf-link",          "loopback",        "service-hosts",
    "non-compute"};

int KindRank(const std::string& kind) {
  for (size_t i = 0; i < std::size(kKindOrder); ++i)
    if (kind == kKindOrder[i]) return static_cast<int>(i);
  return static_cast<int>(std::size(kKindOrder));
}

const std::string kEmpty;

// What every check reads (the fabric and its inference) and the findings they add.
struct Auditor {
  const IbFabric& f;
  const Inference& in;
  std::vector<Finding> findings;

  // Adds one finding; `sw` (a switch node, or -1) gives its switch name and GUID.
  void Add(std::string kind, std::string node, std::string hca, int sw, int port,
           std::string message) {
    Finding x;
    x.kind = std::move(kind);
    x.node = std::move(node);
    x.hca = std::move(hca);
    if (sw >= 0) {
      x.switch_name = in.sws[sw].display;
      x.guid = in.sws[sw].guid;
    }
    x.port = port;
    x.message = std::move(message);
    findings.push_back(std::move(x));
  }

  const std::string& HostName(int ca) const {
    return in.ca[ca].host >= 0 ? in.hosts[in.ca[ca].host] : kEmpty;
  }
  const std::string& DevName(int ca) const {
    return in.ca[ca].dev >= 0 ? in.devs[in.ca[ca].dev] : kEmpty;
  }
  // "n001 mlx5_3", or the CA's id when it has no name.
  std::string CaLabel(int ca) const {
    if (in.ca[ca].host < 0) return "\"" + f.nodes[ca].id + "\"";
    return in.ca[ca].dev >= 0 ? HostName(ca) + " " + DevName(ca)
                              : HostName(ca) + " (" + f.nodes[ca].id + ")";
  }
  std::string SwPort(int sw, int port) const {
    return in.sws[sw].display + " port " + std::to_string(port);
  }
  // "rail 2 (mlx5_4)" after the NICs of SU `su`'s node type; "rail 2" when it names none.
  std::string RailLabel(int su, int rail) const {
    const std::string& nic = in.Nic(su, rail);
    return "rail " + std::to_string(rail) + (nic.empty() ? "" : " (" + nic + ")");
  }
  std::string RailList(int su) const {
    std::string list;
    for (size_t r = 0; r < in.rails.size(); ++r)
      if (!in.Nic(su, static_cast<int>(r)).empty())
        list += (list.empty() ? "" : ", ") + in.Nic(su, static_cast<int>(r));
    return list;
  }
  std::string ExpectedToken(int sw) const {
    return in.sws[sw].rail >= 0 ? in.rail_token[in.sws[sw].rail] : in.host_token;
  }
};

// not-rail-optimized: no leaf's HCAs name a device, so there are no rails.
void CheckRailsFound(Auditor* au) {
  const Inference& in = au->in;
  if (!in.rails.empty()) return;
  std::unordered_set<int> hosts;
  std::unordered_set<int> leaves;
  for (const Attach& a : in.attaches) {
    hosts.insert(in.ca[a.ca].host);
    leaves.insert(a.sw);
  }
  std::unordered_set<int> unnamed;
  for (const Attach& a : in.unnamed) unnamed.insert(a.ca);
  std::string msg;
  if (hosts.empty() && unnamed.empty()) {
    msg = "the dump has no compute HCAs (" + Plural(in.counts.cas, "CA") +
          ", none of them a compute HCA); expected HCAs described \"<host> <device>\"";
  } else {
    msg = "found " + Plural(static_cast<long>(hosts.size()), "named host") + " on " +
          Plural(static_cast<long>(leaves.size()), "switch", "switches") + " and " +
          Plural(static_cast<long>(unnamed.size()), "unnamed HCA") +
          ", but no HCA description names its device, so rails and scalable units cannot be "
          "inferred; expected descriptions \"<host> <device>\" as rdma-ndd sets them, or a "
          "--node-map that gives them";
  }
  au->Add("not-rail-optimized", "", "", -1, 0, msg);
}

// "su2", "su2, su5": the SUs of node type `type`.
std::string SusOfType(const Inference& in, int type) {
  std::string list;
  for (size_t s = 0; s < in.su_type.size(); ++s)
    if (in.su_type[s] == type) list += (list.empty() ? "" : ", ") + in.SuName(static_cast<int>(s));
  return list;
}

// rail-alignment: node types with fewer NICs than there are rails, which no --rail-order list
// orders; their NICs were given rails 0.. in NIC order.
void CheckRailAlignment(Auditor* au) {
  const Inference& in = au->in;
  for (int t : in.undecided_types) {
    std::vector<std::string> known;
    for (const std::string& nic : in.type_nics[t])
      if (!nic.empty()) known.push_back(nic);
    std::string list;
    for (const std::string& nic : known) list += (list.empty() ? "" : ", ") + nic;
    au->Add("rail-alignment", "", "", -1, 0,
            "the hosts of " + SusOfType(in, t) + " name " +
                Plural(static_cast<long>(known.size()), "rail HCA") + " (" + list +
                ") where other SUs have " + Plural(static_cast<long>(in.rails.size()), "rail") +
                ", so which rail each serves cannot be told from the fabric; assumed rails 0 to " +
                std::to_string(known.size() - 1) +
                " in NIC order; expected a --rail-order list of their HCAs in rail order "
                "(--rail-order may be given once per NIC naming)");
  }
}

// The name the host on `port` of SU `su`'s leaves probably has, when the SU's hosts are named
// by port ("dgx019" on port 1, "dgx020" on port 2, ...): most of them, and at least two, share
// a prefix and the offset from port to number. "" otherwise, or when a host has that name.
std::string ProbableName(const Inference& in, int su, int port) {
  std::map<std::pair<std::string, long>, std::pair<int, size_t>> counts;  // -> (hosts, width)
  int n = 0;
  for (int h : in.su_hosts[su]) {
    const int p = in.host_port[h];
    const std::string& name = in.hosts[h];
    size_t b = name.size();
    while (b > 0 && name[b - 1] >= '0' && name[b - 1] <= '9') --b;
    if (p <= 0 || b == name.size() || name.size() - b > 9) continue;
    ++n;
    auto& c = counts[{name.substr(0, b), std::stol(name.substr(b)) - p}];
    ++c.first;
    if (name[b] == '0' && name.size() - b > 1) c.second = name.size() - b;
  }
  const std::pair<std::string, long>* best = nullptr;
  int best_n = 0;
  for (const auto& [key, c] : counts) {
    if (c.first > best_n) {
      best = &key;
      best_n = c.first;
    }
  }
  if (best == nullptr || best_n < 2 || 2 * best_n <= n || port + best->second < 0) return "";
  std::string number = std::to_string(port + best->second);
  const size_t width = counts[*best].second;
  if (number.size() < width) number.insert(0, width - number.size(), '0');
  const std::string name = best->first + number;
  for (int h : in.su_hosts[su])
    if (in.hosts[h] == name) return "";
  return name;
}

// host-name: HCAs whose description gives a default host name, or a host name several hosts
// give; one finding per slot (SU and port, or switch and port off SUs), left out of the
// topology, with the name the slot probably has.
void CheckHostNames(Auditor* au) {
  const Inference& in = au->in;
  using Slot = std::pair<int, int>;  // (SU, or -1 - switch off SUs; port)
  std::map<Slot, std::vector<Attach>> slots;
  for (const Attach& a : in.anonymous) {
    const int su = in.sws[a.sw].su;
    slots[{su >= 0 ? su : -1 - a.sw, a.sw_port}].push_back(a);
  }
  std::map<int, std::vector<Slot>> host_slots;  // repeated host -> its slots
  for (const auto& [slot, v] : slots) {
    for (const Attach& a : v) {
      const int h = in.ca[a.ca].host;
      if (h < 0) continue;
      std::vector<Slot>& hs = host_slots[h];
      if (std::find(hs.begin(), hs.end(), slot) == hs.end()) hs.push_back(slot);
    }
  }
  // "2" within one SU (the list says "ports 2 and 3"), else "su1 port 2".
  auto slot_name = [&](const Slot& sl, bool same_su) {
    return same_su ? std::to_string(sl.second)
                   : (sl.first < 0 ? std::string() : in.SuName(sl.first) + " ") +
                         "port " + std::to_string(sl.second);
  };
  for (auto& [slot, v] : slots) {
    std::stable_sort(v.begin(), v.end(), [&](const Attach& a, const Attach& b) {
      return static_cast<unsigned>(in.sws[a.sw].rail) < static_cast<unsigned>(in.sws[b.sw].rail);
    });
    std::vector<int> leaves;
    for (const Attach& a : v)
      if (std::find(leaves.begin(), leaves.end(), a.sw) == leaves.end()) leaves.push_back(a.sw);
    const int su = slot.first;
    const std::string port = std::to_string(slot.second);
    std::string where = v.size() == 1
                            ? "the HCA on port " + port + " of "
                            : "the " + std::to_string(v.size()) + " HCAs on port " + port + " of ";
    const std::string& first = in.sws[leaves.front()].display;
    const std::string& last = in.sws[leaves.back()].display;
    if (leaves.size() == 1) {
      where += first;
    } else {
      where += (su >= 0 ? in.SuName(su) + "'s leaves (" : "(") + first +
               (leaves.size() == 2 ? " and " : " to ") + last + ")";
    }
    const Attach& a0 = v.front();
    where += (v.size() == 1 ? " is described \"" : " are described \"") +
             au->f.nodes[a0.ca].description + (v.size() == 1 ? "\"" : "\" and so on");
    const bool repeated = in.ca[a0.ca].role == CaRole::kAnonymous && in.ca[a0.ca].host >= 0;
    std::string msg = where;
    if (repeated) {
      const std::vector<Slot>& hs = host_slots[in.ca[a0.ca].host];
      bool same_su = true;
      for (const Slot& sl : hs) same_su = same_su && sl.first == hs.front().first;
      std::string list;
      for (size_t i = 0; i < hs.size(); ++i)
        list += (i == 0 ? "" : i + 1 == hs.size() ? " and " : ", ") + slot_name(hs[i], same_su);
      msg += std::string(": a host name that the hosts on ") + (same_su ? "ports " : "") + list +
             (hs.size() == 2 ? " both" : " all") + " give, so " +
             (hs.size() == 2 ? "neither" : "none") + " is left in the topology";
    } else {
      msg += ": a default host name, so the host is left out of the topology";
    }
    const std::string probable = su >= 0 ? ProbableName(in, su, slot.second) : "";
    if (!probable.empty())
      msg += "; probably " + probable + " (" + in.SuName(su) + "'s hosts are named by port)";
    msg += repeated ? "; expected each host's own name"
                    : "; expected the host's own name (set it, then restart rdma-ndd)";
    au->Add("host-name", probable, "", leaves.front(), slot.second, msg);
  }
}

// "not a compute host: it has links on 2 of su2's 4 rails, ..." for an appliance told by its
// structure (see FindAppliances), cabled to `sw`.
std::string StructureReason(const Inference& in, const CaInfo& ci, int sw) {
  const int su = sw >= 0 ? in.sws[sw].su : kNoSu;
  const std::string of = su >= 0 ? in.SuName(su) + "'s" : "its SU's";
  return "not a compute host: it has links on " + std::to_string(ci.rails_on) + " of " + of + " " +
         Plural(ci.su_rails, "rail") + ", on ports beyond the " + std::to_string(ci.lo) + " to " +
         std::to_string(ci.hi) + " " + of.substr(0, of.size() - 2) + "'s hosts use";
}

// stray-leaf: switches with HCAs whose rail cannot be told (not-rail-optimized covers the case
// of no rails at all).
void CheckStrayLeaves(Auditor* au) {
  const Inference& in = au->in;
  if (in.rails.empty()) return;
  for (size_t sw = 0; sw < in.sws.size(); ++sw) {
    const SwInfo& s = in.sws[sw];
    if (!s.has_hosts || s.rail >= 0) continue;
    const int dev = s.majority_dev;
    const std::string why =
        dev < 0               ? "none of whose HCAs names its device, so its rail cannot be told"
        : in.rail_order_given ? "mostly " + in.devs[dev] + ", which is not in --rail-order"
                              : "mostly " + in.devs[dev] + ", which no SU's hosts use for a rail";
    au->Add("stray-leaf", "", dev >= 0 ? in.devs[dev] : "", static_cast<int>(sw), 0,
            s.display + " has " + Plural(static_cast<long>(s.attaches.size()), "host HCA") + ", " +
                why + "; left out of the topology");
  }
  for (size_t sw = 0; sw < in.sws.size(); ++sw) {
    if (in.sws[sw].has_hosts || !in.sws[sw].has_unnamed) continue;
    int n = 0;
    for (const Attach& a : in.unnamed) n += a.sw == static_cast<int>(sw);
    au->Add("stray-leaf", "", "", static_cast<int>(sw), 0,
            in.sws[sw].display + " has " + Plural(n, "unnamed HCA") +
                " and no named one, so its rail and SU cannot be told; left out of the topology");
  }
}

// duplicate-leaf and missing-leaf: SUs with other than one leaf for a rail.
void CheckSuLeaves(Auditor* au) {
  const Inference& in = au->in;
  for (const DuplicateLeaf& d : in.duplicate_leaves) {
    const std::string& drop = in.sws[d.drop].display;
    au->Add("duplicate-leaf", "", in.Nic(d.su, d.rail), d.drop, 0,
            in.SuName(d.su) + " has two leaves for " + au->RailLabel(d.su, d.rail) +
                ": " + d.keep_name + " (" + Plural(d.keep_links, "host link") + ") and " + drop +
                " (" + Plural(d.drop_links, "host link") + "); left out " + drop +
                "; expected one leaf per rail");
  }
  for (size_t s = 0; s < in.su_leaf.size(); ++s) {
    for (int r = 0; r < static_cast<int>(in.rails.size()); ++r) {
      if (in.su_leaf[s][r] >= 0) continue;
      std::vector<std::string> names;
      for (int h : in.su_hosts[s]) names.push_back(in.hosts[h]);
      const std::string& nic = in.Nic(static_cast<int>(s), r);
      au->Add("missing-leaf", "", nic, -1, 0,
              in.SuName(static_cast<int>(s)) + " has no leaf for " +
                  au->RailLabel(static_cast<int>(s), r) + ": none of its " +
                  Plural(static_cast<long>(in.su_hosts[s].size()), "host") + " (" +
                  CompressHostlistSorted(names) + ") has a " +
                  (nic.empty() ? "link for it" : nic + " link") +
                  "; expected one leaf per rail in every SU");
    }
  }
}

// Per host, per rail: the host has a link there (on an SU leaf or a duplicate leaf).
using HostRails = std::vector<std::vector<char>>;

// su-mismatch or rail-mismatch: HCA `a`, of `rail`, on a leaf that is not its SU's leaf for it.
void CheckCabling(Auditor* au, const Attach& a, int rail) {
  const Inference& in = au->in;
  const SwInfo& sw = in.sws[a.sw];
  const CaInfo& ci = in.ca[a.ca];
  const std::string& host = au->HostName(a.ca);
  const std::string& dev = au->DevName(a.ca);
  const int home = in.host_su[ci.host];
  if (sw.su != home) {
    const std::string label = au->CaLabel(a.ca);
    const int expected = home >= 0 ? in.su_leaf[home][rail] : -1;
    const std::string where = sw.su >= 0 ? "a leaf of " + in.SuName(sw.su)
                                         : "a leaf that serves no SU of its own";
    const std::string want = home < 0 ? "a leaf of the host's own SU"
                             : expected >= 0
                                 ? in.sws[expected].display + ", the " + au->RailLabel(home, rail) +
                                       " leaf of its own SU " + in.SuName(home)
                                 : in.SuName(home) + "'s leaf for " +
                                       au->RailLabel(home, rail) + ", which is missing";
    au->Add("su-mismatch", host, dev, a.sw, a.sw_port,
            label + " is cabled to " + au->SwPort(a.sw, a.sw_port) + ", " + where + "; expected " +
                want);
  } else if (sw.rail != rail) {
    const int expected = in.su_leaf[home][rail];
    au->Add(
        "rail-mismatch", host, dev, a.sw, a.sw_port,
        au->CaLabel(a.ca) + " is cabled to " + au->SwPort(a.sw, a.sw_port) + ", the leaf of " +
            au->RailLabel(home, sw.rail) + "; expected " +
            (expected >= 0 ? in.sws[expected].display + ", the leaf of " + au->RailLabel(home, rail)
                           : "the leaf of " + au->RailLabel(home, rail) + ", which is missing") +
            " (swapped cables?)");
  }
}

// duplicate-hca, stray-hca, su-mismatch, rail-mismatch and link-speed for each compute HCA on
// a rail leaf. Returns which rails each host has a link on.
HostRails CheckAttachments(Auditor* au) {
  const Inference& in = au->in;
  HostRails host_has(in.hosts.size(), std::vector<char>(in.rails.size(), 0));
  std::unordered_map<uint64_t, int> seen;  // (host << 32 | dev) -> CA
  seen.reserve(in.attaches.size());
  std::map<int, std::pair<const Attach*, int>> foreign;  // host -> (first HCA, node type)
  for (const Attach& a : in.attaches) {
    const SwInfo& sw = in.sws[a.sw];
    const CaInfo& ci = in.ca[a.ca];
    const std::string& host = au->HostName(a.ca);
    const std::string& dev = au->DevName(a.ca);
    if (ci.dev >= 0) {
      const uint64_t key = static_cast<uint64_t>(ci.host) << 32 | static_cast<uint64_t>(ci.dev);
      auto [it, fresh] = seen.emplace(key, a.ca);
      if (!fresh && it->second != a.ca) {
        au->Add("duplicate-hca", host, dev, a.sw, a.sw_port,
                "two HCAs are described \"" + host + " " + dev + "\": \"" +
                    au->f.nodes[it->second].id + "\" and \"" + au->f.nodes[a.ca].id + "\" (on " +
                    au->SwPort(a.sw, a.sw_port) + "); expected unique host names");
      }
    }
    if (sw.rail < 0) continue;  // stray-leaf says it
    int rail = sw.rail;
    if (ci.dev >= 0) {
      rail = in.DevRail(in.host_su[ci.host], ci.dev);
      if (rail < 0) {
        au->Add("stray-hca", host, dev, a.sw, a.sw_port,
                host + " " + dev + " on " + au->SwPort(a.sw, a.sw_port) +
                    " is not an HCA of any rail; expected one of the rail HCAs (" +
                    au->RailList(in.host_su[ci.host]) + ")");
        continue;
      }
      const int home = in.host_su[ci.host];
      if (home >= 0 && in.type_dev_rail[in.su_type[home]][ci.dev] < 0) {
        int t = 0;
        while (in.type_dev_rail[t][ci.dev] < 0) ++t;  // DevRail found it in some type
        foreign.emplace(ci.host, std::make_pair(&a, t));
      }
    }
    if (sw.su == kDuplicate) {
      // duplicate-leaf says it; the host is not missing this rail.
      if (rail == sw.rail) host_has[ci.host][rail] = 1;
      continue;
    }
    host_has[ci.host][rail] = 1;
    CheckCabling(au, a, rail);
    const std::string& token = au->f.links[a.link].Token();
    const std::string& want = in.rail_token[sw.rail];
    if (!want.empty() && token != want && LinkSlower(token, want)) {
      au->Add("link-speed", host, dev, a.sw, a.sw_port,
              au->CaLabel(a.ca) + " on " + au->SwPort(a.sw, a.sw_port) + " trains at " + token +
                  "; expected " + want + " like most links of " + au->RailLabel(sw.su, sw.rail));
    }
  }
  // nic-naming: a host that names its HCAs like another node type's hosts.
  for (const auto& [h, first] : foreign) {
    const Attach& a = *first.first;
    const int home = in.host_su[h];
    std::string theirs;
    for (const std::string& nic : in.type_nics[first.second])
      if (!nic.empty()) theirs += (theirs.empty() ? "" : ", ") + nic;
    au->Add("nic-naming", in.hosts[h], au->DevName(a.ca), a.sw, a.sw_port,
            in.hosts[h] + " names its rail HCAs like the hosts of " + SusOfType(in, first.second) +
                " (" + theirs + "), not like the other hosts of " + in.SuName(home) + " (" +
                au->RailList(home) + "); the one node type of " + in.SuName(home) +
                " cannot describe it; expected the HCA names of its SU's other hosts");
  }
  return host_has;
}

// (su, rail) -> hosts of the SU without a link on that rail.
using Missing = std::map<std::pair<int, int>, std::vector<int>>;

// unnamed-hca for each unnamed HCA, in switch and port order. One on an SU's leaf is most
// likely the HCA a host of that SU lacks: the one that sits on the same port of its other
// leaves, or else the only one lacking that rail; that host is taken out of `missing`.
void CheckUnnamed(Auditor* au, Missing* missing) {
  const Inference& in = au->in;
  std::vector<Attach> sorted = in.unnamed;
  std::sort(sorted.begin(), sorted.end(), [](const Attach& a, const Attach& b) {
    return a.sw != b.sw ? a.sw < b.sw : a.sw_port < b.sw_port;
  });
  for (const Attach& a : sorted) {
    const IbNode& n = au->f.nodes[a.ca];
    const SwInfo& sw = in.sws[a.sw];
    std::string msg = "\"" + n.id + "\" has the default description \"" + n.description +
                      "\" and cannot be named; it is cabled to " + au->SwPort(a.sw, a.sw_port);
    std::string node;
    std::string hca;
    auto it = sw.rail >= 0 && sw.su >= 0 ? missing->find({sw.su, sw.rail}) : missing->end();
    if (it != missing->end()) {
      std::vector<int>& hs = it->second;
      int guess = -1;
      std::string why;
      for (int h : hs)
        if (in.host_port[h] == a.sw_port) guess = h;
      if (guess >= 0) {
        why = in.hosts[guess] + " lacks a " + in.Nic(sw.su, sw.rail) + " link and uses port " +
              std::to_string(a.sw_port) + " on its other leaves";
      } else if (hs.size() == 1) {
        guess = hs.front();
        why = "the only host of " + in.SuName(sw.su) + " without a " +
              in.Nic(sw.su, sw.rail) + " link";
      }
      if (guess >= 0) {
        node = in.hosts[guess];
        hca = in.Nic(sw.su, sw.rail);
        msg += "; probably " + node + " " + hca + " (" + why + ")";
        hs.erase(std::find(hs.begin(), hs.end(), guess));
      }
    }
    au->Add("unnamed-hca", node, hca, a.sw, a.sw_port,
            msg + "; expected a description \"<host> <device>\" (rdma-ndd) or a --node-map entry");
  }
}

// unnamed-hca, then missing-link for each host of an SU without a link on a rail its SU has a
// leaf for (and no unnamed HCA that is probably it).
void CheckMissing(Auditor* au, const HostRails& host_has) {
  const Inference& in = au->in;
  Missing missing;
  for (size_t s = 0; s < in.su_hosts.size(); ++s)
    for (int r = 0; r < static_cast<int>(in.rails.size()); ++r)
      if (in.su_leaf[s][r] >= 0)
        for (int h : in.su_hosts[s])
          if (!host_has[h][r]) missing[{static_cast<int>(s), r}].push_back(h);
  CheckUnnamed(au, &missing);
  for (const auto& [key, hs] : missing) {
    const auto [s, r] = key;
    const int leaf = in.su_leaf[s][r];
    for (int h : hs) {
      const int port =
          in.host_port[h] > 0 && au->f.FindLink(leaf, in.host_port[h]) < 0 ? in.host_port[h] : 0;
      const std::string& nic = in.Nic(s, r);
      au->Add("missing-link", in.hosts[h], nic, leaf, port,
              in.hosts[h] + " has no " + (nic.empty() ? "" : nic + " ") + "link (rail " +
                  std::to_string(r) + "); expected a cable to " +
                  (port ? au->SwPort(leaf, port) : in.sws[leaf].display));
    }
  }
}

// leaf-link and link-speed for the links between switches. Returns, per switch node, its
// cables to switches without HCAs (a leaf's uplinks to spines).
std::vector<int> CheckSwitchLinks(Auditor* au) {
  const Inference& in = au->in;
  std::vector<int> uplinks(in.sws.size(), 0);
  std::map<std::string, int> counts;
  for (int li : in.switch_links) {
    const IbLink& l = au->f.links[li];
    ++counts[l.Token()];
    const SwInfo& a = in.sws[l.a.node];
    const SwInfo& b = in.sws[l.b.node];
    if (a.HasHcas() && b.HasHcas()) {
      // Without rails there are no leaves in the rail sense (not-rail-optimized says so).
      if (in.rails.empty()) continue;
      au->Add("leaf-link", "", "", l.a.node, l.a.port,
              au->SwPort(l.a.node, l.a.port) + " is cabled to " + au->SwPort(l.b.node, l.b.port) +
                  ", another leaf; expected leaves to connect only to spines");
    } else if (a.HasHcas() != b.HasHcas()) {
      ++uplinks[a.HasHcas() ? l.a.node : l.b.node];
    }
  }
  const std::string want = TokenMode(counts);
  for (int li : in.switch_links) {
    const IbLink& l = au->f.links[li];
    if (l.Token() != want && LinkSlower(l.Token(), want)) {
      au->Add("link-speed", "", "", l.a.node, l.a.port,
              "switch link " + au->SwPort(l.a.node, l.a.port) + " - " +
                  au->SwPort(l.b.node, l.b.port) + " trains at " + l.Token() + "; expected " +
                  want + " like most switch links");
    }
  }
  return uplinks;
}

// uplink-deficit: SU leaves with fewer uplinks than most SU leaves.
void CheckUplinks(Auditor* au, const std::vector<int>& uplinks) {
  const Inference& in = au->in;
  std::map<int, int> uplink_counts;
  for (const std::vector<int>& per_su : in.su_leaf)
    for (int sw : per_su)
      if (sw >= 0) ++uplink_counts[uplinks[sw]];
  const int mode = Mode<int>(
      uplink_counts, [](int a, int b) { return a > b; }, 0);
  for (const std::vector<int>& per_su : in.su_leaf) {
    for (int sw : per_su) {
      if (sw < 0 || uplinks[sw] >= mode) continue;
      au->Add("uplink-deficit", "", in.Nic(in.sws[sw].su, in.sws[sw].rail), sw, 0,
              in.sws[sw].display + " has " + Plural(uplinks[sw], "uplink") +
                  " to spines; expected " + std::to_string(mode) + " like most leaves");
    }
  }
}

void CheckLoopbacks(Auditor* au) {
  for (int li : au->in.loopbacks) {
    const IbLink& l = au->f.links[li];
    au->Add("loopback", "", "", l.a.node, l.a.port,
            au->SwPort(l.a.node, l.a.port) + " is cabled to port " + std::to_string(l.b.port) +
                " of the same switch; expected a cable to another switch or a host");
  }
}

// link-disagree: links whose two ends print different widths or speeds.
void CheckLinkEnds(Auditor* au) {
  const IbFabric& f = au->f;
  for (size_t li = 0; li < f.links.size(); ++li) {
    const IbLink& l = f.links[li];
    if (l.token_a.empty() || l.token_b.empty() || l.token_a == l.token_b) continue;
    const bool a_sw = f.nodes[l.a.node].type == IbNodeType::kSwitch;
    const IbPort sw = a_sw ? l.a : l.b;
    auto end = [&](const IbPort& p, const std::string& token) {
      const IbNode& n = f.nodes[p.node];
      const std::string who = n.type == IbNodeType::kSwitch ? au->in.sws[p.node].display
                              : au->in.ca[p.node].host >= 0 ? au->CaLabel(p.node)
                                                            : "\"" + n.id + "\"";
      return who + " port " + std::to_string(p.port) + " reports " + token;
    };
    const bool ca_end = !a_sw || f.nodes[l.b.node].type != IbNodeType::kSwitch;
    const int ca = !a_sw ? l.a.node : l.b.node;
    au->Add("link-disagree", ca_end ? au->HostName(ca) : "", ca_end ? au->DevName(ca) : "",
            f.nodes[sw.node].type == IbNodeType::kSwitch ? sw.node : -1, sw.port,
            "the two ends of one link disagree: " + end(l.a, l.token_a) + ", " +
                end(l.b, l.token_b) + "; expected both ends to train alike (counted as " +
                l.Token() + ")");
  }
}

// link-speed for the HCA links CheckAttachments does not judge (unnamed HCAs, and compute HCAs
// on switches that are no rail's leaf or a duplicate leaf), against the fabric's usual HCA link.
void CheckOtherHcaLinks(Auditor* au) {
  const Inference& in = au->in;
  auto check = [&](const Attach& a) {
    if (in.sws[a.sw].rail >= 0 && in.sws[a.sw].su != kDuplicate) {
      if (in.ca[a.ca].role == CaRole::kCompute) return;  // CheckAttachments did it
    }
    const std::string want = au->ExpectedToken(a.sw);
    const std::string& token = au->f.links[a.link].Token();
    if (want.empty() || token == want || !LinkSlower(token, want)) return;
    au->Add("link-speed", au->HostName(a.ca), au->DevName(a.ca), a.sw, a.sw_port,
            au->CaLabel(a.ca) + " on " + au->SwPort(a.sw, a.sw_port) + " trains at " + token +
                "; expected " + want +
                (in.sws[a.sw].rail >= 0
                     ? " like most links of " + au->RailLabel(in.sws[a.sw].su, in.sws[a.sw].rail)
                     : " like most HCA links"));
  };
  for (const Attach& a : in.attaches) check(a);
  for (const Attach& a : in.unnamed) check(a);
}

// non-compute: says what each such CA is and where it hangs.
void CheckNonCompute(Auditor* au) {
  const IbFabric& f = au->f;
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    const CaInfo& ci = au->in.ca[i];
    if (ci.role != CaRole::kNonCompute || ci.service_group >= 0) continue;
    int sw = -1;
    int port = 0;
    for (int p = 1; p <= std::max(f.nodes[i].ports, 1) && sw < 0; ++p) {
      const int li = f.FindLink(static_cast<int>(i), p);
      if (li < 0) continue;
      const IbPort peer = f.Peer(f.links[li], static_cast<int>(i), p);
      if (f.nodes[peer.node].type == IbNodeType::kSwitch) {
        sw = peer.node;
        port = peer.port;
      }
    }
    const std::string label =
        ci.host >= 0 ? au->CaLabel(static_cast<int>(i))
                     : "\"" + f.nodes[i].id + "\" (\"" + f.nodes[i].description + "\")";
    au->Add("non-compute", au->HostName(static_cast<int>(i)), au->DevName(static_cast<int>(i)), sw,
            port,
            label + (sw >= 0 ? " on " + au->SwPort(sw, port) : std::string()) + " is " +
                (ci.su_rails > 0 ? StructureReason(au->in, ci, sw) : ci.reason) +
                "; left out of the topology");
  }
}

void SortFindings(std::vector<Finding>* v) {
  std::stable_sort(v->begin(), v->end(), [](const Finding& a, const Finding& b) {
    const int ka = KindRank(a.kind);
    const int kb = KindRank(b.kind);
    if (ka != kb) return ka < kb;
    if (a.node != b.node) {
      if (a.node.empty() || b.node.empty()) return b.node.empty();
      return HostLess(a.node, b.node);
    }
    if (a.hca != b.hca) return NaturalLess(a.hca, b.hca);
    if (a.switch_name != b.switch_name) return NaturalLess(a.switch_name, b.switch_name);
    return a.port < b.port;
  });
}

}  // namespace

std::vector<Finding> Audit(const IbFabric& fabric, const Inference& in) {
  Auditor au{fabric, in, {}};
  for (const Diag& w : fabric.warnings) au.Add("ibnetdiscover-error", "", "", -1, 0, w.ToString());
  CheckStrayLeaves(&au);
  CheckRailsFound(&au);
  CheckRailAlignment(&au);
  for (const Inference::Note& n : in.notes) au.Add(n.kind, "", "", n.sw, 0, n.message);
  CheckSuLeaves(&au);
  const HostRails host_has = CheckAttachments(&au);
  CheckMissing(&au, host_has);
  CheckHostNames(&au);
  const std::vector<int> uplinks = CheckSwitchLinks(&au);
  CheckUplinks(&au, uplinks);
  CheckLoopbacks(&au);
  CheckLinkEnds(&au);
  CheckOtherHcaLinks(&au);
  CheckNonCompute(&au);
  SortFindings(&au.findings);
  return std::move(au.findings);
}

}  // namespace railguard::topo
