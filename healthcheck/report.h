// SPDX-License-Identifier: GPL-2.0-or-later
// What a railcheck run tells its reader: the verdict, every finding, the Slurm actions, as
// text for admins and Slurm's logs, or as JSON (--json).
#pragma once

#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "healthcheck/facts.h"

namespace railguard::health {

// One run, as reported.
struct RunReport {
  std::string node;
  std::string mode;  // "prolog", "epilog", "periodic", "baseline"
  bool dry_run = false;
  const NodeFacts* facts = nullptr;
  const Verdict* verdict = nullptr;  // null for a baseline run
  int gpus_expected = 0;
  std::vector<std::string> actions;   // the plan's lines (what was, or would be, done)
  std::vector<std::string> problems;  // errors that did not stop the run (Slurm unreachable)
  // What this run appended to the event log (history.h), "rail3 degraded", "drained", ...,
  // and where; empty when nothing changed.
  std::vector<std::string> events;
  std::string events_log;
  // What this run did with the job's fabric record (job_counters.h): "job 1234: counters
  // read at the start", "job 1234: record -> LOG", "2 running jobs: counters read".
  std::string job;
  // Problems that change neither the verdict nor the exit code (the event log not written).
  std::vector<std::string> warnings;
  int exit_code = 0;
  double total_ms = 0;
  // RPCs sent to slurmctld through the SlurmApi: node reads and updates.
  int slurm_reads = 0;
  int slurm_writes = 0;
};

// Text: a head line "railcheck NODE MODE: VERDICT (rails: 7 ok, 1 degraded)", then one line
// per finding "  ACTION  MESSAGE", then "slurm: ..." lines, then "events: rail3 degraded,
// drained -> LOG", "job: ..." and "warning: ..." lines when there are any.
std::string ReportText(const RunReport& r);

// One JSON object with the same content plus each rail's port facts and the RPC counts
// ("slurm_rpcs": {"get_node": N, "update_node": M}); ends in a newline.
std::string ReportJson(const RunReport& r);

}  // namespace railguard::health
