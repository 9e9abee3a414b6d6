// SPDX-License-Identifier: GPL-2.0-or-later
// What a job got from the fabric on this node, counted from the rail ports' counters: the
// Prolog opens a job file ("<state_dir>/jobs/<job>.json": each rail's counters at the start),
// each periodic run during the job adds a reading (the peak rates between readings), and the
// Epilog closes it into the job's record for the job log (wire/job_log.h) and removes it.
// This file owns that job file's format; everything here is pure but the Load/Save/List
// functions, which work in the state folder under the run's StateLock.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "healthcheck/facts.h"
#include "wire/job_log.h"

namespace railguard::health {

// The counters of one rail at one reading.
struct RailReading {
  std::string nic;
  std::string unread;                        // not "": not read, and why
  std::map<std::string, uint64_t> counters;  // ports/N/counters by file name
};

// An open job file.
struct OpenJob {
  uint64_t job = 0;
  std::string node;
  std::string boot_id;  // at the Prolog; "" when unknown
  double start = 0;     // the Prolog's reading
  int samples = 1;      // readings so far
  std::vector<uint64_t> shared_with;
  std::vector<RailReading> first;  // at the Prolog, in rail order
  std::vector<RailReading> last;   // at the latest reading
  double last_time = 0;
  std::vector<double> peak_xmit_bps, peak_rcv_bps;  // per rail, highest between two readings
};

// The readings of `facts` (every rail NIC, in rail order).
std::vector<RailReading> ReadingsOf(const NodeFacts& facts);

// A job file for job `job` opened at `now` from `facts`.
OpenJob OpenJobAt(uint64_t job, const std::string& node, const NodeFacts& facts, double now);

// Adds the reading of `facts` at `now` (a periodic run): the peaks take the rates since the
// last reading. A reading after a reboot (another boot id) or with a counter gone back is
// kept as the last one without rates.
void AddReading(const NodeFacts& facts, double now, OpenJob* j);

// The job's record at `now` from the Epilog's `facts`: per rail, the counters' increase since
// the Prolog (port_xmit_data and port_rcv_data times 4: octets), port_xmit_wait's, the error
// counters that rose (CounterBits names them), the peaks (with the last interval's rate).
// A rail not read at either end, after a reboot, or with a counter gone back or saturated at
// 2^32-1 (a 32-bit PortCounters value that stopped) gets JobRail::unknown saying so.
wire::JobNodeRecord CloseJob(const OpenJob& j, const NodeFacts& facts, double now);

// The job file's JSON (one object ending in a newline) and its parser; `file` names it in
// errors ("FILE: what was found; expected what").
std::string OpenJobToJson(const OpenJob& j);
bool OpenJobFromJson(const std::string& text, const std::string& file, OpenJob* out,
                     std::string* err);

// "<state_dir>/jobs", and the file of job `job` in it.
std::string JobsDir(const std::string& state_dir);
std::string OpenJobPath(const std::string& state_dir, uint64_t job);

// The jobs with a file in JobsDir (names "<digits>.json"; others are ignored), ascending.
std::vector<uint64_t> ListOpenJobs(const std::string& state_dir);

// Reads, writes (atomically) and removes a job file. Load: false with `*err` naming the file
// (missing included). Remove: a missing file is fine.
bool LoadOpenJob(const std::string& state_dir, uint64_t job, OpenJob* out, std::string* err);
bool SaveOpenJob(const std::string& state_dir, const OpenJob& j, std::string* err);
bool RemoveOpenJob(const std::string& state_dir, uint64_t job, std::string* err);

// Parses a Slurm job id ("1234"; 1..2^32-1 as Slurm's uint32_t job_id). False otherwise.
bool ParseJobId(const std::string& text, uint64_t* out);

}  // namespace railguard::health
