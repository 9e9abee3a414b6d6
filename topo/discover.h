// SPDX-License-Identifier: GPL-2.0-or-later
// Topology discovery: infers the rail topology (rails, scalable units, leaves, spines) from a
// parsed ibnetdiscover dump and audits the cabling against it, one finding per anomaly.
// This header is the entry callers use; behind Discover are its phases, topo/discover_infer.h
// (inference) and topo/discover_audit.h (audit). The node map format is topo/node_map.h.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "base/diag.h"
#include "topo/ibnet.h"
#include "topo/model.h"
#include "topo/node_map.h"

namespace railguard::topo {

// How discovery reads a dump:
//  - A CA is a compute HCA when its description is "<host> <device>" (as rdma-ndd sets it) or
//    "<host>" alone (device unknown), names made of letters, digits, '-', '_' and '.'. A
//    firmware default ("MT4129 ConnectX7 Mellanox Technologies", anything "MT<digits>..." or
//    naming Mellanox Technologies or ConnectX) is unnamed unless DiscoverOptions::node_map names
//    its GUID. A host name a host reports before its own is set ("localhost",
//    "localhost.localdomain", "ubuntu", "(none)"), and a host name on HCAs of several hosts
//    (two or more of its devices each on two or more HCAs), name no host: host-name.
//  - Non-compute: routers, SHARP aggregation nodes ("... Aggregation Node"), hosts named like
//    appliances ("ufm", "storage" or "mgmt" at the start or after '-', '_', '.': "ufm01",
//    "r-ufm216", "storage01", "r-mgmt2"), descriptions matching DiscoverOptions::exclude, and
//    by structure hosts of an SU with links on at most half of the rails, all on ports above
//    those the SU's hosts with a link on each of its leaves use (an appliance on compute leaves).
//  - A leaf is a switch with compute HCAs; the device most of them are is its NIC. Leaves are
//    grouped into one SU when more than half the hosts of the smaller leaf are on both; a host
//    belongs to the SU that holds most of its links.
//  - Tiers come from the structure: a switch with no HCAs cabled to a leaf is a spine; one two
//    or more switch hops from every leaf (cabled only to spines and cores) is a core switch (a
//    third tier, Topology::cores); switches no leaf reaches are spines. Names are checked
//    against it (tier-name). A switch that holds only service hosts, or two or more hops above
//    the leaves three or more non-compute CAs (SHARP nodes aside) or more of them than switch
//    links, is a service leaf: neither.
//  - Service hosts: where the widest one-hop domain has leaves on four or more rails (GPU
//    nodes), a domain whose hosts use at most two leaves (and at most half as many) is a group
//    of login, controller, cache or storage hosts: never an SU, one service-hosts finding.
//  - Such a group of leaves is a one-hop domain. Domains are one SU with several leaves per rail
//    (each leaf with `nodes:`, the SU's domains named <su>-d1, <su>-d2, ...) when their leaf
//    names say so: all leaves of most domains have names of one pattern (the same runs of digits
//    and of other characters), and the first run of digits that is the same on every leaf of each
//    domain and differs between domains (the SU: "su<1>-r0-a", "su<1>-r0-b", "su<2>-r0-a";
//    "su<1>-leaf07") is the same (when no such run differs, all domains share it), and the names
//    mark that run as the SU's: "su" before it, or a run numbering the rails ahead of it
//    ("DGX-LEAF-<rail>-<su>-a"). A run nothing marks ("pod1-leaf07") may be a pod's or a row's:
//    su-grouping. Rails, hosts and host ranges say nothing about it (a 64-node SU split at its
//    leaves looks like two 32-node SUs), so without such names each domain is an SU of its own.
//  - Rails follow from the leaves, not from the names: each leaf of an SU serves one rail. An SU
//    whose NIC names another SU's include (or one --rail-order list names) is of that SU's
//    node type, so images that share only some names stay apart. Types are named
//    DiscoverOptions::node_type, then "<node_type>-2", ... in SU order: hosts of another OS
//    image that name their HCAs HCA-1.. instead of mlx5_0.. get their own type and NIC list.
//    Each type's NICs are put in rail
//    order by the --rail-order list that names them, else by leaf names that number the rails
//    (one run of digits that takes the same values in every SU, "DGX-LEAF-<rail>-<su>",
//    "su1-rail2"), else in natural order; rail k of every type is one rail, and there are as
//    many rails as the largest type has NICs. A type with fewer NICs than that which nothing
//    orders is a rail-alignment finding.
//  - A fabric whose HCAs name no device at all (X5 in shared/data: a QDR fat tree whose HCAs keep
//    their default description, named by its map as bare host names) yields no rails and no SUs:
//    one not-rail-optimized finding says what was found, unnamed-hca and link-speed findings
//    still cover every HCA, and Discovery::switches lists each switch's hosts.
//
// One anomaly found in the fabric. The kinds, in the order findings are reported:
//   ibnetdiscover-error  the dump holds an error line of ibnetdiscover itself (file:line);
//                        the dump may be incomplete
//   not-rail-optimized   no HCA description names its device, so no rail can be inferred
//   not-rail-fabric      every host has one HCA on this fabric: a storage or management fabric
//                        or one plane of a multi-plane fabric, not a GPU rail fabric; its
//                        leaves are kept as one-rail SUs (one line for the fabric)
//   rail-alignment       a node type has fewer NICs than there are rails and neither a
//                        --rail-order list nor leaf names order them; they were given rails
//                        0.. in NIC order (one finding per type)
//   su-grouping          leaf names give one-hop domains one key that nothing marks as the
//                        SU's; or they put domains into one SU but a domain lacks a leaf
//                        on some rail or is of another node type; or, where names grouped
//                        domains, a domain's leaf names follow no pattern: the domains are
//                        kept as SUs of their own, and the message says what would decide it
//   spine-plane          in a fabric of rail planes (each spine serves mostly the leaves of one
//                        rail), an SU leaf cabled only to spines of another rail's plane than
//                        the rail its HCAs' names gave it (one finding per leaf)
//   tier-name            a switch named like a core switch ("core", "super") that is cabled to
//                        leaves in a fabric with a core tier, or named like a spine two hops
//                        above the leaves: the structure decides its tier (one per switch)
//   missing-leaf         an SU has no leaf for a rail: one finding per SU and rail (hca = the
//                        NIC of its node type on that rail, "" when unknown), not one per
//                        host; the SU keeps an empty leaf there
//   duplicate-leaf       an SU has two leaves for one rail; the one with fewer of the SU's
//                        hosts (the later one on a tie) is named and left out
//   stray-leaf           a switch with HCAs whose rail cannot be told (its majority device is
//                        not in --rail-order, or none of its HCAs names a device); left out
//   rail-mismatch        an HCA is cabled to a leaf of its own SU that serves another rail
//                        (swapped cables: one finding per HCA); switch/port = where it is
//   su-mismatch          an HCA is cabled to a leaf of another SU (or of no SU)
//   missing-link         a host lacks any HCA of a rail its SU has a leaf for; port = the port
//                        the host uses on all its other leaves when that port is free, else 0
//   duplicate-hca        a second HCA with the same "<host> <device>"; switch/port = the second
//   host-name            HCAs whose description gives a default host name, or one that
//                        several hosts give: one finding per slot (the SU and port, or switch
//                        and port off SUs; switch = its leaf of the lowest rail), the host left
//                        out; node = the name the slot probably has when the SU's hosts are
//                        named by port (dgx019 on port 1, dgx020 on port 2, ...), else ""
//   stray-hca            an HCA whose device is no rail's, on a rail leaf
//   nic-naming           a host that names its HCAs like another node type's hosts, not like
//                        its own SU's (one finding per host; switch/port = its first HCA)
//   unnamed-hca          an HCA that cannot be named, with the switch port it is cabled to; on
//                        an SU's leaf, node/hca name the host of that SU that lacks this rail
//                        and uses this port on its other leaves (or the only one lacking it),
//                        and that host gets no missing-link
//   link-speed           a link slower (rate, then width) than expected: an HCA link on a rail
//                        leaf against the rail's most common link; other HCA links against the
//                        fabric's most common HCA link; switch links against the most common
//                        switch link
//   link-disagree        the two ends of one link print different widths or speeds; the
//                        slower one counts everywhere else
//   uplink-deficit       an SU leaf with fewer cables to spines than most SU leaves
//   leaf-link            a cable between two leaves
//   loopback             a cable between two ports of the same switch
//   service-hosts        a leaf group of service hosts (see the rules): one finding per group,
//                        with its leaves, host count, HCAs per host and the first few hosts
//   non-compute          a CA that is not a compute HCA (see above), with the switch and port
//                        it is cabled to; left out of the topology
struct Finding {
  std::string kind;
  std::string node;         // host name, "" when unknown or not about one host
  std::string hca;          // device name ("mlx5_3"), "" when unknown
  std::string switch_name;  // the switch concerned (leaf or spine name, else its "S-<guid>" id)
  std::string guid;         // that switch's GUID, "0x" + 16 hex digits; "" if none
  int port = 0;             // that switch's port, 0 when not about one port
  std::string message;      // one line, says what was found and what was expected

