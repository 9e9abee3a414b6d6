// SPDX-License-Identifier: GPL-2.0-or-later
// The fleet report: per-node and per-(SU, rail) fabric health, drained and restricted nodes,
// placeable capacity, jobs on degraded paths, root-cause suspects and event history, built
// as a pure function of a Slurm snapshot, the rail topology and the health event log.
#pragma once

#include <array>
#include <iterator>
#include <string>
#include <vector>

#include "base/diag.h"
#include "report/job_fabric.h"
#include "report/snapshot.h"
#include "report/sweep_input.h"
#include "topo/model.h"
#include "wire/event_log.h"
#include "wire/extra_json.h"

namespace railguard::report {

// A rail's state in the report: railcheck's word from Extra, or unknown.
using wire::RailState;
using wire::RailStateName;

// The report's JSON schema version (report/SCHEMA.md).
constexpr int kReportSchemaVersion = 1;

// The actions railcheck in observe mode says it would take (wire::kWouldActions: drain,
// restrict, requeue, resume), and how many there are: Report::would_nodes has one list each.
using wire::kWouldActions;
constexpr size_t kWouldActionCount = std::size(wire::kWouldActions);

struct ReportOptions {
  // The node feature railcheck maintains (railguard.yaml placement.healthy_feature); railctl
  // refuses an empty one, and an empty one is on no node.
  std::string healthy_feature = "rail_healthy";
  // A railcheck report in Extra older than this (relative to the snapshot) is flagged stale.
  double stale_after_seconds = 2 * 3600;
  // Where the history came from, for the report's text ("" = no history was read).
  std::vector<std::string> history_files;
  bool history_read = false;  // true when at least one history file existed
  // The latest fabric sweep (railctl report --sweep), or nullptr: the root cause then says
  // which end of a link errs and takes leaf ports from it. Not owned; outlives BuildReport.
  const SweepInput* sweep = nullptr;
};

// How a node's rail states were learned.
enum class HealthSource {
  kExtra,   // railcheck's JSON in the Extra field
  kReason,  // no usable Extra, but a "railcheck: railN ..." drain reason names the rail
  kNone,    // nothing: rails unknown
};
const char* HealthSourceName(HealthSource s);  // "extra", "reason", "none"

// The two history windows, newest first.
enum Window { k24h = 0, k7d = 1 };
constexpr double kWindowSeconds[2] = {24 * 3600.0, 7 * 24 * 3600.0};
constexpr const char* kWindowNames[2] = {"24h", "7d"};

// A counter rate from the history, as of one event.
struct CounterRate {
  std::string name;
  double per_hour = 0;
  uint64_t delta = 0;
  double seconds = 0;
};

// History of one rail of one node.
struct RailHistory {
  std::array<int, 2> flaps{};         // flap events per window
  std::array<int, 2> degradations{};  // degraded + down events per window
  std::array<int, 2> recoveries{};
  double last_event = 0;           // time of the newest event, 0 = none
  double rates_time = 0;           // when `rates` were seen (newest event with counters)
  std::vector<CounterRate> rates;  // highest rate first
  bool any() const { return last_event > 0; }
};

// One event of a node, for the drill-down (the last 7 days, newest first).
struct NodeEvent {
  double time = 0;
  std::string kind;
  int rail = -1;
  std::string checks;  // comma separated
  std::string detail;
};

struct NodeRow {
  std::string name;
  int su = -1;        // index into Report::sus
  int position = -1;  // index in its SU's hostlist
  bool in_slurm = false;
  std::string state;               // Slurm base state ("idle", ...); "" when not in Slurm
  std::vector<std::string> flags;  // Slurm state flags
  bool drained = false;            // the DRAIN flag
  std::string drained_by;          // "railcheck" (reason prefix) or "admin" when drained
  bool down = false;               // base state down, or not responding
  bool restricted = false;         // not drained, lacks the healthy feature while in use
  bool idle = false;               // base state idle
  bool free = false;               // idle, schedulable, not restricted, no bad rail
  std::string reason;
  double reason_time = 0;
  std::string reason_user;
  HealthSource source = HealthSource::kNone;
  double health_time = 0;        // railcheck's time in Extra (0 = none)
  std::string verdict;           // railcheck's verdict in Extra ("" = none)
  bool stale = false;            // health_time older than the stale limit
  std::vector<RailState> rails;  // one per topology rail
  std::vector<int> leaf_ports;   // per rail: the leaf port it is cabled to (0 = unknown)
  std::vector<std::vector<std::string>> rail_checks;  // failed checks per rail
  std::vector<std::string> node_checks;               // failed checks of the node as a whole
  std::vector<uint32_t> jobs;                         // ids of jobs on it
  std::vector<RailHistory> history;                   // one per rail
  std::vector<std::string> fw;  // per rail: its NIC's fw_ver from Extra's "fw" ("" unknown)
  // Observe mode (railguard.yaml health.mode: observe): railcheck's Extra carries "would",
  // what it would have done in enforce mode and did not. `observe` is false for enforce mode
  // (no "would") and for a node without a readable report; `would` then is empty. Its words
  // are kWouldActions, each once, in that order.
  bool observe = false;
  std::vector<std::string> would;
  // The drain budget (railguard.yaml health.drain_budget) was spent: railcheck's finding
  // would take the node out of multi-node jobs, and it stays in service (Extra's
  // "budget":"over"). An attention node.
  bool over_budget = false;
  std::array<int, 2> drains{};                        // drained events per window
  std::array<int, 2> restricts{};                     // restricted events per window
  std::array<int, 2> incidents{};  // incidents per window (history_section.h: the rule)
  double restricted_since = 0;  // the newest restricted event in 7 days (0 = none)
  // Needs a look: a bad rail, drained, restricted, down, a repeat offender, or something
  // railcheck would do in observe mode (`would` not empty). Only these nodes keep `events`
  // and get a drill-down in the HTML page.
  bool attention = false;
  std::vector<NodeEvent> events;  // attention nodes: the last 7 days, newest first, <= 20

