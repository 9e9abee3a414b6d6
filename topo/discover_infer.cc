// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/discover_infer.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "base/names.h"
#include "topo/hostlist.h"

namespace railguard::topo {
std::string SwitchNameFromDescription(const std::string& desc) {
  size_t semi = desc.find(';');
  if (semi != std::string::npos) {
    size_t colon = desc.find(':', semi + 1);
    if (colon != std::string::npos && colon > semi + 1)
      return desc.substr(semi + 1, colon - semi - 1);
  }
  return desc;
}

namespace {

// At most this many of one host's leaves are paired when grouping leaves into SUs; real hosts
// have a handful of HCAs, and the cap keeps a pathological dump from going quadratic.
constexpr size_t kMaxLeavesPerHost = 64;

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

// The host and device a CA description names: "<host> <device>" as rdma-ndd sets it, or
// "<host>" alone (device left empty). False for anything else.
bool SplitHcaName(std::string_view desc, std::string_view* host, std::string_view* dev) {
  size_t b = 0;
  while (b < desc.size() && IsBlank(desc[b])) ++b;
  size_t e = b;
  while (e < desc.size() && !IsBlank(desc[e])) ++e;
  *host = desc.substr(b, e - b);
  size_t d = e;
  while (d < desc.size() && IsBlank(desc[d])) ++d;
  size_t de = d;
  while (de < desc.size() && !IsBlank(desc[de])) ++de;
  *dev = desc.substr(d, de - d);
  size_t end = de;
  while (end < desc.size() && IsBlank(desc[end])) ++end;
  return end == desc.size() && IsSafeName(*host) && (dev->empty() || IsSafeName(*dev));
}

// The description an HCA has before anyone names it: "MT4129 ConnectX7 Mellanox Technologies",
// "MT25408 ConnectX Mellanox Technologies", ...
bool LooksDefault(std::string_view desc) {
  if (desc.size() >= 3 && desc[0] == 'M' && desc[1] == 'T' &&
      std::isdigit(static_cast<unsigned char>(desc[2])))
    return true;
  return desc.find("Mellanox Technologies") != std::string_view::npos ||
         desc.find("ConnectX") != std::string_view::npos;
}

// The first word of `desc`.
std::string_view FirstWord(std::string_view desc) {
  size_t b = 0;
  while (b < desc.size() && IsBlank(desc[b])) ++b;
  size_t e = b;
  while (e < desc.size() && !IsBlank(desc[e])) ++e;
  return desc.substr(b, e - b);
}

// The names a host reports before its own is set: rdma-ndd writes the node description from the
// host name at boot, so an image booted without one says "localhost mlx5_0" or "(none) HCA-1".
bool IsDefaultHost(std::string_view host) {
  for (const char* d : {"localhost", "localhost.localdomain", "ubuntu", "(none)"})
    if (host == d) return true;
  return false;
}

// Appliances are named after what they are: "ufm01", "r-ufm216", "mgmt_ufm2" (UFM servers),
// "storage01", "r-mgmt2": `word` at the start of the host name or after '-', '_' or '.'.
bool NamedAfter(std::string_view host, std::string_view word) {
  for (size_t i = 0; i + word.size() <= host.size(); ++i) {
    if (i > 0 && host[i - 1] != '-' && host[i - 1] != '_' && host[i - 1] != '.') continue;
    size_t k = 0;
    while (k < word.size() && std::tolower(static_cast<unsigned char>(host[i + k])) == word[k]) ++k;
    if (k == word.size()) return true;
  }
  return false;
}

// Why a host is an appliance by its name ("a UFM host"), or nullptr.
const char* ApplianceByName(std::string_view host) {
  if (NamedAfter(host, "ufm")) return "a UFM host";
  if (NamedAfter(host, "storage")) return "a storage host";
  if (NamedAfter(host, "mgmt")) return "a management host";
  return nullptr;
}

// Names in the order first seen, with their index.
struct NameTable {
  std::vector<std::string>* names;
  std::unordered_map<std::string, int> index;

