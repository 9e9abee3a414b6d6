// SPDX-License-Identifier: GPL-2.0-or-later
// A fabric sweep: every switch and HCA port's link state and PMA counters, gathered through a
// FabricSource (libibnetdisc + libibmad in ibmad_source.h, a fake in tests) with a bounded
// number of MADs in flight over one MAD handle and a time limit per node, so one mute switch
// makes the result partial instead of hanging the sweep. A sweep may reuse an earlier sweep's
// discovery (KeptDiscovery): discovery is most of a sweep's MADs, and a fabric's cabling
// changes far less often than its counters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wire/sweep_json.h"

namespace railguard::fabric {

// The PortCounters fields a sweep reads (IBA 16.1.3.5), in this order; kCounterNames[i] is
// the name perfquery prints for counters[i] (the sweep JSON's names: wire/sweep_json.h).
enum Counter {
  kSymbolErrors,
  kLinkErrorRecovery,
  kLinkDowned,
  kRcvErrors,
  kRcvRemotePhysErrors,
  kRcvSwitchRelayErrors,
  kXmitDiscards,
  kXmitConstraintErrors,
  kRcvConstraintErrors,
  kLocalLinkIntegrityErrors,
  kExcessiveBufferOverrunErrors,
  kVl15Dropped,
  kXmitWait,
  kXmitData,  // 4-byte words; 64-bit from PortCountersExtended when supported
  kRcvData,
  kXmitPkts,
  kRcvPkts,
  kCounterCount
};
inline constexpr const char* const* kCounterNames = wire::kSweepCounterNames;
static_assert(kCounterCount == wire::kSweepCounterCount, "the sweep JSON names every counter");
// True for the counters that count errors (kSymbolErrors .. kVl15Dropped): any increase of
// one is a link problem; kXmitWait and the data counters are traffic.
bool IsErrorCounter(int counter);

// Width and speed of one port from its PortInfo. Widths are lanes (1, 2, 4, 8, 12), speeds
// InfiniBand names (SDR .. NDR); the enabled and supported values are the widest and fastest
// the port allows. 0 / "" when unknown.
struct LinkState {
  int width_active = 0;
  int width_enabled = 0;
  int width_supported = 0;
  std::string speed_active;
  std::string speed_enabled;
  std::string speed_supported;
};

// One port that has a link, as the sweep saw it.
struct SweptPort {
  int port = 0;            // 1-based
  uint64_t peer_guid = 0;  // node GUID at the far end
  int peer_port = 0;
  LinkState link;
  bool counters_read = false;  // false: the node did not answer in time (see SweptNode)
  bool extended = false;       // data counters from PortCountersExtended (64-bit)
  uint64_t counters[kCounterCount] = {};
};

// How a node's counter queries went.
enum class NodeStatus {
  kAnswered,    // every port's counters read
  kTimedOut,    // a query failed or the node's time limit passed: some ports unread
  kNotReached,  // the sweep's deadline passed before the node's turn
};

struct SweptNode {
  uint64_t guid = 0;
  bool is_switch = false;
  bool is_router = false;        // Discover reports routers (for topology discover --live);
                                 // RunSweep drops them: they are not swept
  int num_ports = 0;             // the node's port count (NodeInfo NumPorts)
  std::string description;       // NodeDescription
  int lid = 0;                   // switch: port 0's LID; HCA: its first linked port's LID
  std::vector<SweptPort> ports;  // linked ports, ascending
  NodeStatus status = NodeStatus::kNotReached;
  std::string error;           // why the node is not kAnswered
  int mads = 0;                // PMA queries sent to it
  std::vector<int> port_lids;  // HCA: the LID of each entry of `ports`; switch: empty
  bool pma_known = false;      // whether the PMA has PortCountersExtended is known (a kept
  bool pma_extended = false;   // discovery's): the counter phase skips ClassPortInfo
  bool check_lid = false;      // ask NodeInfo at `lid` first: a kept discovery's LID may have
                               // been given to another node since
  bool lid_taken = false;      // that NodeInfo came back from another node
};

// The gathered fabric.
struct Sweep {
  std::vector<SweptNode> nodes;  // switches first, then HCAs, each in GUID order
  int smps = 0;                  // SMPs discovery used, or with a kept discovery the NodeInfo
                                 // queries that checked its LIDs
  int mads = 0;                  // PMA queries the counter phase sent
  double seconds = 0;            // wall time of the whole sweep
  double time = 0;               // Unix time (s) the counter phase began: what the rates
                                 // between two sweeps are over (fabric/traffic.h)
  bool partial = false;          // some node is not kAnswered
  bool kept = false;             // the discovery was an earlier sweep's (smps 0)
  double discovered = 0;         // Unix time of the discovery used
  std::string discovery_reason;  // kept: "from a discovery 120 s old"; new: why ("no earlier
                                 // discovery to keep", "LinkDownedCounter of ... went from 0 to 1")
  int local_lid = 0, sm_lid = 0;  // the sending port's LID and its SM's LID (0: unknown)

