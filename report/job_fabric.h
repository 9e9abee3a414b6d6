// SPDX-License-Identifier: GPL-2.0-or-later
// The job fabric record: what one job got from the fabric, rail by rail, joined from the job
// log lines of its nodes (wire/job_log.h), placed on the topology (which leaf each node's rail
// reaches) and set beside railcheck's events on those nodes during the job. `railctl job`
// prints it as text or JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topo/model.h"
#include "wire/event_log.h"
#include "wire/job_log.h"

namespace railguard::report {

// When a rail of a node is the job's slow path.
struct JobFabricOptions {
  // A rail that carried (sent + received) less than this fraction of the median of its node's
  // rails is slow...
  double slow_fraction = 0.5;
  // ... when that median is at least this many bytes (below it the job hardly used the
  // fabric on that node, and shares mean nothing).
  uint64_t min_median_bytes = uint64_t{64} << 20;
  // A rail whose port_xmit_wait rose more than this many times the median of its node's rails,
  // and by at least min_wait ticks, waited on the fabric.
  double wait_factor = 4;
  uint64_t min_wait = 100000;
};

// One rail of one node.
struct JobFabricRow {
  std::string node;
  int rail = 0;
  std::string leaf;  // the leaf switch it reaches in the topology; "" when unknown
  wire::JobRail data;
  double share = -1;  // its traffic / the node's median rail traffic; -1 when not judged
};

// A rail's totals over the job's nodes.
struct JobFabricRail {
  int rail = 0;
  uint64_t xmit_bytes = 0, rcv_bytes = 0, xmit_wait = 0, errors = 0;
  int nodes_known = 0, nodes = 0;
};

struct JobFabricFinding {
  std::string kind;  // "slow", "waiting", "errors", "unknown"
  std::string node;
  int rail = 0;
  std::string nic, leaf;
  std::string message;
};

// The application's own numbers beside the record (report/job_apps.h reads them: nccl-tests'
// text or JSON, NCCL Inspector logs, a step-time file).
struct JobApp {
  std::string file;                 // the file, or the folder of an Inspector's files
  std::string kind;                 // "nccl-tests", "nccl-tests-json", "nccl-inspector",
                                    // "step-times"
  int ranks = 0;
  std::vector<std::string> hosts;   // as the tool names them
  std::vector<std::string> others;  // of `hosts`, those that are not among the job's nodes
  // GB/s; -1 unknown. nccl-tests: the tool's "Avg bus bandwidth"; nccl-inspector: the median
  // of the collectives of communicators spanning more than one node.
  double avg_busbw = -1;
  double peak_busbw = -1;           // GB/s, the best row or collective
  uint64_t peak_bytes = 0;          // its message size
  uint64_t collectives = 0;         // nccl-inspector: multi-node collectives read
  uint64_t steps = 0;               // step-times: steps read
  double step_median_s = -1, step_p95_s = -1, step_max_s = -1;
  uint64_t step_max_at = 0;         // the slowest step's number
};

struct JobFabric {
  uint64_t job = 0;
  std::vector<std::string> nodes;  // in hostlist order
  double start = 0, end = 0;       // the earliest Prolog reading, the latest Epilog reading
  std::vector<JobFabricRow> rows;  // node by node (hostlist order), rail by rail
  std::vector<JobFabricRail> rails;
  std::vector<JobFabricFinding> findings;  // slow, waiting, errors, unknown; node by node
  std::vector<wire::HealthEvent> events;   // on the job's nodes between start and end
  std::vector<std::string> notes;          // shared nodes, earlier runs, nodes not in topology
  std::vector<JobApp> apps;                // the application's own numbers, when given
};

// Joins `records` (the job log lines read for job `job`; others are ignored). A node with
// several records (the job was requeued) counts with its latest. `topo` may be null (no leaf
// names). `events` may hold events of other nodes and times: those are left out.
JobFabric JoinJob(uint64_t job, const std::vector<wire::JobNodeRecord>& records,
                  const topo::Topology* topo, const std::vector<wire::HealthEvent>& events,
                  const JobFabricOptions& options = JobFabricOptions());

// Text for admins: a head line, the rails' totals, the findings (node, rail, NIC, leaf), the
// rows of nodes with findings, the events, the application's numbers, the notes.
std::string JobFabricText(const JobFabric& f);

// {"job", "nodes", "start", "end", "rails": [...], "nodes_rails": [every row], "findings",
// "events", "notes"}; man/railctl.8 describes it.
std::string JobFabricJson(const JobFabric& f);

// "1.5 GiB", "312 MiB", "0 B".
std::string FormatBytes(double bytes);

}  // namespace railguard::report
