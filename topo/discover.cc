#include "topo/discover.h"

#include "base/text_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_set>

#include "topo/hostlist.h"

namespace railguard::topo {
namespace {

// Findings are reported grouped by kind, in this order.
const char* const kKindOrder[] = {
    "ibnetdiscover-error", "not-rail-optimized", "missing-leaf", "duplicate-leaf",
    "stray-leaf",          "rail-mismatch",      "su-mismatch",  "missing-link",
    "duplicate-hca",       "stray-hca",          "unnamed-hca",  "link-speed",
    "link-disagree",       "uplink-deficit",     "leaf-link",    "loopback",
    "non-compute"};

int KindRank(const std::string& kind) {
  for (size_t i = 0; i < std::size(kKindOrder); ++i)
    if (kind == kKindOrder[i]) return static_cast<int>(i);
  return static_cast<int>(std::size(kKindOrder));
}

// At most this many of one host's leaves are paired when grouping leaves into SUs; real hosts
// have a handful of HCAs, and the cap keeps a pathological dump from going quadratic.
constexpr size_t kMaxLeavesPerHost = 64;

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

// The alphabet topology YAML accepts for names.
bool IsSafeName(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
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

// UFM servers are named after it: "ufm01", "r-ufm216", "mgmt_ufm2".
bool IsUfmHost(std::string_view host) {
  for (size_t i = 0; i + 3 <= host.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(host[i])) == 'u' &&
        std::tolower(static_cast<unsigned char>(host[i + 1])) == 'f' &&
        std::tolower(static_cast<unsigned char>(host[i + 2])) == 'm' &&
        (i == 0 || host[i - 1] == '-' || host[i - 1] == '_' || host[i - 1] == '.'))
      return true;
  }
  return false;
}

// "MF0;su1-rail0:MQM9700/U1" -> "su1-rail0"; other descriptions are the name themselves.
std::string SwitchNameFromDescription(const std::string& desc) {
  size_t semi = desc.find(';');
  if (semi != std::string::npos) {
    size_t colon = desc.find(':', semi + 1);
    if (colon != std::string::npos && colon > semi + 1)
      return desc.substr(semi + 1, colon - semi - 1);
  }
  return desc;
}

std::string Plural(long n, const std::string& word, const std::string& plural = "") {
  return std::to_string(n) + " " + (n == 1 ? word : plural.empty() ? word + "s" : plural);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The most common of `counts` (key -> count); ties go to the key `better` prefers.
template <typename Key, typename Better>
Key Mode(const std::map<Key, int>& counts, Better better, Key fallback) {
  Key best = fallback;
  int best_count = 0;
  for (const auto& [key, n] : counts) {
    if (n > best_count || (n == best_count && better(key, best))) {
      best = key;
      best_count = n;
    }
  }
  return best;
}

// Most common link token; ties and unparseable tokens lose to faster parseable ones.
std::string TokenMode(const std::map<std::string, int>& counts) {
  std::map<std::string, int> valid;
  for (const auto& [token, n] : counts)
    if (LinkSpecFromIbToken(token)) valid[token] = n;
  const std::map<std::string, int>& use = valid.empty() ? counts : valid;
  return Mode<std::string>(
      use, [](const std::string& a, const std::string& b) { return LinkSlower(b, a); }, "");
}

class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

enum class CaRole { kSwitch, kCompute, kUnnamed, kNonCompute, kOther };

struct CaInfo {
  CaRole role = CaRole::kOther;
  int host = -1;       // index into hosts_
  int dev = -1;        // index into devs_; -1 when the description names no device
  std::string reason;  // why it is non-compute
};

// A compute (or unnamed) HCA port cabled to a switch port.
struct Attach {
  int ca = -1;
  int sw = -1;
  int sw_port = 0;
  int link = -1;
};

struct SwInfo {
  std::string yaml_name;  // safe, unique name from the description; "" when there is none
  std::string display;    // how findings name it
  std::string guid;
  std::vector<int> attaches;  // compute attachments (indexes into attaches_)
  bool has_hosts = false;     // compute HCAs are cabled to it
  bool has_unnamed = false;   // unnamed HCAs are cabled to it
  bool HasHcas() const { return has_hosts || has_unnamed; }
  int rail = -1;  // rail index when it is a leaf of a known rail
  int su = -1;    // SU index; kNoSu or kDuplicate otherwise
  int uplinks = 0;
};

const std::string kEmpty;
constexpr int kNoSu = -1;
constexpr int kDuplicate = -2;

class Discoverer {
 public:
  Discoverer(const IbFabric& fabric, const DiscoverOptions& opts) : f_(fabric), opts_(opts) {}

  Discovery Run();

 private:
  void Add(std::string kind, std::string node, std::string hca, int sw, int port,
           std::string message) {
    Finding x;
    x.kind = std::move(kind);
    x.node = std::move(node);
    x.hca = std::move(hca);
    if (sw >= 0) {
      x.switch_name = sws_[sw].display;
      x.guid = sws_[sw].guid;
    }
    x.port = port;
    x.message = std::move(message);
    out_.findings.push_back(std::move(x));
  }

  int Intern(std::vector<std::string>* names, std::unordered_map<std::string, int>* index,
             std::string_view name) {
    auto [it, fresh] = index->emplace(std::string(name), static_cast<int>(names->size()));
    if (fresh) names->push_back(std::string(name));
    return it->second;
  }

  const std::string& HostName(int ca) const {
    return ca_[ca].host >= 0 ? hosts_[ca_[ca].host] : kEmpty;
  }
  const std::string& DevName(int ca) const {
    return ca_[ca].dev >= 0 ? devs_[ca_[ca].dev] : kEmpty;
  }
  // "n001 mlx5_3", or the CA's id when it has no name.
  std::string CaLabel(int ca) const {
    if (ca_[ca].host < 0) return "\"" + f_.nodes[ca].id + "\"";
    return ca_[ca].dev >= 0 ? HostName(ca) + " " + DevName(ca)
                            : HostName(ca) + " (" + f_.nodes[ca].id + ")";
  }
  std::string SwPort(int sw, int port) const {
    return sws_[sw].display + " port " + std::to_string(port);
  }
  std::string RailLabel(int rail) const {
    return "rail " + std::to_string(rail) + " (" + rails_[rail] + ")";
  }
  std::string RailList() const {
    std::string list;
    for (const std::string& r : rails_) list += (list.empty() ? "" : ", ") + r;
    return list;
  }
  std::string ExpectedToken(int sw) const {
    return sws_[sw].rail >= 0 ? rail_token_[sws_[sw].rail] : host_token_;
  }

  void ClassifyCas();
  void ClassifyLinks();
  void NameSwitches();
  void InferRails();
  void GroupSus();
  void PickLeaves();
  void CheckAttachments();
  void CheckMissing();
  void CheckSwitchLinks();
  void CheckNonRailLinks();
  void BuildTopology();
  void SortFindings();
  void ReportSwitches();

  const IbFabric& f_;
  const DiscoverOptions& opts_;
  Discovery out_;

  std::vector<CaInfo> ca_;   // per fabric node
  std::vector<SwInfo> sws_;  // per fabric node (only switches are used)
  std::vector<std::string> hosts_;
  std::unordered_map<std::string, int> host_index_;
  std::vector<std::string> devs_;
  std::unordered_map<std::string, int> dev_index_;

  std::vector<Attach> attaches_;   // compute HCA links
  std::vector<Attach> unnamed_;    // unnamed HCA links
  std::vector<int> switch_links_;  // switch-to-switch links between two switches
  std::vector<int> loopbacks_;

  std::vector<std::string> rails_;  // device name per rail
  std::vector<int> dev_rail_;       // per device: its rail, or -1
  std::vector<std::string> rail_token_;
  std::string host_token_;  // most common HCA link in the fabric

  std::vector<int> host_su_;                 // per host: SU index or -1
  std::vector<std::vector<int>> su_hosts_;   // per SU: hosts, in Slurm host order
  std::vector<std::vector<int>> su_leaf_;    // per SU, per rail: switch node or -1
  std::vector<std::vector<char>> host_has_;  // per host, per rail: a link is there
  std::vector<int> host_port_;               // per host: its port on all its leaves, or 0
  std::vector<int> host_rank_;               // per host: its place in Slurm host order
};

void Discoverer::ClassifyCas() {
  ca_.resize(f_.nodes.size());
  for (size_t i = 0; i < f_.nodes.size(); ++i) {
    const IbNode& n = f_.nodes[i];
    CaInfo& ci = ca_[i];
    if (n.type == IbNodeType::kSwitch) {
      ci.role = CaRole::kSwitch;
      ++out_.counts.switches;
      continue;
    }
    ++out_.counts.cas;
    if (n.type == IbNodeType::kRouter) {
      ci.role = CaRole::kNonCompute;
      ci.reason = "an InfiniBand router";
      continue;
    }
    if (n.description.find("Aggregation Node") != std::string::npos) {
      ci.role = CaRole::kNonCompute;
      ci.reason = "a SHARP aggregation node";
      continue;
    }
    // "<host> <device>" as rdma-ndd sets it; "<host>" alone names the host only.
    std::string_view text = n.description;
    std::string_view host;
    std::string_view dev;
    bool named = !LooksDefault(text) && SplitHcaName(text, &host, &dev);
    if (!named) {
      auto it = opts_.node_map.find(n.guid);
      if (it != opts_.node_map.end() && SplitHcaName(it->second, &host, &dev)) {
        text = it->second;
        named = true;
      }
    }
    if (named) {
      ci.host = Intern(&hosts_, &host_index_, host);
      if (!dev.empty()) ci.dev = Intern(&devs_, &dev_index_, dev);
    }
    if (opts_.exclude) {
      bool match = false;
      try {
        match = std::regex_search(text.begin(), text.end(), *opts_.exclude);
      } catch (const std::regex_error&) {
        match = false;  // too complex to evaluate: treat as no match
      }
      if (match) {
        ci.role = CaRole::kNonCompute;
        ci.reason = "matched by --exclude";
        continue;
      }
    }
    if (!named) {
      ci.role = CaRole::kUnnamed;
      continue;
    }
    if (IsUfmHost(host)) {
      ci.role = CaRole::kNonCompute;
      ci.reason = "a UFM host";
      continue;
    }
    ci.role = CaRole::kCompute;
  }
}

void Discoverer::ClassifyLinks() {
  sws_.resize(f_.nodes.size());
  for (int li = 0; li < static_cast<int>(f_.links.size()); ++li) {
    const IbLink& l = f_.links[li];
    const bool a_sw = f_.nodes[l.a.node].type == IbNodeType::kSwitch;
    const bool b_sw = f_.nodes[l.b.node].type == IbNodeType::kSwitch;
    if (l.a.node == l.b.node) {
      if (a_sw) loopbacks_.push_back(li);
      continue;
    }
    if (a_sw && b_sw) {
      switch_links_.push_back(li);
      continue;
    }
    if (a_sw == b_sw) continue;  // CA to CA: not part of a switched fabric
    const IbPort ca = a_sw ? l.b : l.a;
    const IbPort sw = a_sw ? l.a : l.b;
    Attach at{ca.node, sw.node, sw.port, li};
    if (ca_[ca.node].role == CaRole::kCompute) {
      sws_[sw.node].attaches.push_back(static_cast<int>(attaches_.size()));
      sws_[sw.node].has_hosts = true;
      attaches_.push_back(at);
    } else if (ca_[ca.node].role == CaRole::kUnnamed) {
      sws_[sw.node].has_unnamed = true;
      unnamed_.push_back(at);
    }
  }
  out_.counts.links = static_cast<int>(f_.links.size());
  std::unordered_set<int> hcas;
  for (const Attach& a : attaches_) hcas.insert(a.ca);
  out_.counts.hcas = static_cast<int>(hcas.size());
}

void Discoverer::NameSwitches() {
  // A switch keeps the name in its description when that is a valid, unique name.
  std::unordered_map<std::string, int> uses;
  std::vector<std::string> parsed(f_.nodes.size());
  for (size_t i = 0; i < f_.nodes.size(); ++i) {
    if (f_.nodes[i].type != IbNodeType::kSwitch) continue;
    parsed[i] = SwitchNameFromDescription(f_.nodes[i].description);
    ++uses[parsed[i]];
  }
  for (size_t i = 0; i < f_.nodes.size(); ++i) {
    if (f_.nodes[i].type != IbNodeType::kSwitch) continue;
    SwInfo& s = sws_[i];
    if (IsSafeName(parsed[i]) && uses[parsed[i]] == 1) s.yaml_name = parsed[i];
    s.display = s.yaml_name.empty() ? f_.nodes[i].id : s.yaml_name;
    s.guid = GuidString(f_.nodes[i].guid);
  }
}

void Discoverer::InferRails() {
  // Each leaf's rail is the device most of its HCAs are.
  std::vector<int> leaf_dev(f_.nodes.size(), -1);
  std::set<int> majority_devs;
  auto dev_less = [&](int a, int b) {
    return b < 0 || (a >= 0 && NaturalLess(devs_[a], devs_[b]));
  };
  for (size_t sw = 0; sw < sws_.size(); ++sw) {
    if (!sws_[sw].has_hosts) continue;
    std::map<int, int> counts;
    for (int ai : sws_[sw].attaches) {
      const int dev = ca_[attaches_[ai].ca].dev;
      if (dev >= 0) ++counts[dev];
    }
    leaf_dev[sw] = Mode<int>(counts, dev_less, -1);
    if (leaf_dev[sw] >= 0) majority_devs.insert(leaf_dev[sw]);
  }
  if (!opts_.rail_order.empty()) {
    for (const std::string& name : opts_.rail_order)
      if (std::find(rails_.begin(), rails_.end(), name) == rails_.end()) rails_.push_back(name);
  } else {
    for (int d : majority_devs) rails_.push_back(devs_[d]);
    std::sort(rails_.begin(), rails_.end(), NaturalLess);
  }
  dev_rail_.assign(devs_.size(), -1);
  for (int r = 0; r < static_cast<int>(rails_.size()); ++r) {
    auto it = dev_index_.find(rails_[r]);
    if (it != dev_index_.end()) dev_rail_[it->second] = r;
  }
  for (size_t sw = 0; sw < sws_.size(); ++sw) {
    if (!sws_[sw].has_hosts) continue;
    const int dev = leaf_dev[sw];
    if (dev >= 0 && dev_rail_[dev] >= 0) {
      sws_[sw].rail = dev_rail_[dev];
      continue;
    }
    if (rails_.empty()) continue;  // not-rail-optimized says it once
    const std::string why = dev < 0
                                ? "none of whose HCAs names its device, so its rail cannot be told"
                                : "mostly " + devs_[dev] + ", which is not in --rail-order";
    Add("stray-leaf", "", dev >= 0 ? devs_[dev] : "", static_cast<int>(sw), 0,
        sws_[sw].display + " has " +
            Plural(static_cast<long>(sws_[sw].attaches.size()), "host HCA") + ", " + why +
            "; left out of the topology");
  }
  for (size_t sw = 0; sw < sws_.size() && !rails_.empty(); ++sw) {
    if (sws_[sw].has_hosts || !sws_[sw].has_unnamed) continue;
    int n = 0;
    for (const Attach& a : unnamed_) n += a.sw == static_cast<int>(sw);
    Add("stray-leaf", "", "", static_cast<int>(sw), 0,
        sws_[sw].display + " has " + Plural(n, "unnamed HCA") +
            " and no named one, so its rail and SU cannot be told; left out of the topology");
  }
  // What each rail's links should train to: the most common link on its leaves.
  std::vector<std::map<std::string, int>> per_rail(rails_.size());
  std::map<std::string, int> all;
  for (const Attach& a : attaches_) {
    const std::string& token = f_.links[a.link].Token();
    ++all[token];
    if (sws_[a.sw].rail >= 0) ++per_rail[sws_[a.sw].rail][token];
  }
  for (const Attach& a : unnamed_) ++all[f_.links[a.link].Token()];
  for (const auto& counts : per_rail) rail_token_.push_back(TokenMode(counts));
  host_token_ = TokenMode(all);
  // A rail no leaf carries (named only by --rail-order) gets the fabric's usual HCA link.
  for (std::string& token : rail_token_)
    if (token.empty()) token = host_token_;
}

void Discoverer::GroupSus() {
  const size_t n_sw = sws_.size();
  // Each host's distinct rail leaves.
  std::vector<std::vector<int>> host_leaves(hosts_.size());
  for (const Attach& a : attaches_) {
    if (sws_[a.sw].rail < 0) continue;
    std::vector<int>& v = host_leaves[ca_[a.ca].host];
    if (std::find(v.begin(), v.end(), a.sw) == v.end() && v.size() < kMaxLeavesPerHost)
      v.push_back(a.sw);
  }
  std::vector<int> leaf_hosts(n_sw, 0);
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
  // Two leaves are in one SU when most hosts of the smaller one are on both.
  UnionFind uf(n_sw);
  for (const auto& [key, n] : shared) {
    const int a = static_cast<int>(key >> 32);
    const int b = static_cast<int>(key & 0xffffffffu);
    if (2 * n > std::min(leaf_hosts[a], leaf_hosts[b])) uf.Union(a, b);
  }
  // A host belongs to the group that holds most of its links.
  std::vector<int> host_group(hosts_.size(), -1);
  for (size_t h = 0; h < hosts_.size(); ++h) {
    std::map<int, int> votes;
    for (int sw : host_leaves[h]) ++votes[uf.Find(sw)];
    host_group[h] = Mode<int>(
        votes, [](int a, int b) { return a < b; }, -1);
  }
  // Groups with hosts become SUs, named su1..suN by their first host in Slurm order.
  std::map<int, std::vector<int>> group_hosts;
  for (size_t h = 0; h < hosts_.size(); ++h)
    if (host_group[h] >= 0) group_hosts[host_group[h]].push_back(static_cast<int>(h));
  std::vector<std::pair<int, std::vector<int>>> groups(group_hosts.begin(), group_hosts.end());
  // Slurm host order, computed once: HostLess is far dearer than comparing ranks.
  std::vector<int> by_name(hosts_.size());
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(),
            [&](int a, int b) { return HostLess(hosts_[a], hosts_[b]); });
  host_rank_.assign(hosts_.size(), 0);
  for (size_t i = 0; i < by_name.size(); ++i) host_rank_[by_name[i]] = static_cast<int>(i);
  auto rank_less = [&](int a, int b) { return host_rank_[a] < host_rank_[b]; };
  for (auto& [group, members] : groups) std::sort(members.begin(), members.end(), rank_less);
  std::sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
    return rank_less(a.second.front(), b.second.front());
  });
  std::unordered_map<int, int> group_su;
  host_su_.assign(hosts_.size(), -1);
  for (size_t s = 0; s < groups.size(); ++s) {
    group_su[groups[s].first] = static_cast<int>(s);
    for (int h : groups[s].second) host_su_[h] = static_cast<int>(s);
    su_hosts_.push_back(std::move(groups[s].second));
  }
  for (size_t sw = 0; sw < n_sw; ++sw) {
    if (sws_[sw].rail < 0) continue;
    auto it = group_su.find(uf.Find(static_cast<int>(sw)));
    sws_[sw].su = it == group_su.end() ? kNoSu : it->second;
  }
}

