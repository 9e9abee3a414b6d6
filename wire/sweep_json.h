// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric sweep JSON, its writer and its one reader: what `railctl fabric sweep --json`
// writes (fabric/render.h) and what reads it back: a later sweep (--baseline, --previous,
// --state-dir: fabric/baseline.h), `railctl report --sweep` and `railctl fabric evidence`
// (report/sweep_input.h). One object, two-space indented, each link on one line:
//   {"complete": true,
//    "summary": {"switches", "hcas", "links", "findings", "unread", "unanswered", "smps",
//                "mads", "seconds", "time",
//                "discovery": {"kind": "new" | "kept", "time", "reason", "local_lid", "sm_lid"}},
//    "grid": [{"su": "su1", "rails": [{"rail": "rail0", "links": 9, "bad": 1, "unread": 0}]}],
//    "findings": [{"kind", "side", "message", "link": index into "links"}],
//    "unanswered": [{"name", "guid", "lid", "status", "error"}],
//    "missing": [{"su", "rail", "host", "hca"}],
//    "links": [{"kind": "host", "su": "su1", "rail": "rail0", "host": "n001", "hca": "mlx5_0",
//               "a": {"name": "n001 mlx5_0", "guid": "0x0c42a10300000100", "port": 1, "lid": 35,
//                     "width": {"active": 4, "enabled": 4, "supported": 12},
//                     "speed": {"active": "HDR", "enabled": "HDR", "supported": "HDR"},
//                     "extended_counters": true, "counters": {"SymbolErrorCounter": 0, ...},
//                     "switch": false, "description": "n001 mlx5_0"},
//               "b": {...}, "findings": [{"kind", "side", "message"}], "traffic": {...}}],
//    "traffic": {"seconds", "previous_time", "grid", "spines"}}
// "counters" is null for an end the sweep did not read; "traffic" (on each link and at the
// top) only with --previous. "switch" and "description" (the node's NodeDescription) and the
// summary's "discovery" are what a later sweep needs to reuse this one's discovery
// (fabric/sweep.h's KeptDiscovery); sweeps written before them lack them. The summary's links,
// findings, unread and unanswered and the top-level "findings" follow from the rest: the writer
// computes them, the reader skips them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"
#include "base/text_file.h"