  // Index of the node with `guid`, or -1. O(log n) in RunSweep's order (below); a scan for a
  // GUID that is not there or nodes in another order.
  int FindNode(uint64_t guid) const;
};

// One query of the counter phase: a PMA Get of ClassPortInfo, PortCounters or
// PortCountersExtended, or (kNodeInfo) a LID-routed SMP Get of NodeInfo, which checks that a
// kept discovery's LID still belongs to its node.
enum class PmaAttr { kClassPortInfo, kPortCounters, kPortCountersExtended, kNodeInfo };
struct PmaRequest {
  uint32_t tid = 0;  // transaction id the reply carries back (the low 32 bits of the MAD's)
  int lid = 0;
  int port = 0;  // PortSelect; 0 for ClassPortInfo
  PmaAttr attr = PmaAttr::kPortCounters;
};
// A decoded reply.
struct PmaReply {
  uint32_t tid = 0;
  bool ok = false;       // false: the MAD came back with a non-zero status or timed out
  std::string error;     // when !ok
  uint16_t capmask = 0;  // ClassPortInfo
  uint64_t node_guid = 0;                 // NodeInfo
  uint64_t counters[kCounterCount] = {};  // PortCounters; PortCountersExtended fills only the
                                          // four data counters
};

// Where a sweep's facts come from. All calls come from one thread.
class FabricSource {
 public:
  virtual ~FabricSource() = default;
  // Finds every node (switches, CAs, routers, in the discovery library's order) and linked
  // port with its LinkState and peer; sets `*smps`. Returns
  // false with `*err` set when the fabric cannot be discovered at all.
  virtual bool Discover(std::vector<SweptNode>* nodes, int* smps, std::string* err) = 0;
  // Opens the MAD handle the queries go through. false + `*err` on failure.
  virtual bool Open(std::string* err) = 0;
  // Sends `q` without waiting for the reply. false + `*err` when it cannot be sent.
  virtual bool Send(const PmaRequest& q, int timeout_ms, std::string* err) = 0;
  // Waits up to `timeout_ms` for one reply: 1 with `*r` set, 0 when none came, -1 with `*err`
  // on a receive error. Replies may come in any order; a late one may carry an old tid.
  virtual int Receive(int timeout_ms, PmaReply* r, std::string* err) = 0;
  // The LID of the port MADs go out of and the LID of its subnet manager, without a MAD.
  // false + `*err` when they cannot be read.
  virtual bool LocalPort(int* lid, int* sm_lid, std::string* err) = 0;
};

// A discovery an earlier sweep made, with that sweep's counters (fabric/baseline.h reads it
// from the sweep JSON).
struct KeptDiscovery {
  std::vector<SweptNode> nodes;   // as RunSweep left them: switches first; ports with their link
                                  // state and, where that sweep read them, counters
  double time = 0;                // Unix time of the discovery
  int local_lid = 0, sm_lid = 0;  // the sending port's LID and its SM's LID then
};

struct SweepOptions {
  int max_in_flight = 8;         // PMA MADs outstanding at once (each to another node)
  int mad_timeout_ms = 500;      // one query
  int switch_timeout_ms = 2000;  // all queries of one node
  int deadline_ms = 60000;       // the counter phase; nodes not started by then are skipped
  int rediscover_after_s = 900;  // a kept discovery at least this old is not used; 0: never
};

// Capability bits of PMA ClassPortInfo (IBA 16.1.3.1, Table 146): PortCountersExtended with
// all fields / without the IETF ones.
constexpr uint16_t kPmaExtWidthSupported = 1 << 9;
constexpr uint16_t kPmaExtWidthNoIetf = 1 << 10;

// Puts `nodes` in a sweep's order (what Sweep::nodes and KeptDiscovery::nodes hold): routers
// dropped, switches first, each kind by GUID.
void ArrangeNodes(std::vector<SweptNode>* nodes);

// Discovers the fabric through `source`, then reads every node's counters, at most
// `opts.max_in_flight` queries at a time and one at a time per node. A node whose query
// fails or whose queries take longer than switch_timeout_ms is kTimedOut and its remaining
// ports are left unread; nodes not begun by deadline_ms are kNotReached; either makes the
// sweep partial. Returns false with `*err` only when discovery or Open fails.
//
// With `kept`, discovery is skipped when the kept one is younger than rediscover_after_s and
// the sending port's LID and its SM's LID are still what they were (a new SM may have given
// out new LIDs): each node is asked for its NodeInfo at its kept LID (one SMP; a GUID that is
// not its own fails the node), then its counters (ClassPortInfo only where the kept sweep did
// not read it). Discovery then runs after all when what was read says the cabling or the LIDs
// may have changed: a node did not answer (one the kept sweep read) or answered as another,
// or a port's LinkDownedCounter or LinkErrorRecoveryCounter is not what the kept sweep read
// (the link went down, retrained, or its counters were reset). Counters already read from a node
// whose LIDs the new discovery confirms are kept; the rest are read. `out->discovery_reason` says
// which way it went.
bool RunSweep(FabricSource* source, const SweepOptions& opts, Sweep* out, std::string* err,
              const KeptDiscovery* kept = nullptr);

}  // namespace railguard::fabric