void Discoverer::PickLeaves() {
  const int n_rails = static_cast<int>(rails_.size());
  su_leaf_.assign(su_hosts_.size(), std::vector<int>(n_rails, -1));
  std::vector<int> home_links(sws_.size(), 0);  // links from the leaf's own SU's hosts
  for (const Attach& a : attaches_)
    if (sws_[a.sw].su >= 0 && host_su_[ca_[a.ca].host] == sws_[a.sw].su) ++home_links[a.sw];
  for (size_t sw = 0; sw < sws_.size(); ++sw) {
    const int su = sws_[sw].su;
    if (su < 0) continue;
    int& slot = su_leaf_[su][sws_[sw].rail];
    if (slot < 0) {
      slot = static_cast<int>(sw);
    } else {
      int keep = slot;
      int drop = static_cast<int>(sw);
      if (home_links[drop] > home_links[keep]) std::swap(keep, drop);
      slot = keep;
      sws_[drop].su = kDuplicate;
      Add("duplicate-leaf", "", rails_[sws_[keep].rail], drop, 0,
          "su" + std::to_string(su + 1) + " has two leaves for " + RailLabel(sws_[keep].rail) +
              ": " + sws_[keep].display + " (" + Plural(home_links[keep], "host link") + ") and " +
              sws_[drop].display + " (" + Plural(home_links[drop], "host link") + "); left out " +
              sws_[drop].display + "; expected one leaf per rail");
    }
  }
  // Leaves of an SU are named after it when their description gives no name.
  for (size_t s = 0; s < su_leaf_.size(); ++s) {
    for (int r = 0; r < n_rails; ++r) {
      const int sw = su_leaf_[s][r];
      if (sw >= 0 && sws_[sw].yaml_name.empty())
        sws_[sw].display = "su" + std::to_string(s + 1) + "-rail" + std::to_string(r);
    }
  }
  for (size_t s = 0; s < su_leaf_.size(); ++s) {
    for (int r = 0; r < n_rails; ++r) {
      if (su_leaf_[s][r] >= 0) continue;
      Add("missing-leaf", "", rails_[r], -1, 0,
          "su" + std::to_string(s + 1) + " has no leaf for " + RailLabel(r) + ": none of its " +
              Plural(static_cast<long>(su_hosts_[s].size()), "host") + " (" +
              CompressHostlistSorted([&] {
                std::vector<std::string> names;
                for (int h : su_hosts_[s]) names.push_back(hosts_[h]);
                return names;
              }()) +
              ") has a " + rails_[r] + " link; expected one leaf per rail in every SU");
    }
  }
  // The port each host uses on its SU's leaves, when it is the same on all of them.
  host_port_.assign(hosts_.size(), -1);
  for (const Attach& a : attaches_) {
    const int h = ca_[a.ca].host;
    if (sws_[a.sw].su < 0 || sws_[a.sw].su != host_su_[h]) continue;
    int& p = host_port_[h];
    p = p == -1 ? a.sw_port : (p == a.sw_port ? p : 0);
  }
  for (int& p : host_port_) p = std::max(p, 0);
}