  int Intern(std::string_view name) {
    auto [it, fresh] = index.emplace(std::string(name), static_cast<int>(names->size()));
    if (fresh) names->push_back(std::string(name));
    return it->second;
  }
};

bool MatchesExclude(std::string_view text, const std::regex& exclude) {
  try {
    return std::regex_search(text.begin(), text.end(), exclude);
  } catch (const std::regex_error&) {
    return false;  // too complex to evaluate: treat as no match
  }
}

// One CA: its role, and its host and device when it has a name.
CaInfo ClassifyCa(const IbNode& n, const DiscoverOptions& opts, NameTable* hosts, NameTable* devs) {
  CaInfo ci;
  if (n.type == IbNodeType::kRouter) {
    ci.role = CaRole::kNonCompute;
    ci.reason = "an InfiniBand router";
    return ci;
  }
  if (n.description.find("Aggregation Node") != std::string::npos) {
    ci.role = CaRole::kNonCompute;
    ci.reason = "a SHARP aggregation node";
    return ci;
  }
  // "<host> <device>" as rdma-ndd sets it; "<host>" alone names the host only.
  std::string_view text = n.description;
  std::string_view host;
  std::string_view dev;
  const bool default_host = !LooksDefault(text) && IsDefaultHost(FirstWord(text));
  bool named = !LooksDefault(text) && !default_host && SplitHcaName(text, &host, &dev);
  if (!named) {
    auto it = opts.node_map.find(n.guid);
    if (it != opts.node_map.end() && SplitHcaName(it->second, &host, &dev)) {
      text = it->second;
      named = true;
    }
  }
  if (named) {
    ci.host = hosts->Intern(host);
    if (!dev.empty()) ci.dev = devs->Intern(dev);
  }
  if (opts.exclude && MatchesExclude(text, *opts.exclude)) {
    ci.role = CaRole::kNonCompute;
    ci.reason = "matched by --exclude";
  } else if (!named) {
    ci.role = default_host ? CaRole::kAnonymous : CaRole::kUnnamed;
    if (default_host) ci.reason = "default";
  } else if (const char* why = ApplianceByName(host)) {
    ci.role = CaRole::kNonCompute;
    ci.reason = why;
  } else {
    ci.role = CaRole::kCompute;
  }
  return ci;
}

void ClassifyCas(const IbFabric& f, const DiscoverOptions& opts, const Appliances& appliances,
                 Inference* in, std::unordered_map<std::string, int>* dev_index) {
  NameTable hosts{&in->hosts, {}};
  NameTable devs{&in->devs, {}};
  in->ca.resize(f.nodes.size());
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    const IbNode& n = f.nodes[i];
    if (n.type == IbNodeType::kSwitch) {
      in->ca[i].role = CaRole::kSwitch;
      ++in->counts.switches;
      continue;
    }
    ++in->counts.cas;
    in->ca[i] = ClassifyCa(n, opts, &hosts, &devs);
    auto app = appliances.find(static_cast<int>(i));
    if (app != appliances.end() && in->ca[i].role == CaRole::kCompute) {
      const int host = in->ca[i].host;
      const int dev = in->ca[i].dev;
      in->ca[i] = app->second;
      in->ca[i].role = CaRole::kNonCompute;
      in->ca[i].host = host;
      in->ca[i].dev = dev;
    }
    if (in->ca[i].role == CaRole::kNonCompute) ++in->counts.non_compute;
  }
  *dev_index = std::move(devs.index);
}

void ClassifyLinks(const IbFabric& f, Inference* in) {
  in->sws.resize(f.nodes.size());
  std::vector<Attach> compute;
  std::vector<Attach> anonymous;
  for (int li = 0; li < static_cast<int>(f.links.size()); ++li) {
    const IbLink& l = f.links[li];
    const bool a_sw = f.nodes[l.a.node].type == IbNodeType::kSwitch;
    const bool b_sw = f.nodes[l.b.node].type == IbNodeType::kSwitch;
    if (l.a.node == l.b.node) {
      if (a_sw) in->loopbacks.push_back(li);
      continue;
    }
    if (a_sw && b_sw) {
      in->switch_links.push_back(li);
      continue;
    }
    if (a_sw == b_sw) continue;  // CA to CA: not part of a switched fabric
    const IbPort ca = a_sw ? l.b : l.a;
    const IbPort sw = a_sw ? l.a : l.b;
    Attach at{ca.node, sw.node, sw.port, li};
    if (in->ca[ca.node].role == CaRole::kCompute) {
      compute.push_back(at);
    } else if (in->ca[ca.node].role == CaRole::kUnnamed) {
      in->sws[sw.node].has_unnamed = true;
      in->unnamed.push_back(at);
    } else if (in->ca[ca.node].role == CaRole::kAnonymous) {
      anonymous.push_back(at);
    }
  }
  // A host name that several hosts give: more than one of its devices is on two or more HCAs
  // (one device twice is one mislabelled HCA: duplicate-hca).
  std::unordered_map<uint64_t, std::unordered_set<int>> dev_cas;  // host << 32 | dev -> CAs
  for (const Attach& a : compute) {
    const CaInfo& ci = in->ca[a.ca];
    if (ci.dev >= 0)
      dev_cas[static_cast<uint64_t>(ci.host) << 32 | static_cast<uint64_t>(ci.dev)].insert(a.ca);
  }
  std::unordered_map<int, int> twice;  // host -> devices on two or more HCAs
  for (const auto& [key, cas] : dev_cas)
    if (cas.size() >= 2) ++twice[static_cast<int>(key >> 32)];
  for (const Attach& a : compute) {
    CaInfo& ci = in->ca[a.ca];
    auto it = twice.find(ci.host);
    if (it != twice.end() && it->second >= 2) {
      ci.role = CaRole::kAnonymous;
      ci.reason = "repeated";
      anonymous.push_back(a);
      continue;
    }
    in->sws[a.sw].attaches.push_back(static_cast<int>(in->attaches.size()));
    in->sws[a.sw].has_hosts = true;
    in->attaches.push_back(a);
  }
  std::sort(anonymous.begin(), anonymous.end(),
            [](const Attach& a, const Attach& b) { return a.link < b.link; });
  for (const Attach& a : anonymous) in->sws[a.sw].has_anonymous = true;
  in->anonymous = std::move(anonymous);
  in->counts.links = static_cast<int>(f.links.size());
  std::unordered_set<int> hcas;
  for (const Attach& a : in->attaches) hcas.insert(a.ca);
  in->counts.hcas = static_cast<int>(hcas.size());
  std::unordered_set<int> unnamed;
  for (const Attach& a : in->unnamed) unnamed.insert(a.ca);
  in->counts.unnamed = static_cast<int>(unnamed.size());
}

void NameSwitches(const IbFabric& f, Inference* in) {
  // A switch keeps the name in its description when that is a valid, unique name.
  std::unordered_map<std::string, int> uses;
  std::vector<std::string> parsed(f.nodes.size());
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    if (f.nodes[i].type != IbNodeType::kSwitch) continue;
    parsed[i] = SwitchNameFromDescription(f.nodes[i].description);
    ++uses[parsed[i]];
  }
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    if (f.nodes[i].type != IbNodeType::kSwitch) continue;
    SwInfo& s = in->sws[i];
    if (IsSafeName(parsed[i]) && uses[parsed[i]] == 1) s.yaml_name = parsed[i];
    s.display = s.yaml_name.empty() ? f.nodes[i].id : s.yaml_name;
    s.guid = GuidString(f.nodes[i].guid);
  }
}