  // "<kind>: <message>"
  std::string ToString() const;
};

struct DiscoverOptions {
  std::string cluster = "discovered";   // cluster name for the topology
  std::string node_type = "gpu-node";   // name of the first node type (see the rules above)
  int gpus = 8;                         // GPUs of every node type
  std::vector<std::string> rail_order;  // HCA names in rail order; empty = natural order
  // Further lists like rail_order, one per NIC naming (hosts of other OS images); a node type
  // whose NICs a list names takes its rail order from that list.
  std::vector<std::vector<std::string>> other_rail_orders;
  NodeMap node_map;                     // names HCAs whose description is the default
  std::optional<std::regex> exclude;    // CAs whose description matches are non-compute
};

// Compiles `pattern` (ECMAScript) for DiscoverOptions::exclude. Returns false with `*err`
// set when it is not a valid regular expression.
bool CompileExclude(const std::string& pattern, std::optional<std::regex>* out, std::string* err);

// What discovery saw, for the summary line.
struct DiscoveryCounts {
  int switches = 0;
  int leaves = 0;  // switches that are some SU's leaf
  int spines = 0;
  int cores = 0;  // switches of a third tier above the spines
  int cas = 0;   // all CAs and routers
  int hcas = 0;  // compute HCAs named "<host> <device>" (or by the node map)
  int hosts = 0;
  int unnamed = 0;      // CAs with an unnamed-hca finding
  int non_compute = 0;  // CAs with a non-compute finding
  int links = 0;
};

// One switch as discovery saw it.
struct SwitchReport {
  std::string name;                // as findings name it: leaf or spine name, else "S-<guid>"
  std::string guid;                // "0x" + 16 hex digits
  std::string description;         // its NodeDescription
  int ports = 0;                   // port count (0 if the dump has no record of its own)
  bool has_hcas = false;           // compute or unnamed HCAs are cabled to it (a leaf)
  std::string tier;                // "leaf", "spine", "core" or "service" (see the rules)
  std::string su;                  // "su3" when it is that SU's leaf, else ""
  int rail = -1;                   // the rail it serves as a leaf, else -1
  std::vector<std::string> hosts;  // hosts of its compute HCAs, in Slurm host order
  int unnamed = 0;                 // unnamed HCAs cabled to it
  int non_compute = 0;             // non-compute CAs cabled to it
  int switch_links = 0;            // cables to other switches
};

struct Discovery {
  // Rails, node types, SUs (su1..suN by first host in Slurm host order), leaves and spines.
  // Has no rails and no SUs when none could be inferred (see not-rail-optimized). A leaf
  // missing from the fabric is kept with no name, GUID or port count (see missing-leaf).
  Topology topology;
  std::vector<Finding> findings;  // grouped by kind in the order listed above, then by host
  DiscoveryCounts counts;
  std::vector<SwitchReport> switches;  // every switch, leaves by SU and rail first, then by name
};

// Infers the topology from `fabric` and audits it. Never fails: whatever cannot be inferred
// becomes a finding. Hosts are the first word of "<host> <device>" CA descriptions; an SU is a
// group of leaves that share most of their hosts, so a few miscabled HCAs do not merge SUs;
// each of its leaves is one rail, aligned across node types as the rules above say.
Discovery Discover(const IbFabric& fabric, const DiscoverOptions& opts);

// One line: "discovered 4 scalable units, 32 hosts, 8 rails, 32 leaves and 2 spines from 34
// switches, 256 CAs (...) and 320 links; 0 findings".
std::string DiscoverySummary(const Discovery& d);

// The findings as an admin reads them, one line each ending in '\n', in their order (the
// kinds that need action first, non-compute last). With `all`, every finding as
// Finding::ToString(). Otherwise a kind with more than `first_few` findings is one line:
//   "<kind>: <n> findings (--all lists each), the first <first_few>: <message>; <message>; ..."
// and a kind with at most `first_few` keeps a line per finding.
std::string FindingsText(const std::vector<Finding>& findings, bool all, size_t first_few = 3);

}  // namespace railguard::topo
