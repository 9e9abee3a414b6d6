// SPDX-License-Identifier: GPL-2.0-or-later
// Placement benchmark results: Slurm's job completion records (jobcomp/filetxt) of one run,
// matched to the job stream, the numbers per policy, the side-by-side table and the verdict.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/trace.h"
#include "topo/model.h"

namespace railguard::bench {

// One line of a jobcomp/filetxt file (Slurm 22.05: "JobId=... Name=... JobState=...
// StartTime=... EndTime=... NodeList=... SubmitTime=..."). Times are the local time Slurm
// printed, read as if it were UTC: only differences are used.
struct JobRecord {
  int line = 0;  // 1-based line in the file
  uint32_t job_id = 0;
  std::string name;    // --job-name
  std::string state;   // COMPLETED, TIMEOUT, CANCELLED, FAILED, ...
  int64_t submit = 0;  // seconds
  int64_t start = -1;  // -1: never started (StartTime=Unknown)
  int64_t end = 0;
  std::string node_list;  // Slurm hostlist; "(null)" or "" when it never ran
};

// Parses a jobcomp/filetxt file held in `text`; `name` names it in messages. A line without
// JobId, Name, JobState, SubmitTime, StartTime, EndTime and NodeList, or with a time not of the
// form YYYY-MM-DDTHH:MM:SS, is an error "<name>:<line>: ...; expected ...".
bool ParseJobComp(std::string_view text, const std::string& name, std::vector<JobRecord>* out,
                  std::string* err);

// The numbers of one policy's run.
struct PolicyResult {
  std::string policy;            // the column title, e.g. "topology/tree"
  int jobs = 0;                  // stream jobs with a record
  int missing = 0;               // stream jobs without one (never finished, or lost)
  int not_completed = 0;         // records whose state is not COMPLETED
  int never_started = 0;         // records without a start (cancelled while pending)
  int multi_node = 0;            // jobs of 2 or more nodes
  int multi_fit_one_su = 0;      // of those, jobs no larger than the largest SU
  int multi_fit_got_one_su = 0;  // and of those, jobs that ran inside one SU
  double mean_sus_multi = 0;     // mean number of SUs a multi-node job ran in
  double mean_wait = 0;          // seconds from submission to start, started jobs
  double p95_wait = 0;           // 95th percentile (nearest rank) of the same
  double mean_wait_multi = 0;    // the same two for multi-node jobs only
  double p95_wait_multi = 0;
  double makespan = 0;             // first submission to last end, seconds
  // Seconds a COMPLETED job held its nodes beyond the time it ran (EndTime - StartTime less
  // its stream duration), mean: launch and teardown (slurmd, slurmstepd, SPANK plugins),
  // which on one host simulating every node share its CPUs with the whole cluster.
  double mean_hold_over_run = 0;
  std::vector<std::string> split;  // "rgb-<seq> (<nodes> nodes): <node list>" for each
                                   // multi-node job that fit one SU but spanned more
  int foreign_records = 0;         // records not named rgb-<seq> (ignored)
  // With a fault (Evaluate's `fault`): jobs whose start is at or after Fault::time, and of
  // those the ones given a degraded node, multi-node and single-node apart (railcheck's
  // restrict verdict keeps only multi-node jobs off a node).
  bool fault = false;
  int started_after_fault = 0;
  int multi_on_degraded = 0;
  int single_on_degraded = 0;
  std::vector<std::string> on_degraded;  // "rgb-<seq> (<n> nodes, +<s> s): <node list>" each
};

// A fault injected mid-replay: nodes marked degraded the way railcheck's restrict verdict
// does (healthy feature taken away, Extra set).
struct Fault {
  int64_t time = 0;                // first whole second after the last node update returned,
                                   // local time read as UTC like JobRecord's times
  std::string node_list;           // the hostlist as written
  std::vector<std::string> nodes;  // expanded
};

// A time as Slurm's records and the fault file write it, "YYYY-MM-DDTHH:MM:SS" (local time),
// as seconds read as UTC, as JobRecord's times are; false when it is not of that form.
bool ParseRecordTime(const std::string& text, int64_t* out);

// Parses a fault file: one line "<YYYY-MM-DDTHH:MM:SS> <hostlist>" ('#' lines and blank lines
// skipped). Every node must be in `topo`. Errors: "<name>:<line>: ...; expected ...".
bool ParseFault(std::string_view text, const std::string& name, const topo::Topology& topo,
                Fault* out, std::string* err);

// The Extra value railcheck publishes for a node whose rail `degraded_rail` (0-based) of
// `rails` is degraded and which it restricts (wire::WriteExtra of verdict "restrict",
// failed "rail<k>:port.rate"), judged at `now` (seconds since the epoch).
// REQUIRES: 0 <= degraded_rail < rails.
std::string DegradedExtra(int rails, int degraded_rail, double now);

// The --switches count a ~10-line job_submit/lua gives a job on stock topology/tree:
// ceil(nodes / su_nodes) leaf switches; 0 for a job of fewer than 2 nodes (left alone).
// REQUIRES: su_nodes >= 1.
uint32_t SwitchCount(uint32_t nodes, uint32_t su_nodes);

// sbatch's option for it, waiting at most `wait_seconds`: "--switches=<count>@<min>:<ss>"
// (e.g. "--switches=2@5:00", Slurm's minutes:seconds form); "" when SwitchCount is 0.
std::string SwitchesOption(uint32_t nodes, uint32_t su_nodes, uint32_t wait_seconds);

// Matches `records` (by job name rgb-<seq>; a later record of the same job replaces an
// earlier one) to `stream` and computes the numbers, with each node's SU from `topo`.
// A record of a job that ran on a node `topo` does not list, or whose node list is not a
// valid hostlist, is an error naming the record's line in `records_name`.
// With `fault`, also counts the jobs started at or after fault->time on its nodes.
// With `due_origin` (a run submitted ahead, each job with --begin at its time: the Unix second,
// read as UTC like JobRecord's times, that was the stream's second 0), a job's wait counts from
// when it was due, origin + its submit_at rounded up to a whole second (what --begin takes),
// instead of from its SubmitTime, and the makespan from the origin.
// REQUIRES: topo loaded and indexed; out and err are not null.
bool Evaluate(const std::vector<StreamJob>& stream, const std::vector<JobRecord>& records,
              const std::string& records_name, const topo::Topology& topo,
              const std::string& policy, PolicyResult* out, std::string* err,
              const Fault* fault = nullptr, const int64_t* due_origin = nullptr);

// The table, one row per number and one column per policy; the fault rows when any result
// has a fault.
std::string FormatTable(const std::vector<PolicyResult>& results);

// The verdict for the target "railguard places every multi-node job that fits one SU in one
// SU, without a p95 wait worse than topology/tree by more than 10%": one line starting with
// "verdict: PASS" or "verdict: FAIL", with the numbers. Slurm records whole seconds, so a
// p95 up to 1 s above the 10% margin counts as within it (the line says so). When `railguard`
// had a fault, a multi-node job started on a degraded node after it also fails the verdict.
std::string Verdict(const PolicyResult& baseline, const PolicyResult& railguard, bool* pass);

}  // namespace railguard::bench