namespace railguard::wire {

constexpr InputKind kSweepJsonInput{"a fabric sweep JSON (railctl fabric sweep --json)",
                                    256u << 20};

// The PMA counters of an end as perfquery names them, in the order of fabric/sweep.h's
// Counter: error counters, then PortXmitWait, the data and the packet counters.
constexpr int kSweepCounterCount = 17;
inline constexpr const char* kSweepCounterNames[kSweepCounterCount] = {
    "SymbolErrorCounter",
    "LinkErrorRecoveryCounter",
    "LinkDownedCounter",
    "PortRcvErrors",
    "PortRcvRemotePhysicalErrors",
    "PortRcvSwitchRelayErrors",
    "PortXmitDiscards",
    "PortXmitConstraintErrors",
    "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors",
    "ExcessiveBufferOverrunErrors",
    "VL15Dropped",
    "PortXmitWait",
    "PortXmitData",
    "PortRcvData",
    "PortXmitPkts",
    "PortRcvPkts"};
using SweepCounters = std::array<uint64_t, kSweepCounterCount>;

// One end of a link: a port of a swept HCA or switch.
struct SweepEnd {
  std::string name;   // "n005 mlx5_3", "su1-rail3", "spine1"
  uint64_t guid = 0;  // node GUID
  int port = 0;       // 1..254
  int lid = 0;
  int width_active = 0, width_enabled = 0, width_supported = 0;  // lanes, 0 unknown
  std::string speed_active, speed_enabled, speed_supported;      // "NDR", "" unknown
  bool extended_counters = false;  // data counters from PortCountersExtended (64-bit)
  bool counters_read = false;      // false: "counters" is null and `counters` is all 0
  SweepCounters counters{};        // by kSweepCounterNames
  bool node_known = false;         // "switch" and "description" were written (read)
  bool is_switch = false;
  std::string description;  // NodeDescription as discovery read it
};

// One finding of the sweep on a link (fabric/judge.h's LinkFinding).
struct SweepFinding {
  std::string kind;  // "errors", "width", "speed", "unread"
  std::string side;  // "host", "leaf", "spine", "core", "switch" or "both"
  std::string message;
};

// One end's rates between the previous sweep and this one (fabric/traffic.h's EndTraffic).
struct SweepEndTraffic {
  bool known = false;  // false: not read in both sweeps, written as null (the rest is 0)
  double xmit_bps = 0, rcv_bps = 0, xmit_wait = 0, utilization = 0;
  bool saturated = false;
};

// A link's traffic (fabric/traffic.h's LinkTraffic).
struct SweepLinkTraffic {
  double capacity_bps = 0, utilization = 0, xmit_wait = 0;
  SweepEndTraffic a, b;
};

struct SweepLink {
  std::string kind;       // "host" (a = HCA, b = switch), "uplink" (a = leaf, b = spine),
                          // "core" (a = spine, b = core switch), "unknown" (a = the end
                          // with the lower GUID)
  std::string su, rail;   // names; "" (null in the JSON) when the sweep mapped none
  std::string host, hca;  // host links; "" (null) for others
  SweepEnd a, b;
  std::vector<SweepFinding> findings;
  std::optional<SweepLinkTraffic> traffic;  // with --previous
};

// An HCA the topology expects that the sweep did not find.
struct SweepMissing {
  std::string su, rail, host, hca;
};

// A node whose counters were not all read.
struct SweepUnanswered {
  std::string name;
  uint64_t guid = 0;
  int lid = 0;
  std::string status;  // "timed-out" or "not-reached"
  std::string error;   // why
};

// One SU x rail cell of the grid: its leaf's links, those with findings (missing HCAs count)
// and those with unread counters.
struct SweepGridCell {
  std::string rail;
  int links = 0, bad = 0, unread = 0;
};
struct SweepGridRow {
  std::string su;
  std::vector<SweepGridCell> rails;
};

// The traffic section (fabric/traffic.h's Traffic, CellTraffic, SpineTraffic).
struct SweepTrafficCell {
  std::string rail;
  double host_max = 0, uplink = 0, uplink_wait = 0;
  int host_links = 0, uplinks = 0;
};
struct SweepTrafficRow {
  std::string su;
  std::vector<SweepTrafficCell> rails;
};
struct SweepSpineTraffic {
  std::string name;
  double utilization = 0, xmit_wait = 0;
  int links = 0;
};
struct SweepTraffic {
  double seconds = 0, previous_time = 0;
  std::vector<SweepTrafficRow> grid;
  std::vector<SweepSpineTraffic> spines;
};

// What "summary" holds besides the counts that follow from the rest.
struct SweepSummary {
  int switches = 0, hcas = 0;
  int smps = 0, mads = 0;  // SMPs discovery used, PMA queries sent
  double seconds = 0;      // wall time of the sweep
  double time = -1;        // Unix time the counter phase began; -1: none (sweeps written
                           // before it had one), and the writer then leaves it out
  // The discovery the sweep used; written when `discovery_kind` is not empty.
  std::string discovery_kind;     // "new" (discovered by this sweep) or "kept" (an earlier one's)
  double discovery_time = -1;     // Unix time of that discovery
  std::string discovery_reason;   // why it was new or kept ("kept discovery 1203 s old ...")
  int local_lid = 0, sm_lid = 0;  // the sending port's LID and its SM's LID at the time
};

struct SweepDocument {
  bool complete = true;  // false: some node did not answer (PARTIAL)
  SweepSummary summary;
  std::vector<SweepGridRow> grid;
  std::vector<SweepUnanswered> unanswered;
  std::vector<SweepMissing> missing;
  std::vector<SweepLink> links;  // each link's findings in the order they were found
  std::optional<SweepTraffic> traffic;
};

// The JSON text of `d` (ends with a newline). Text that is not valid UTF-8 is written with
// U+FFFD. The links are written one at a time, never as one JSON tree (42,000 links of a
// 4096-node fabric took about 500 MB as a tree).
std::string SweepDocumentToJson(const SweepDocument& d);

// How much of a sweep a reader needs.
enum class SweepParts {
  kAll,        // everything the writer writes
  kCounters,   // summary.time and each link end's guid, port and counters only (baselines);
               // nothing else is required or read
  kDiscovery,  // kCounters, summary.discovery, and each end's lid, width, speed,
               // extended_counters, switch and description (a kept discovery); the link's own
               // members are not read
};

// Parses `text` (`filename` names it in diagnostics) into `*out`. Required: "links" (an
// array of objects with ends "a" and "b", each with "guid" ("0x" + 16 hex digits), "port"
// (1..254) and "counters" (null, or every name of kSweepCounterNames as a non-negative
// integer)); with kAll also "complete", "missing", each link's kind, su, rail, host, hca
// (string or null) and findings; with kAll and kDiscovery each end's lid, width and speed
// (active, enabled, supported) and extended_counters, with kAll its name. Optional: "summary"
// and each of its members (older sweeps have no time); with kAll and kDiscovery an end's
// "switch" with "description" (both or neither) and "summary": {"discovery"} (all its members
// when present); with kAll "grid", "unanswered" and "traffic" (each checked whole when present).
// Unknown members are ignored (newer writers). A problem in a link's own members ends that
// link, one in an end ends that end. Problems go to `*errors` as
// "file:line:column: <what>; expected <form>" (at most 20); true when there was none.
bool ParseSweepDocument(std::string_view text, const std::string& filename, SweepParts parts,
                        SweepDocument* out, Diags* errors);

// As ParseSweepDocument, reading `path` (ReadTextFile's rules and messages).
bool LoadSweepDocument(const std::string& path, SweepParts parts, SweepDocument* out,
                       Diags* errors);

}  // namespace railguard::wire