void Discoverer::CheckAttachments() {
  host_has_.assign(hosts_.size(), std::vector<char>(rails_.size(), 0));
  std::unordered_map<uint64_t, int> seen;  // (host << 32 | dev) -> CA
  seen.reserve(attaches_.size());
  for (const Attach& a : attaches_) {
    const SwInfo& sw = sws_[a.sw];
    const CaInfo& ci = ca_[a.ca];
    const std::string& host = HostName(a.ca);
    const std::string& dev = DevName(a.ca);
    if (ci.dev >= 0) {
      const uint64_t key = static_cast<uint64_t>(ci.host) << 32 | static_cast<uint64_t>(ci.dev);
      auto [it, fresh] = seen.emplace(key, a.ca);
      if (!fresh && it->second != a.ca) {
        Add("duplicate-hca", host, dev, a.sw, a.sw_port,
            "two HCAs are described \"" + host + " " + dev + "\": \"" + f_.nodes[it->second].id +
                "\" and \"" + f_.nodes[a.ca].id + "\" (on " + SwPort(a.sw, a.sw_port) +
                "); expected unique host names");
      }
    }
    if (sw.rail < 0) continue;  // stray-leaf says it
    int rail = sw.rail;
    if (ci.dev >= 0) {
      rail = dev_rail_[ci.dev];
      if (rail < 0) {
        Add("stray-hca", host, dev, a.sw, a.sw_port,
            host + " " + dev + " on " + SwPort(a.sw, a.sw_port) +
                " is not an HCA of any rail; expected one of the rail HCAs (" + RailList() + ")");
        continue;
      }
    }
    if (sw.su == kDuplicate) {
      // duplicate-leaf says it; the host is not missing this rail.
      if (rail == sw.rail) host_has_[ci.host][rail] = 1;
      continue;
    }
    host_has_[ci.host][rail] = 1;
    const int home = host_su_[ci.host];
    if (sw.su != home) {
      const std::string label = CaLabel(a.ca);
      const int expected = home >= 0 ? su_leaf_[home][rail] : -1;
      const std::string where = sw.su >= 0 ? "a leaf of su" + std::to_string(sw.su + 1)
                                           : "a leaf that serves no SU of its own";
      const std::string want = home < 0 ? "a leaf of the host's own SU"
                               : expected >= 0
                                   ? sws_[expected].display + ", the " + RailLabel(rail) +
                                         " leaf of its own SU su" + std::to_string(home + 1)
                                   : "su" + std::to_string(home + 1) + "'s leaf for " +
                                         RailLabel(rail) + ", which is missing";
      Add("su-mismatch", host, dev, a.sw, a.sw_port,
          label + " is cabled to " + SwPort(a.sw, a.sw_port) + ", " + where + "; expected " + want);
    } else if (sw.rail != rail) {
      const int expected = su_leaf_[home][rail];
      Add("rail-mismatch", host, dev, a.sw, a.sw_port,
          CaLabel(a.ca) + " is cabled to " + SwPort(a.sw, a.sw_port) + ", the leaf of " +
              RailLabel(sw.rail) + "; expected " +
              (expected >= 0 ? sws_[expected].display + ", the leaf of " + RailLabel(rail)
                             : "the leaf of " + RailLabel(rail) + ", which is missing") +
              " (swapped cables?)");
    }
    const std::string& token = f_.links[a.link].Token();
    const std::string& want = rail_token_[sw.rail];
    if (!want.empty() && token != want && LinkSlower(token, want)) {
      Add("link-speed", host, dev, a.sw, a.sw_port,
          CaLabel(a.ca) + " on " + SwPort(a.sw, a.sw_port) + " trains at " + token + "; expected " +
              want + " like most links of " + RailLabel(sw.rail));
    }
  }
}