// Each leaf's majority device: the device most of its HCAs are. A leaf is a rail leaf (grouped
// into SUs) when it has one, and it is in a --rail-order list when lists are given.
void MajorityDevs(const DiscoverOptions& opts, Inference* in) {
  std::unordered_set<std::string> listed(opts.rail_order.begin(), opts.rail_order.end());
  for (const std::vector<std::string>& l : opts.other_rail_orders)
    listed.insert(l.begin(), l.end());
  auto dev_less = [&](int a, int b) {
    return b < 0 || (a >= 0 && NaturalLess(in->devs[a], in->devs[b]));
  };
  for (SwInfo& sw : in->sws) {
    if (!sw.has_hosts) continue;
    std::map<int, int> counts;
    for (int ai : sw.attaches) {
      const int dev = in->ca[in->attaches[ai].ca].dev;
      if (dev >= 0) ++counts[dev];
    }
    sw.majority_dev = Mode<int>(counts, dev_less, -1);
    sw.rail_leaf =
        sw.majority_dev >= 0 && (listed.empty() || listed.count(in->devs[sw.majority_dev]));
  }
}

// What each rail's links should train to: the most common link on its leaves.
void InferLinkTokens(const IbFabric& f, Inference* in) {
  std::vector<std::map<std::string, int>> per_rail(in->rails.size());
  std::map<std::string, int> all;
  for (const Attach& a : in->attaches) {
    const std::string& token = f.links[a.link].Token();
    ++all[token];
    if (in->sws[a.sw].rail >= 0) ++per_rail[in->sws[a.sw].rail][token];
  }
  for (const Attach& a : in->unnamed) ++all[f.links[a.link].Token()];
  for (const auto& counts : per_rail) in->rail_token.push_back(TokenMode(counts));
  in->host_token = TokenMode(all);
  // A rail no leaf carries (named only by --rail-order) gets the fabric's usual HCA link.
  for (std::string& token : in->rail_token)
    if (token.empty()) token = in->host_token;
}

