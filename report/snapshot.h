// SPDX-License-Identifier: GPL-2.0-or-later
// The cluster as Slurm showed it at one moment (nodes with state, reason, features and Extra;
// running jobs), the input of `railctl report`, and its versioned JSON file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/diag.h"

namespace railguard::report {

// The snapshot file format this code writes and reads ("railguard_snapshot": 1).
constexpr int kSnapshotVersion = 1;

// One Slurm node.
struct NodeSnapshot {
  std::string name;
  // Slurm's base state, lower case: "idle", "allocated", "mixed", "down", "error", "future",
  // "unknown".
  std::string state = "unknown";
  // State flags, lower case, as Slurm names them: "drain", "not_responding", "completing",
  // "maint", "reserved", "fail", "powered_down", "powering_down", "powering_up",
  // "reboot_requested", "blocked" (24.11+). Others are kept and shown but mean nothing to the
  // report.
  std::vector<std::string> flags;
  std::string reason;        // why it is drained or down; "" when none
  double reason_time = 0;    // when the reason was set (seconds since the epoch); 0 = unknown
  std::string reason_user;   // who set it (user name, or the uid as text); "" = unknown
  std::string features;      // available features, comma separated
  std::string features_act;  // active features; "" means the same as `features` (Slurm)
  std::string extra;         // the Extra field, verbatim
  // Not saved: where `extra` is in the snapshot file (0 when read from Slurm), for messages.
  int extra_line = 0;

  bool HasFlag(const std::string& flag) const;
};

// One job that holds nodes.
struct JobSnapshot {
  uint32_t id = 0;
  std::string name;
  std::string user;   // user name, or the uid as text
  std::string state;  // lower case: "running", "suspended", "completing", ...
  std::string nodes;  // Slurm hostlist of its nodes
  uint32_t node_count = 0;
  double start_time = 0;
  std::string partition;
  int line = 0;  // not saved: where the job is in the snapshot file
};

struct Snapshot {
  double time = 0;            // when it was read (seconds since the epoch)
  std::string source;         // "slurm" when read from slurmctld; free text otherwise
  std::string slurm_cluster;  // Slurm's ClusterName; may be ""
  std::vector<NodeSnapshot> nodes;
  std::vector<JobSnapshot> jobs;  // jobs that hold nodes (running, suspended, completing)
};

// The snapshot as JSON text: one object, one node or job per line, ending in a newline.
// Strings that are not valid UTF-8 are written with U+FFFD for the invalid bytes.
std::string SnapshotToJson(const Snapshot& s);

// Parses a snapshot file's text; `file` names it in messages. Every problem (JSON syntax,
// unknown or missing keys, wrong types, duplicate nodes, an unsupported version) is appended
// to `*diags` as file:line:column with what was expected. Returns true when there was none.
// The Extra field is not interpreted here (see extra.h).
bool SnapshotFromJson(const std::string& text, const std::string& file, Snapshot* out,
                      Diags* diags);

// Reads and parses `path` (at most 256 MiB). False with `*diags` on any problem.
bool LoadSnapshotFile(const std::string& path, Snapshot* out, Diags* diags);

// Where the cluster comes from. The live implementation asks slurmctld (slurm_source.h);
// tests use their own.
class ClusterSource {
 public:
  virtual ~ClusterSource() = default;
  // Every node Slurm knows. False with `*err` when it cannot be asked.
  virtual bool ReadNodes(std::vector<NodeSnapshot>* out, std::string* err) = 0;
  // Every job that holds nodes. False with `*err`.
  virtual bool ReadJobs(std::vector<JobSnapshot>* out, std::string* err) = 0;
  // Slurm's ClusterName, or "".
  virtual std::string ClusterName() = 0;
  // Seconds since the epoch.
  virtual double Now() = 0;
};

// Reads nodes and jobs from `source` into `*out` (nodes sorted by name, jobs by id; jobs
// that hold no nodes left out), stamped with source->Now() and source "slurm". False with
// `*err` naming what could not be read.
bool TakeSnapshot(ClusterSource* source, Snapshot* out, std::string* err);

}  // namespace railguard::report