void Discoverer::CheckMissing() {
  const int n_rails = static_cast<int>(rails_.size());
  // (su, rail) -> hosts of the SU without a link on that rail.
  std::map<std::pair<int, int>, std::vector<int>> missing;
  for (size_t s = 0; s < su_hosts_.size(); ++s)
    for (int r = 0; r < n_rails; ++r)
      if (su_leaf_[s][r] >= 0)
        for (int h : su_hosts_[s])
          if (!host_has_[h][r]) missing[{static_cast<int>(s), r}].push_back(h);

  // An unnamed HCA on an SU's leaf is most likely the HCA a host of that SU lacks: the one that
  // sits on the same port of its other leaves, or else the only one lacking that rail.
  std::vector<Attach> sorted = unnamed_;
  std::sort(sorted.begin(), sorted.end(), [](const Attach& a, const Attach& b) {
    return a.sw != b.sw ? a.sw < b.sw : a.sw_port < b.sw_port;
  });
  for (const Attach& a : sorted) {
    const IbNode& n = f_.nodes[a.ca];
    const SwInfo& sw = sws_[a.sw];
    std::string msg = "\"" + n.id + "\" has the default description \"" + n.description +
                      "\" and cannot be named; it is cabled to " + SwPort(a.sw, a.sw_port);
    std::string node;
    std::string hca;
    if (sw.rail >= 0 && sw.su >= 0) {
      auto it = missing.find({sw.su, sw.rail});
      if (it != missing.end()) {
        std::vector<int>& hs = it->second;
        int guess = -1;
        std::string why;
        for (int h : hs)
          if (host_port_[h] == a.sw_port) guess = h;
        if (guess >= 0) {
          why = hosts_[guess] + " lacks a " + rails_[sw.rail] + " link and uses port " +
                std::to_string(a.sw_port) + " on its other leaves";
        } else if (hs.size() == 1) {
          guess = hs.front();
          why = "the only host of su" + std::to_string(sw.su + 1) + " without a " +
                rails_[sw.rail] + " link";
        }
        if (guess >= 0) {
          node = hosts_[guess];
          hca = rails_[sw.rail];
          msg += "; probably " + node + " " + hca + " (" + why + ")";
          hs.erase(std::find(hs.begin(), hs.end(), guess));
        }
      }
    }
    Add("unnamed-hca", node, hca, a.sw, a.sw_port,
        msg + "; expected a description \"<host> <device>\" (rdma-ndd) or a --node-map entry");
  }
  std::unordered_set<int> unnamed_cas;
  for (const Attach& a : unnamed_) unnamed_cas.insert(a.ca);
  out_.counts.unnamed = static_cast<int>(unnamed_cas.size());

  for (const auto& [key, hs] : missing) {
    const auto [s, r] = key;
    const int leaf = su_leaf_[s][r];
    for (int h : hs) {
      const int port =
          host_port_[h] > 0 && f_.FindLink(leaf, host_port_[h]) < 0 ? host_port_[h] : 0;
      Add("missing-link", hosts_[h], rails_[r], leaf, port,
          hosts_[h] + " has no " + rails_[r] + " link (rail " + std::to_string(r) +
              "); expected a cable to " + (port ? SwPort(leaf, port) : sws_[leaf].display));
    }
  }
}