// Per host: the group of its leaves that holds most of its links, or -1. Two rail leaves are
// in one group when most hosts of the smaller one are on both.
std::vector<int> GroupHosts(const Inference& in, UnionFind* uf) {
  // Each host's distinct rail leaves.
  std::vector<std::vector<int>> host_leaves(in.hosts.size());
  for (const Attach& a : in.attaches) {
    if (!in.sws[a.sw].rail_leaf) continue;
    std::vector<int>& v = host_leaves[in.ca[a.ca].host];
    if (std::find(v.begin(), v.end(), a.sw) == v.end() && v.size() < kMaxLeavesPerHost)
      v.push_back(a.sw);
  }
  std::vector<int> leaf_hosts(in.sws.size(), 0);
  std::unordered_map<uint64_t, int> shared;  // (leaf << 32 | leaf) -> hosts on both
  for (const std::vector<int>& v : host_leaves) {
    for (size_t i = 0; i < v.size(); ++i) {
      ++leaf_hosts[v[i]];
      for (size_t j = i + 1; j < v.size(); ++j) {
        const uint64_t lo = static_cast<uint64_t>(std::min(v[i], v[j]));
        const uint64_t hi = static_cast<uint64_t>(std::max(v[i], v[j]));
        ++shared[lo << 32 | hi];
      }
    }
  }
  for (const auto& [key, n] : shared) {
    const int a = static_cast<int>(key >> 32);
    const int b = static_cast<int>(key & 0xffffffffu);
    if (2 * n > std::min(leaf_hosts[a], leaf_hosts[b])) uf->Union(a, b);
  }
  std::vector<int> host_group(in.hosts.size(), -1);
  for (size_t h = 0; h < in.hosts.size(); ++h) {
    std::map<int, int> votes;
    for (int sw : host_leaves[h]) ++votes[uf->Find(sw)];
    host_group[h] = Mode<int>(
        votes, [](int a, int b) { return a < b; }, -1);
  }
  return host_group;
}

// Sets Inference::host_rank: Slurm host order, computed once, as HostLess is far dearer than
// comparing ranks.
void RankHosts(Inference* in) {
  std::vector<int> by_name(in->hosts.size());
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(),
            [&](int a, int b) { return HostLess(in->hosts[a], in->hosts[b]); });
  in->host_rank.assign(in->hosts.size(), 0);
  for (size_t i = 0; i < by_name.size(); ++i) in->host_rank[by_name[i]] = static_cast<int>(i);
}

