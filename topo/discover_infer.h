// SPDX-License-Identifier: GPL-2.0-or-later
// Discovery, phase 1 (inference): from a parsed ibnetdiscover dump to its compute HCAs, rails,
// scalable units, leaves and spines. Its result, Inference, is what the audit
// (topo/discover_audit.h) and the output builders below read; nothing changes it afterwards.
#pragma once

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include "topo/discover.h"
#include "topo/ibnet.h"
#include "topo/model.h"

namespace railguard::topo {

// What a fabric node is to discovery (see the rules at the top of topo/discover.h).
// kAnonymous: an HCA whose description names a default host ("localhost mlx5_0") or a host
// name that several hosts give; it is not a host of the topology (see host-name).
enum class CaRole { kSwitch, kCompute, kUnnamed, kNonCompute, kAnonymous, kOther };

// One fabric node as a CA.
struct CaInfo {
  CaRole role = CaRole::kOther;
  int host = -1;       // index into Inference::hosts; -1 when unnamed
  int dev = -1;        // index into Inference::devs; -1 when the description names no device
  std::string reason;  // why it is non-compute ("a UFM host"); for kAnonymous "default" or
                       // "repeated"
  // An appliance told by its structure (non-compute with an empty reason): it has links on
  // `rails_on` of the `su_rails` rails, all on ports above the `lo` to `hi` its SU's hosts use.
  int rails_on = 0;
  int su_rails = 0;
  int lo = 0;
  int hi = 0;
  // A service host (FindServiceGroups): the index of its leaf group, else -1. Such hosts are
  // non-compute and reported as one service-hosts finding per group, not one per HCA.
  int service_group = -1;
};

// A compute (or unnamed) HCA port cabled to a switch port.
struct Attach {
  int ca = -1;  // fabric node of the HCA
  int sw = -1;  // fabric node of the switch
  int sw_port = 0;
  int link = -1;  // index into IbFabric::links
};

// Where a switch sits (AssignTiers): a leaf has HCAs; a spine is cabled to a leaf; a core
// switch only to spines and cores (two or more switch hops from the nearest leaf); a service
// leaf holds only service hosts (FindServiceGroups) or, two or more hops above the leaves,
// three or more non-compute CAs (SHARP nodes aside) or more of them than switch links (a
// storage or management leaf). Switches no leaf reaches are spines.
enum class SwitchTier { kLeaf, kSpine, kCore, kService };

// "leaf", "spine", "core", "service".
const char* TierName(SwitchTier tier);

// SwInfo::su for a rail leaf that is no SU's leaf, and for a leaf left out as a duplicate.
constexpr int kNoSu = -1;
constexpr int kDuplicate = -2;

// One fabric node as a switch.
struct SwInfo {
  std::string yaml_name;      // safe, unique name from the description; "" when there is none
  std::string display;        // how findings name it (an SU leaf without a name: "su1-rail0")
  std::string guid;           // "0x" + 16 hex digits
  std::vector<int> attaches;  // compute attachments (indexes into Inference::attaches)
  bool has_hosts = false;     // compute HCAs are cabled to it
  bool has_unnamed = false;   // unnamed HCAs are cabled to it
  bool has_anonymous = false;  // HCAs of default or repeated host names are cabled to it
  bool HasHcas() const { return has_hosts || has_unnamed || has_anonymous; }
  bool rail_leaf = false;  // its HCAs name a device that may be a rail's (grouped into SUs)
  int majority_dev = -1;  // with has_hosts: the device most of its HCAs are, or -1
  int rail = -1;          // rail index when it is a leaf of a known rail
  int su = kNoSu;         // SU index when it is that SU's leaf; kNoSu or kDuplicate otherwise
  SwitchTier tier = SwitchTier::kSpine;  // set by AssignTiers
};

// A second leaf for one rail of an SU, as inference resolved it (duplicate-leaf).
struct DuplicateLeaf {
  int su = 0;
  int rail = 0;
  int keep = -1;       // the leaf kept (switch node)
  int drop = -1;       // the leaf left out (switch node)
  int keep_links = 0;  // links from the SU's hosts on each
  int drop_links = 0;
  std::string keep_name;  // the kept leaf's display name when the choice was made
};

struct Inference {
  std::vector<CaInfo> ca;   // per fabric node
  std::vector<SwInfo> sws;  // per fabric node (only switches are used)
  std::vector<std::string> hosts;
  std::vector<std::string> devs;