void Discoverer::CheckSwitchLinks() {
  std::map<std::string, int> counts;
  for (int li : switch_links_) {
    const IbLink& l = f_.links[li];
    ++counts[l.Token()];
    const SwInfo& a = sws_[l.a.node];
    const SwInfo& b = sws_[l.b.node];
    if (a.HasHcas() && b.HasHcas()) {
      // Without rails there are no leaves in the rail sense (not-rail-optimized says so).
      if (rails_.empty()) continue;
      Add("leaf-link", "", "", l.a.node, l.a.port,
          SwPort(l.a.node, l.a.port) + " is cabled to " + SwPort(l.b.node, l.b.port) +
              ", another leaf; expected leaves to connect only to spines");
    } else if (a.HasHcas() != b.HasHcas()) {
      ++sws_[a.HasHcas() ? l.a.node : l.b.node].uplinks;
    }
  }
  const std::string want = TokenMode(counts);
  for (int li : switch_links_) {
    const IbLink& l = f_.links[li];
    if (l.Token() != want && LinkSlower(l.Token(), want)) {
      Add("link-speed", "", "", l.a.node, l.a.port,
          "switch link " + SwPort(l.a.node, l.a.port) + " - " + SwPort(l.b.node, l.b.port) +
              " trains at " + l.Token() + "; expected " + want + " like most switch links");
    }
  }
  // Uplinks: leaves of SUs are compared with each other.
  std::map<int, int> uplink_counts;
  for (const std::vector<int>& per_su : su_leaf_)
    for (int sw : per_su)
      if (sw >= 0) ++uplink_counts[sws_[sw].uplinks];
  const int mode = Mode<int>(
      uplink_counts, [](int a, int b) { return a > b; }, 0);
  for (const std::vector<int>& per_su : su_leaf_) {
    for (int sw : per_su) {
      if (sw < 0 || sws_[sw].uplinks >= mode) continue;
      Add("uplink-deficit", "", rails_[sws_[sw].rail], sw, 0,
          sws_[sw].display + " has " + Plural(sws_[sw].uplinks, "uplink") +
              " to spines; expected " + std::to_string(mode) + " like most leaves");
    }
  }
  for (int li : loopbacks_) {
    const IbLink& l = f_.links[li];
    Add("loopback", "", "", l.a.node, l.a.port,
        SwPort(l.a.node, l.a.port) + " is cabled to port " + std::to_string(l.b.port) +
            " of the same switch; expected a cable to another switch or a host");
  }
  for (size_t li = 0; li < f_.links.size(); ++li) {
    const IbLink& l = f_.links[li];
    if (l.token_a.empty() || l.token_b.empty() || l.token_a == l.token_b) continue;
    const bool a_sw = f_.nodes[l.a.node].type == IbNodeType::kSwitch;
    const IbPort sw = a_sw ? l.a : l.b;
    auto end = [&](const IbPort& p, const std::string& token) {
      const IbNode& n = f_.nodes[p.node];
      const std::string who = n.type == IbNodeType::kSwitch ? sws_[p.node].display
                              : ca_[p.node].host >= 0       ? CaLabel(p.node)
                                                            : "\"" + n.id + "\"";
      return who + " port " + std::to_string(p.port) + " reports " + token;
    };
    const bool ca_end = !a_sw || f_.nodes[l.b.node].type != IbNodeType::kSwitch;
    const int ca = !a_sw ? l.a.node : l.b.node;
    Add("link-disagree", ca_end ? HostName(ca) : "", ca_end ? DevName(ca) : "",
        f_.nodes[sw.node].type == IbNodeType::kSwitch ? sw.node : -1, sw.port,
        "the two ends of one link disagree: " + end(l.a, l.token_a) + ", " + end(l.b, l.token_b) +
            "; expected both ends to train alike (counted as " + l.Token() + ")");
  }
}