// Groups with hosts become SUs, named su1..suN by their first host in Slurm order.
void GroupSus(Inference* in) {
  UnionFind uf(in->sws.size());
  const std::vector<int> host_group = GroupHosts(*in, &uf);
  std::map<int, std::vector<int>> group_hosts;
  for (size_t h = 0; h < in->hosts.size(); ++h)
    if (host_group[h] >= 0) group_hosts[host_group[h]].push_back(static_cast<int>(h));
  std::vector<std::pair<int, std::vector<int>>> groups(group_hosts.begin(), group_hosts.end());
  RankHosts(in);
  auto rank_less = [&](int a, int b) { return in->host_rank[a] < in->host_rank[b]; };
  for (auto& [group, members] : groups) std::sort(members.begin(), members.end(), rank_less);
  std::sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
    return rank_less(a.second.front(), b.second.front());
  });
  std::unordered_map<int, int> group_su;
  in->host_su.assign(in->hosts.size(), -1);
  for (size_t s = 0; s < groups.size(); ++s) {
    group_su[groups[s].first] = static_cast<int>(s);
    for (int h : groups[s].second) in->host_su[h] = static_cast<int>(s);
    in->su_hosts.push_back(std::move(groups[s].second));
  }
  for (size_t sw = 0; sw < in->sws.size(); ++sw) {
    if (!in->sws[sw].rail_leaf) continue;
    auto it = group_su.find(uf.Find(static_cast<int>(sw)));
    in->sws[sw].su = it == group_su.end() ? kNoSu : it->second;
  }
}

// One leaf per SU and rail: of two, the one with more links from the SU's hosts (the earlier
// on a tie); the other is marked kDuplicate.
void PickLeaves(Inference* in) {
  const int n_rails = static_cast<int>(in->rails.size());
  in->su_leaf.assign(in->su_hosts.size(), std::vector<int>(n_rails, -1));
  std::vector<int> home_links(in->sws.size(), 0);  // links from the leaf's own SU's hosts
  for (const Attach& a : in->attaches)
    if (in->sws[a.sw].su >= 0 && in->host_su[in->ca[a.ca].host] == in->sws[a.sw].su)
      ++home_links[a.sw];
  for (size_t sw = 0; sw < in->sws.size(); ++sw) {
    const int su = in->sws[sw].su;
    if (su < 0) continue;
    int& slot = in->su_leaf[su][in->sws[sw].rail];
    if (slot < 0) {
      slot = static_cast<int>(sw);
      continue;
    }
    int keep = slot;
    int drop = static_cast<int>(sw);
    if (home_links[drop] > home_links[keep]) std::swap(keep, drop);
    slot = keep;
    in->sws[drop].su = kDuplicate;
    in->duplicate_leaves.push_back({su, in->sws[keep].rail, keep, drop, home_links[keep],
                                    home_links[drop], in->sws[keep].display});
  }
}

// Sets Inference::host_port: the port each host uses on its SU's leaves, when it is the same on
// all of them, else 0.
void FindHostPorts(Inference* in) {
  in->host_port.assign(in->hosts.size(), -1);
  for (const Attach& a : in->attaches) {
    const int h = in->ca[a.ca].host;
    if (in->sws[a.sw].su < 0 || in->sws[a.sw].su != in->host_su[h]) continue;
    int& p = in->host_port[h];
    p = p == -1 ? a.sw_port : (p == a.sw_port ? p : 0);
  }
  for (int& p : in->host_port) p = std::max(p, 0);
}

}  // namespace

std::string TokenMode(const std::map<std::string, int>& counts) {
  std::map<std::string, int> valid;
  for (const auto& [token, n] : counts)
    if (LinkSpecFromIbToken(token)) valid[token] = n;
  const std::map<std::string, int>& use = valid.empty() ? counts : valid;
  return Mode<std::string>(
      use, [](const std::string& a, const std::string& b) { return LinkSlower(b, a); }, "");
}