  std::vector<Attach> attaches;   // compute HCA links, in link order
  std::vector<Attach> unnamed;    // unnamed HCA links, in link order
  std::vector<Attach> anonymous;  // kAnonymous HCA links, in link order
  std::vector<int> switch_links;  // links between two different switches
  std::vector<int> loopbacks;     // links between two ports of one switch

  // Rails follow from the leaves: each SU's leaves serve its hosts' NICs. SUs whose hosts share
  // NIC names are one node type; each type's NICs are put in rail order (--rail-order, else
  // natural order) and rail k of every type is one rail.
  std::vector<std::string> rails;  // per rail: the first type's NIC ("" when unknown); its
                                   // size is the rail count (empty: no rails)
  std::vector<std::vector<std::string>> type_nics;  // per node type, per rail: its NIC or ""
  std::vector<int> su_type;                         // per SU: its node type
  std::vector<int> undecided_types;  // types whose NICs are fewer than the rails and that no
                                     // --rail-order list orders (rail-alignment)
  bool rail_order_given = false;     // --rail-order was given
  std::vector<int> dev_rail;         // per device: its rail in the first type naming it, or -1
  std::vector<std::vector<int>> type_dev_rail;  // per node type, per device: its rail, or -1
  std::vector<std::string> rail_token;  // per rail: its most common link ("4xNDR")
  std::string host_token;               // the fabric's most common HCA link

  std::vector<int> host_su;                     // per host: SU index or -1
  std::vector<std::vector<int>> su_hosts;       // per SU: hosts, in Slurm host order
  std::vector<std::vector<int>> su_leaf;        // per SU, per rail: switch node or -1
  std::vector<int> host_port;                   // per host: its port on all its SU's leaves, or 0
  std::vector<int> host_rank;                   // per host: its place in Slurm host order
  std::vector<DuplicateLeaf> duplicate_leaves;  // in the order they were found

  // The "SUs" above (su_hosts, su_leaf, host_su, SwInfo::su) are one-hop domains: groups of
  // leaves that share their hosts. GroupDomains makes SUs of them; without leaves of several
  // domains per rail in one SU, domain d is SU d.
  std::vector<int> su_group;         // per domain: the index of its SU in the topology
  std::vector<std::string> su_name;  // per domain: "su3", or "su1-d2" in an SU of several
  int group_count = 0;               // SUs in the topology
  struct Note {  // a finding inference makes (su-grouping, spine-plane, tier-name)
    std::string kind;
    int sw = -1;         // the switch it names, or -1
    std::string message;
  };
  std::vector<Note> notes;  // su-grouping, spine-plane, tier-name, service-hosts and
                            // not-rail-fabric notes, in that order

  DiscoveryCounts counts;  // all but `spines` (see BuildTopology)

  // How findings name domain `su`: su_name[su] once GroupDomains ran, else "su<su+1>".
  std::string SuName(int su) const {
    return su >= 0 && su < static_cast<int>(su_name.size()) ? su_name[su]
                                                             : "su" + std::to_string(su + 1);
  }