void Discoverer::CheckNonRailLinks() {
  // HCA links on switches that are no rail leaf are held to the fabric's usual HCA link.
  auto check = [&](const Attach& a) {
    if (sws_[a.sw].rail >= 0 && sws_[a.sw].su != kDuplicate) {
      if (ca_[a.ca].role == CaRole::kCompute) return;  // CheckAttachments did it
    }
    const std::string want = ExpectedToken(a.sw);
    const std::string& token = f_.links[a.link].Token();
    if (want.empty() || token == want || !LinkSlower(token, want)) return;
    Add("link-speed", HostName(a.ca), DevName(a.ca), a.sw, a.sw_port,
        CaLabel(a.ca) + " on " + SwPort(a.sw, a.sw_port) + " trains at " + token + "; expected " +
            want +
            (sws_[a.sw].rail >= 0 ? " like most links of " + RailLabel(sws_[a.sw].rail)
                                  : " like most HCA links"));
  };
  for (const Attach& a : attaches_) check(a);
  for (const Attach& a : unnamed_) check(a);

  // Non-compute CAs: say what each is and where it hangs.
  for (size_t i = 0; i < f_.nodes.size(); ++i) {
    const CaInfo& ci = ca_[i];
    if (ci.role != CaRole::kNonCompute) continue;
    ++out_.counts.non_compute;
    int sw = -1;
    int port = 0;
    for (int p = 1; p <= std::max(f_.nodes[i].ports, 1) && sw < 0; ++p) {
      const int li = f_.FindLink(static_cast<int>(i), p);
      if (li < 0) continue;
      const IbPort peer = f_.Peer(f_.links[li], static_cast<int>(i), p);
      if (f_.nodes[peer.node].type == IbNodeType::kSwitch) {
        sw = peer.node;
        port = peer.port;
      }
    }
    const std::string label =
        ci.host >= 0 ? CaLabel(static_cast<int>(i))
                     : "\"" + f_.nodes[i].id + "\" (\"" + f_.nodes[i].description + "\")";
    Add("non-compute", HostName(static_cast<int>(i)), DevName(static_cast<int>(i)), sw, port,
        label + (sw >= 0 ? " on " + SwPort(sw, port) : std::string()) + " is " + ci.reason +
            "; left out of the topology");
  }
}

