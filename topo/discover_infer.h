// SPDX-License-Identifier: GPL-2.0-or-later
// Discovery, phase 1 (inference): from a parsed ibnetdiscover dump to its compute HCAs, rails,
// scalable units, leaves and spines. Its result, Inference, is what the audit
// (topo/discover_audit.h) and the output builders below read; nothing changes it afterwards.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "topo/discover.h"
#include "topo/ibnet.h"
#include "topo/model.h"

namespace railguard::topo {

// What a fabric node is to discovery (see the rules at the top of topo/discover.h).
enum class CaRole { kSwitch, kCompute, kUnnamed, kNonCompute, kOther };

// One fabric node as a CA.
struct CaInfo {
  CaRole role = CaRole::kOther;
  int host = -1;       // index into Inference::hosts; -1 when unnamed
  int dev = -1;        // index into Inference::devs; -1 when the description names no device
  std::string reason;  // why it is non-compute ("a UFM host")
};

// A compute (or unnamed) HCA port cabled to a switch port.
struct Attach {
  int ca = -1;  // fabric node of the HCA
  int sw = -1;  // fabric node of the switch
  int sw_port = 0;
  int link = -1;  // index into IbFabric::links
};

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
  bool HasHcas() const { return has_hosts || has_unnamed; }
  int majority_dev = -1;  // with has_hosts: the device most of its HCAs are, or -1
  int rail = -1;          // rail index when it is a leaf of a known rail
  int su = kNoSu;         // SU index when it is that SU's leaf; kNoSu or kDuplicate otherwise
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
  std::vector<int> switch_links;  // links between two different switches
  std::vector<int> loopbacks;     // links between two ports of one switch

  std::vector<std::string> rails;       // device name per rail
  std::vector<int> dev_rail;            // per device: its rail, or -1
  std::vector<std::string> rail_token;  // per rail: its most common link ("4xNDR")
  std::string host_token;               // the fabric's most common HCA link

  std::vector<int> host_su;                     // per host: SU index or -1
  std::vector<std::vector<int>> su_hosts;       // per SU: hosts, in Slurm host order
  std::vector<std::vector<int>> su_leaf;        // per SU, per rail: switch node or -1
  std::vector<int> host_port;                   // per host: its port on all its SU's leaves, or 0
  std::vector<int> host_rank;                   // per host: its place in Slurm host order
  std::vector<DuplicateLeaf> duplicate_leaves;  // in the order they were found

  DiscoveryCounts counts;  // all but `spines` (see BuildTopology)
};

// Classifies the fabric's nodes and links, infers the rails, groups leaves into SUs and picks
// one leaf per SU and rail. Never fails; whatever cannot be inferred is left for the audit.
Inference Infer(const IbFabric& fabric, const DiscoverOptions& opts);

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