  // The rail of device `dev` in SU `su`'s node type, else in the first type naming it (su < 0,
  // or a host whose HCAs are named like another type's), else -1.
  int DevRail(int su, int dev) const {
    if (su >= 0 && su < static_cast<int>(su_type.size())) {
      const int r = type_dev_rail[su_type[su]][dev];
      if (r >= 0) return r;
    }
    return dev_rail[dev];
  }
  // The NIC of `rail` in SU `su`'s node type (the first type when su < 0); "" when unknown.
  const std::string& Nic(int su, int rail) const {
    return type_nics[su >= 0 && su < static_cast<int>(su_type.size()) ? su_type[su] : 0][rail];
  }
};

// CAs told to be appliances by their structure (FindAppliances): fabric node -> its CaInfo
// (role, rails_on, su_rails, lo, hi; host and device are kept from its description).
using Appliances = std::map<int, CaInfo>;

// Classifies the fabric's nodes and links, infers the rails, groups leaves into SUs and picks
// one leaf per SU and rail. Never fails; whatever cannot be inferred is left for the audit.
Inference Infer(const IbFabric& fabric, const DiscoverOptions& opts);

// A switch's name from its NodeDescription: "MF0;su1-rail0:MQM9700/U1" (NVIDIA's switch
// firmware) -> "su1-rail0"; other descriptions are the name themselves.
std::string SwitchNameFromDescription(const std::string& desc);

// Inference in two passes: when the first finds appliances on compute leaves, the second
// starts again with them non-compute. Infer calls this; tests need not.
Inference InferWith(const IbFabric& fabric, const DiscoverOptions& opts,
                    const Appliances& appliances);

// Rails from the leaves (topo/discover_align.cc): per SU the devices its leaves serve; an SU
// whose devices a --rail-order list names, or all of whose devices another SU's include, is of
// that SU's node type; each type's NICs in rail order; sets rails, type_nics, su_type,
// undecided_types, dev_rail, type_dev_rail and each leaf's rail (a leaf whose device is in no type
// loses its SU). `dev_index` maps device names to Inference::devs.
void AlignRails(const DiscoverOptions& opts, const std::unordered_map<std::string, int>& dev_index,
                Inference* in);

// Groups one-hop domains into SUs (topo/discover_domains.cc) after the leaves are picked: the
// domains whose leaves' names carry one SU key (the first run of digits that is the same on
// every leaf of a domain and differs between domains, "su<1>-r0-a"), marked as the SU's ("su"
// before it or a rail run ahead of it), are one SU when each has a leaf on every rail and all
// are of one node type; else they stay SUs of their own with an
// su-grouping note saying why, as does a domain whose leaf names follow no pattern when others
// were grouped. Sets su_group, su_name, group_count, notes, and names unnamed leaves
// "<su_name>-rail<r>".
void GroupDomains(Inference* in);

// Spine planes as evidence for the rails (topo/discover_planes.cc): when every spine cabled to
// SU leaves serves mostly leaves of one rail, and the spines serve at least two rails so (rail
// planes), a leaf all of whose spines serve another rail's leaves disagrees with the rail its
// HCAs' names gave it: one spine-plane note per such leaf, naming both rails and what would
// decide it. Without planes (every spine serves every rail) spines say nothing. REQUIRES:
// GroupDomains ran (notes name leaves and SUs).
void CheckSpinePlanes(const IbFabric& fabric, Inference* in);

// Hosts of an SU that are appliances by their structure: links on at most half of the rails,
// all on ports above those of the SU's hosts that have a link on each of its leaves. Empty when
// none.
Appliances FindAppliances(const Inference& in);

// Leaf groups of service hosts (topo/discover_tiers.cc): in a fabric whose widest one-hop domain
// has leaves on four or more rails (GPU nodes), a domain whose hosts use at most two leaves (and
// at most half as many) holds login, controller, cache or storage-gateway hosts, not GPU nodes.
// Their compute HCAs, as non-compute CaInfo with service_group set (one group per domain, in
// domain order). Empty when none.
Appliances FindServiceGroups(const Inference& in);

// Sets SwInfo::tier of every switch (see SwitchTier) and adds a tier-name note for each spine or
// core switch whose name says the other tier ("core"/"super" in a spine's name, "spine" without
// "super" in a core switch's): the structure decides. REQUIRES: ClassifyLinks and GroupDomains
// ran.
void AssignTiers(const IbFabric& fabric, Inference* in);

// The notes of what the fabric is, from the final inference (topo/discover_tiers.cc): one
// service-hosts note per group FindServiceGroups made (its leaves, host count, HCAs per host,
// the first 3 hosts), and a not-rail-fabric note when every host has one HCA (one rail).
void NoteServiceGroups(const IbFabric& fabric, Inference* in);
void NoteRailFabric(Inference* in);

// The name of node type `type`: DiscoverOptions::node_type for the first, "<node_type>-<k+1>"
// for the k-th after it (k from 0: "gpu-node", "gpu-node-2", ...).
std::string TypeName(const DiscoverOptions& opts, int type);

// Disjoint sets of 0..n-1; the smallest index is each set's root.
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

// The rail topology `in` describes (Discovery::topology): no rails and no SUs when none could
// be inferred.
Topology BuildTopology(const IbFabric& fabric, const Inference& in, const DiscoverOptions& opts);

// Every switch as discovery saw it, leaves by SU and rail first, then by name
// (Discovery::switches).
std::vector<SwitchReport> ReportSwitches(const IbFabric& fabric, const Inference& in);

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

// The most common link token ("4xNDR") of `counts`; ties and unparseable tokens lose to
// faster parseable ones. "" when `counts` is empty.
std::string TokenMode(const std::map<std::string, int>& counts);

}  // namespace railguard::topo