void Discoverer::BuildTopology() {
  Topology& t = out_.topology;
  t.cluster = opts_.cluster;
  if (rails_.empty() || su_hosts_.empty()) {
    t.Index();
    return;
  }
  for (int r = 0; r < static_cast<int>(rails_.size()); ++r) {
    Rail rail;
    rail.index = r;
    rail.name = "rail" + std::to_string(r);
    std::optional<LinkSpec> spec =
        rail_token_[r].empty() ? std::nullopt : LinkSpecFromIbToken(rail_token_[r]);
    if (spec) rail.link = *spec;
    t.rails.push_back(rail);
  }
  NodeType type;
  type.name = opts_.node_type;
  type.gpus = opts_.gpus;
  type.nics = rails_;
  t.node_types.push_back(type);
  for (size_t s = 0; s < su_hosts_.size(); ++s) {
    ScalableUnit su;
    su.name = "su" + std::to_string(s + 1);
    for (int h : su_hosts_[s]) su.nodes.push_back(hosts_[h]);
    su.nodes_expr = CompressHostlistSorted(su.nodes);
    su.node_type = opts_.node_type;
    for (int r = 0; r < static_cast<int>(rails_.size()); ++r) {
      Leaf leaf;
      leaf.rail = r;
      const int sw = su_leaf_[s][r];
      if (sw >= 0) {
        leaf.sw.name = sws_[sw].yaml_name;
        leaf.sw.guid = sws_[sw].guid;
        leaf.sw.ports = f_.nodes[sw].ports;
      }
      su.leaves.push_back(leaf);
    }
    t.sus.push_back(std::move(su));
  }
  for (size_t i = 0; i < f_.nodes.size(); ++i) {
    if (f_.nodes[i].type != IbNodeType::kSwitch || sws_[i].HasHcas()) continue;
    Switch sw;
    sw.name = sws_[i].display;
    sw.guid = sws_[i].guid;
    sw.ports = f_.nodes[i].ports;
    t.spines.push_back(sw);
  }
  std::sort(t.spines.begin(), t.spines.end(),
            [](const Switch& a, const Switch& b) { return NaturalLess(a.name, b.name); });
  t.Index();
}