  int BadRails() const;  // rails degraded or down
  bool Unhealthy() const { return BadRails() > 0; }
  bool Would(const char* action) const;  // `action` is in `would`
};

// One (SU, rail) cell of the matrix.
struct Cell {
  int ok = 0, degraded = 0, down = 0, unknown = 0;
  std::vector<int> bad;  // indices into Report::nodes of its degraded and down nodes
  RailState Worst() const;
};

struct SuRow {
  std::string name;
  std::vector<std::string> leaves;  // leaf switch name per rail
  std::vector<std::string> nics;    // NIC of each rail in the SU's node type ("?" unknown)
  std::vector<int> nodes;           // indices into Report::nodes
  std::vector<Cell> cells;          // one per rail
  int idle = 0, free = 0, drained = 0, restricted = 0, down = 0, unhealthy = 0, no_report = 0;
  int largest_job = 0;  // free nodes if at least 2, else 0: the largest multi-node job now
};

struct JobRow {
  uint32_t id = 0;
  std::string name, user, state, nodes, partition;
  int node_count = 0;
  double start_time = 0;
  std::vector<std::string> sus;  // SUs it spans
  std::vector<int> bad_nodes;    // indices into Report::nodes with a bad rail
};

// A likely cause, with the facts that point at it.
struct Suspect {
  int rank = 0;            // 1 = most likely / most impact
  std::string kind;        // "fabric", "core", "rail-plane", "su", "spine", "leaf", "uplink",
                           // "core-link", "host", "nic", "cable"
  std::string component;   // what to look at: a switch name, "n009 rail 3 (mlx5_5)", ...
  std::string title;       // one line: what and where
  std::string confidence;  // "high", "medium", "low"
  std::vector<std::string> evidence;  // one fact per line
  std::vector<int> nodes;             // indices into Report::nodes it explains
  int su = -1;                        // where it applies; -1 when not one SU
  int rail = -1;                      // -1 when not one rail
  int node = -1;                      // index into Report::nodes when one node
  std::string nic;                    // host/nic/cable: the NIC(s)
  std::string leaf;                   // leaf/cable: the leaf switch
  int port = 0;                       // cable: the leaf port (0 = unknown)
  std::string port_source;            // "sweep", "guess" (position in the SU + 1) or ""
  // Which end errs, from the sweep: "host" (NIC, transceiver or host end of the cable),
  // "switch" (switch port or its transceiver), "both" (cable or optics), "leaf" (many ports
  // of one leaf), "spine" (leaf uplinks or a spine's ports), "core" (spine-core links or a
  // core switch's ports), "link-down"; "" = no sweep or
  // the sweep saw nothing on this link.
  std::string end;
  int down = 0;                       // how many of `nodes` have the rail(s) down
};

// One firmware version of one rail's NICs, with the nodes that run it.
struct FirmwareVersion {
  std::string fw;  // fw_ver, "28.39.1002"
  int nodes = 0;
};

// The firmware of one rail across the fleet (firmware_section.h).
struct FirmwareRail {
  int rail = 0;
  std::vector<FirmwareVersion> versions;  // most nodes first
  std::string majority;                   // the version most nodes run; "" when none does
  std::vector<int> differ;                // indices into Report::nodes not on `majority`
};

// A node whose incidents in the last 7 days reach the repeat-offender threshold.
struct Offender {
  int node = -1;      // index into Report::nodes
  int incidents = 0;  // incidents in 7 days (history_section.h)
  int events = 0;     // flaps + degradations + drains + restricts in 7 days
  int flaps = 0, degradations = 0, drains = 0;
  std::vector<int> rails;  // rails with events, most first
};

// Incidents of one node in 7 days that make it a repeat offender: one fault that logs
// degraded, drained and restricted is one incident, so a node must fail twice.
constexpr int kRepeatOffenderIncidents = 2;
// Problem events of one node less than this far apart belong to one incident.
constexpr double kIncidentGapSeconds = 3600;

struct Report {
  std::string cluster;        // the topology's cluster name
  std::string slurm_cluster;  // Slurm's ClusterName, may be ""
  double time = 0;            // the snapshot's time: "now" for every age and window
  std::string source;         // the snapshot's source
  std::vector<std::string> rail_names;
  std::vector<std::string> rail_nics;  // NIC of each rail in the first node type
  std::vector<NodeRow> nodes;          // topology order
  std::vector<SuRow> sus;
  std::vector<std::string> extra_nodes;  // nodes Slurm has that the topology does not
  std::vector<JobRow> degraded_jobs;     // running jobs with a node that has a bad rail
  std::vector<Suspect> suspects;         // ranked
  std::vector<Offender> offenders;       // most events first
  std::vector<FirmwareRail> firmware;    // per rail: the fleet's NIC firmware versions
  bool feature_in_use = false;           // some node has the healthy feature
  std::string healthy_feature;
  // Totals.
  int healthy = 0, degraded = 0, down_rails_nodes = 0, no_report = 0;
  int drained = 0, restricted = 0, down = 0, idle = 0, free = 0, stale = 0;
  int largest_job = 0;
  int largest_job_su = -1;  // index into sus, -1 when none
  // Observe mode: the nodes whose railcheck runs in it, and per kWouldActions entry (same
  // order) the indices into `nodes` that say they would take it, in topology order.
  int observe = 0;
  std::array<std::vector<int>, kWouldActionCount> would_nodes;
  // The nodes over the drain budget (NodeRow::over_budget), indices into `nodes`: an alert.
  std::vector<int> over_budget;
  bool history_read = false;
  std::vector<std::string> history_files;
  int history_events = 0;          // events inside the 7-day window
  std::string sweep_file;          // the sweep read (--sweep), "" = none
  double sweep_time = 0;           // its file's modification time
  bool sweep_complete = true;      // false: some switches did not answer that sweep
  std::vector<std::string> notes;  // things worth saying that are not suspects
  Diags problems;                  // bad Extra values, job node lists, history lines
  // What ended jobs got from the fabric (the job log, health.job_log; report/job_fabric.h):
  // set by the caller after BuildReport. `jobs_recorded` jobs ended in the 24 h before the
  // report; those with findings (a slow, waiting, erring or unread rail) newest first.
  bool jobs_read = false;
  int jobs_recorded = 0;
  std::vector<JobFabric> jobs_with_findings;
};

// Builds the report. `events` may be empty (no history) and may hold events of nodes or
// times outside the report; problems with the input (Extra that is not railcheck's JSON,
// rails that do not match the topology, job hostlists) go to Report::problems and never
// stop the report. `history_problems` are copied into Report::problems. When an SU of `topo`
// has several leaves per rail, the report sees the topology domain by domain
// (topo::DomainView): Report::sus and every SU index in the report are one-hop domains.
// REQUIRES: `topo` was validated and indexed.
Report BuildReport(const Snapshot& snapshot, const std::string& snapshot_name,
                   const topo::Topology& topo, const std::vector<wire::HealthEvent>& events,
                   const Diags& history_problems, const ReportOptions& options);

// "2024-05-01 12:00" (UTC) for a time; "-" for 0.
std::string FormatTime(double t);
// "45s", "12m", "3.5h", "2.0d" for an age in seconds.
std::string FormatAge(double seconds);

}  // namespace railguard::report