Inference InferWith(const IbFabric& fabric, const DiscoverOptions& opts,
                    const Appliances& appliances) {
  Inference in;
  std::unordered_map<std::string, int> dev_index;
  ClassifyCas(fabric, opts, appliances, &in, &dev_index);
  ClassifyLinks(fabric, &in);
  NameSwitches(fabric, &in);
  MajorityDevs(opts, &in);
  GroupSus(&in);
  AlignRails(opts, dev_index, &in);
  InferLinkTokens(fabric, &in);
  PickLeaves(&in);
  GroupDomains(&in);  // names the leaves that have no name of their own
  CheckSpinePlanes(fabric, &in);
  AssignTiers(fabric, &in);
  FindHostPorts(&in);
  for (const std::vector<int>& hs : in.su_hosts) in.counts.hosts += static_cast<int>(hs.size());
  for (const std::vector<int>& per_su : in.su_leaf)
    for (int sw : per_su) in.counts.leaves += sw >= 0;
  return in;
}

Inference Infer(const IbFabric& fabric, const DiscoverOptions& opts) {
  Inference in = InferWith(fabric, opts, {});
  Appliances appliances = FindAppliances(in);
  for (auto& [ca, info] : FindServiceGroups(in)) appliances[ca] = info;
  // Without them the SUs may group and be named differently, so inference starts again.
  if (!appliances.empty()) in = InferWith(fabric, opts, appliances);
  NoteServiceGroups(fabric, &in);
  NoteRailFabric(&in);
  return in;
}

Topology BuildTopology(const IbFabric& fabric, const Inference& in, const DiscoverOptions& opts) {
  Topology t;
  t.cluster = opts.cluster;
  if (in.rails.empty() || in.su_hosts.empty()) {
    t.Index();
    return t;
  }
  for (int r = 0; r < static_cast<int>(in.rails.size()); ++r) {
    Rail rail;
    rail.index = r;
    rail.name = "rail" + std::to_string(r);
    std::optional<LinkSpec> spec =
        in.rail_token[r].empty() ? std::nullopt : LinkSpecFromIbToken(in.rail_token[r]);
    if (spec) rail.link = *spec;
    t.rails.push_back(rail);
  }
  for (size_t k = 0; k < in.type_nics.size(); ++k) {
    NodeType type;
    type.name = TypeName(opts, static_cast<int>(k));
    type.gpus = opts.gpus;
    type.nics = in.type_nics[k];
    // A rail no HCA of the type names (rail-alignment, missing-leaf) still needs a NIC name.
    for (size_t r = 0; r < type.nics.size(); ++r)
      if (type.nics[r].empty()) type.nics[r] = "unknown-rail" + std::to_string(r);
    t.node_types.push_back(type);
  }
  // One SU per group of domains; with several, each domain's leaves name its hosts.
  std::vector<std::vector<int>> group_domains(in.group_count);
  for (size_t d = 0; d < in.su_hosts.size(); ++d)
    group_domains[in.su_group[d]].push_back(static_cast<int>(d));
  for (int g = 0; g < in.group_count; ++g) {
    const std::vector<int>& ds = group_domains[g];
    ScalableUnit su;
    su.name = "su" + std::to_string(g + 1);
    std::vector<int> hosts;
    for (int d : ds) hosts.insert(hosts.end(), in.su_hosts[d].begin(), in.su_hosts[d].end());
    std::sort(hosts.begin(), hosts.end(),
              [&](int a, int b) { return in.host_rank[a] < in.host_rank[b]; });
    for (int h : hosts) su.nodes.push_back(in.hosts[h]);
    su.nodes_expr = CompressHostlistSorted(su.nodes);
    su.node_type = TypeName(opts, in.su_type[ds[0]]);
    for (int r = 0; r < static_cast<int>(in.rails.size()); ++r) {
      for (int d : ds) {
        Leaf leaf;
        leaf.rail = r;
        const int sw = in.su_leaf[d][r];
        if (sw >= 0) {
          leaf.sw.name = in.sws[sw].yaml_name;
          leaf.sw.guid = in.sws[sw].guid;
          leaf.sw.ports = fabric.nodes[sw].ports;
        }
        if (ds.size() > 1) {
          for (int h : in.su_hosts[d]) leaf.nodes.push_back(in.hosts[h]);
          leaf.nodes_expr = CompressHostlistSorted(leaf.nodes);
        }
        su.leaves.push_back(leaf);
      }
    }
    t.sus.push_back(std::move(su));
  }
  for (size_t i = 0; i < fabric.nodes.size(); ++i) {
    if (fabric.nodes[i].type != IbNodeType::kSwitch) continue;
    const SwitchTier tier = in.sws[i].tier;
    if (tier != SwitchTier::kSpine && tier != SwitchTier::kCore) continue;
    Switch sw;
    sw.name = in.sws[i].display;
    sw.guid = in.sws[i].guid;
    sw.ports = fabric.nodes[i].ports;
    (tier == SwitchTier::kSpine ? t.spines : t.cores).push_back(sw);
  }
  for (std::vector<Switch>* list : {&t.spines, &t.cores})
    std::sort(list->begin(), list->end(),
              [](const Switch& a, const Switch& b) { return NaturalLess(a.name, b.name); });
  t.Index();
  return t;
}