void Discoverer::SortFindings() {
  std::vector<Finding>& v = out_.findings;
  std::stable_sort(v.begin(), v.end(), [](const Finding& a, const Finding& b) {
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

void Discoverer::ReportSwitches() {
  std::vector<SwitchReport>& v = out_.switches;
  std::vector<int> index(f_.nodes.size(), -1);
  for (size_t i = 0; i < f_.nodes.size(); ++i) {
    if (f_.nodes[i].type != IbNodeType::kSwitch) continue;
    index[i] = static_cast<int>(v.size());
    SwitchReport r;
    r.name = sws_[i].display;
    r.guid = sws_[i].guid;
    r.description = f_.nodes[i].description;
    r.ports = f_.nodes[i].ports;
    r.has_hcas = sws_[i].HasHcas();
    if (sws_[i].su >= 0) {
      r.su = "su" + std::to_string(sws_[i].su + 1);
      r.rail = sws_[i].rail;
    }
    v.push_back(std::move(r));
  }
  std::vector<std::vector<int>> hosts(v.size());
  for (const Attach& a : attaches_) hosts[index[a.sw]].push_back(ca_[a.ca].host);
  for (size_t i = 0; i < v.size(); ++i) {
    std::sort(hosts[i].begin(), hosts[i].end(),
              [&](int a, int b) { return host_rank_[a] < host_rank_[b]; });
    hosts[i].erase(std::unique(hosts[i].begin(), hosts[i].end()), hosts[i].end());
    for (int h : hosts[i]) v[i].hosts.push_back(hosts_[h]);
  }
  for (const Attach& a : unnamed_) ++v[index[a.sw]].unnamed;
  for (int li : switch_links_) {
    ++v[index[f_.links[li].a.node]].switch_links;
    ++v[index[f_.links[li].b.node]].switch_links;
  }
  for (const IbLink& l : f_.links) {
    for (const auto& [sw, ca] : {std::make_pair(l.a, l.b), std::make_pair(l.b, l.a)}) {
      if (index[sw.node] >= 0 && ca_[ca.node].role == CaRole::kNonCompute)
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
}

Discovery Discoverer::Run() {
  for (const Diag& w : f_.warnings) Add("ibnetdiscover-error", "", "", -1, 0, w.ToString());
  ClassifyCas();
  ClassifyLinks();
  NameSwitches();
  InferRails();
  if (rails_.empty()) {
    std::unordered_set<int> hosts;
    std::unordered_set<int> leaves;
    for (const Attach& a : attaches_) {
      hosts.insert(ca_[a.ca].host);
      leaves.insert(a.sw);
    }
    std::unordered_set<int> unnamed;
    for (const Attach& a : unnamed_) unnamed.insert(a.ca);
    std::string msg;
    if (hosts.empty() && unnamed.empty()) {
      msg = "the dump has no compute HCAs (" + Plural(out_.counts.cas, "CA") +
            ", none of them a compute HCA); expected HCAs described \"<host> <device>\"";
    } else {
      msg = "found " + Plural(static_cast<long>(hosts.size()), "named host") + " on " +
            Plural(static_cast<long>(leaves.size()), "switch", "switches") + " and " +
            Plural(static_cast<long>(unnamed.size()), "unnamed HCA") +
            ", but no HCA description names its device, so rails and scalable units cannot be "
            "inferred; expected descriptions \"<host> <device>\" as rdma-ndd sets them, or a "
            "--node-map that gives them";
    }
    Add("not-rail-optimized", "", "", -1, 0, msg);
  }
  GroupSus();
  PickLeaves();
  CheckAttachments();
  CheckMissing();
  CheckSwitchLinks();
  CheckNonRailLinks();
  BuildTopology();
  SortFindings();
  for (const std::vector<int>& hs : su_hosts_) out_.counts.hosts += static_cast<int>(hs.size());
  for (const std::vector<int>& per_su : su_leaf_)
    for (int sw : per_su) out_.counts.leaves += sw >= 0;
  out_.counts.spines = static_cast<int>(out_.topology.spines.size());
  ReportSwitches();
  return std::move(out_);
}

}  // namespace

std::string Finding::ToString() const { return kind + ": " + message; }

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i]));
    const bool db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      size_t ie = i;
      size_t je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      // Compare the numbers by value: skip leading zeros, then by length, then digit by digit.
      size_t is = i;
      size_t js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.compare(is, ie - is, b, js, je - js);
      if (c != 0) return c < 0;
      if (ie - i != je - j) return ie - i < je - j;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

bool CompileExclude(const std::string& pattern, std::optional<std::regex>* out, std::string* err) {
  try {
    *out = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    *err = "invalid regular expression '" + pattern + "': " + e.what();
    return false;
  }
  return true;
}

bool ParseNodeMap(std::string_view text, const std::string& filename, NodeMap* out, Diags* errors) {
  const char form[] = "<H-guid|S-guid|0xguid> <host> [<device>], e.g. H-003048c74e4a0000 node1";
  out->clear();
  std::unordered_map<uint64_t, int> first_line;
  const size_t errors_before = errors->size();
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = Trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    auto error = [&](const std::string& what) {
      errors->push_back(Diag{filename, line_no, 0, what + "; expected " + form});
    };
    size_t id_end = 0;
    while (id_end < line.size() && !std::isspace(static_cast<unsigned char>(line[id_end])))
      ++id_end;
    const std::string id(line.substr(0, id_end));
    const bool prefixed =
        id.size() > 2 && (id[0] == 'H' || id[0] == 'S' || id[0] == 'R') && id[1] == '-';
    const bool hex = id.size() > 2 && id[0] == '0' && (id[1] == 'x' || id[1] == 'X');
    uint64_t guid = 0;
    bool ok = (prefixed || hex) && id.size() <= 18;
    for (size_t i = 2; i < id.size() && ok; ++i) {
      const int c = std::tolower(static_cast<unsigned char>(id[i]));
      ok = std::isxdigit(c) != 0;
      guid = guid << 4 | static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    if (!ok) {
      error("bad GUID \"" + id + "\"");
      continue;
    }
    std::string_view name = Trim(line.substr(id_end));
    if (!name.empty() && name[0] == '"') {
      // ibnetdiscover's map quotes the name; a comment may follow the closing quote.
      size_t close = name.find('"', 1);
      if (close == std::string_view::npos) {
        error("unterminated name after " + id);
        continue;
      }
      name = Trim(name.substr(1, close - 1));
    } else {
      size_t hash = name.find('#');
      if (hash != std::string_view::npos) name = Trim(name.substr(0, hash));
    }
    if (name.empty()) {
      error("GUID " + id + " has no name");
      continue;
    }
    auto [it, fresh] = first_line.emplace(guid, line_no);
    if (!fresh) {
      error("GUID " + id + " is mapped twice (first at line " + std::to_string(it->second) + ")");
      continue;
    }
    (*out)[guid] = std::string(name);
  }
  return errors->size() == errors_before;
}

bool LoadNodeMapFile(const std::string& path, NodeMap* out, Diags* errors) {
  std::string text;
  return ReadTextFile(path, &text, errors) && ParseNodeMap(text, path, out, errors);
}

Discovery Discover(const IbFabric& fabric, const DiscoverOptions& opts) {
  Discoverer d(fabric, opts);
  return d.Run();
}

std::string DiscoverySummary(const Discovery& d) {
  const DiscoveryCounts& c = d.counts;
  const Topology& t = d.topology;
  return "discovered " + Plural(static_cast<long>(t.sus.size()), "scalable unit") + ", " +
         Plural(c.hosts, "host") + ", " + Plural(static_cast<long>(t.rails.size()), "rail") + ", " +
         Plural(c.leaves, "leaf", "leaves") + " and " + Plural(c.spines, "spine") + " from " +
         Plural(c.switches, "switch", "switches") + ", " + Plural(c.cas, "CA") + " (" +
         std::to_string(c.hcas) + " compute HCAs, " + std::to_string(c.unnamed) + " unnamed, " +
         std::to_string(c.non_compute) + " non-compute) and " + Plural(c.links, "link") + "; " +
         Plural(static_cast<long>(d.findings.size()), "finding");
}

}  // namespace railguard::topo