std::vector<SwitchReport> ReportSwitches(const IbFabric& fabric, const Inference& in) {
  std::vector<SwitchReport> v;
  std::vector<int> index(fabric.nodes.size(), -1);
  for (size_t i = 0; i < fabric.nodes.size(); ++i) {
    if (fabric.nodes[i].type != IbNodeType::kSwitch) continue;
    index[i] = static_cast<int>(v.size());
    SwitchReport r;
    r.name = in.sws[i].display;
    r.guid = in.sws[i].guid;
    r.description = fabric.nodes[i].description;
    r.ports = fabric.nodes[i].ports;
    r.has_hcas = in.sws[i].HasHcas();
    r.tier = TierName(in.sws[i].tier);
    if (in.sws[i].su >= 0) {
      r.su = "su" + std::to_string(in.su_group[in.sws[i].su] + 1);
      r.rail = in.sws[i].rail;
    }
    v.push_back(std::move(r));
  }
  std::vector<std::vector<int>> hosts(v.size());
  for (const Attach& a : in.attaches) hosts[index[a.sw]].push_back(in.ca[a.ca].host);
  for (size_t i = 0; i < v.size(); ++i) {
    std::sort(hosts[i].begin(), hosts[i].end(),
              [&](int a, int b) { return in.host_rank[a] < in.host_rank[b]; });
    hosts[i].erase(std::unique(hosts[i].begin(), hosts[i].end()), hosts[i].end());
    for (int h : hosts[i]) v[i].hosts.push_back(in.hosts[h]);
  }
  for (const Attach& a : in.unnamed) ++v[index[a.sw]].unnamed;
  for (int li : in.switch_links) {
    ++v[index[fabric.links[li].a.node]].switch_links;
    ++v[index[fabric.links[li].b.node]].switch_links;
  }
  for (const IbLink& l : fabric.links) {
    for (const auto& [sw, ca] : {std::make_pair(l.a, l.b), std::make_pair(l.b, l.a)}) {
      if (index[sw.node] >= 0 && in.ca[ca.node].role == CaRole::kNonCompute)
        ++v[index[sw.node]].non_compute;
    }
  }
  std::stable_sort(v.begin(), v.end(), [](const SwitchReport& a, const SwitchReport& b) {
    if (a.su.empty() != b.su.empty()) return !a.su.empty();
    if (a.su != b.su) return NaturalLess(a.su, b.su);
    if (a.rail != b.rail) return a.rail < b.rail;
    if (a.has_hcas != b.has_hcas) return a.has_hcas;
    return NaturalLess(a.name, b.name);
  });
  return v;
}

}  // namespace railguard::topo
