// SPDX-License-Identifier: GPL-2.0-or-later
// The job fabric log: what one job got from the fabric on one node, rail by rail. railcheck's
// Epilog appends one JSON line per job and node (format version 1) from the port counters its
// Prolog, its periodic runs during the job and the Epilog itself read; `railctl job` joins
// the lines of a job's nodes. For example:
//   {"v":1,"job":1234,"node":"n009","start":1714560000.5,"end":1714563600.2,"samples":3,
//    "shared_with":[1233],
//    "rails":[{"rail":3,"nic":"mlx5_5","xmit_bytes":1234567,"rcv_bytes":2345678,
//              "xmit_wait":78,"peak_xmit_bps":1.5e9,"peak_rcv_bps":1.4e9,
//              "errors":{"symbol_error":12}},
//             {"rail":4,"nic":"mlx5_6","unknown":"port_xmit_data went back (counters reset)"}]}
// Bytes are octets: the kernel's port_xmit_data and port_rcv_data count 4-octet words
// (Documentation/ABI/stable/sysfs-class-infiniband: "divided by 4"), railcheck multiplies.
// xmit_wait is port_xmit_wait's ticks. Peaks are the highest rate between two readings (0 when
// only the Prolog's and the Epilog's were taken, then the mean is all there is). "errors"
// lists the error counters that moved. A rail with "unknown" has no numbers: why not.
// "shared_with" names the other jobs that ran on the node meanwhile: the counters are the
// node's, so on a shared node they hold those jobs' traffic too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/diag.h"

namespace railguard::wire {

inline constexpr char kDefaultJobLogPath[] = "/var/lib/railguard/jobs.log";
constexpr uint64_t kDefaultJobLogMaxBytes = uint64_t{16} << 20;
constexpr size_t kMaxJobLineBytes = 64 * 1024;
constexpr uint64_t kMaxJobLogReadBytes = uint64_t{512} << 20;
constexpr int kJobLogVersion = 1;

// One rail of one node in one job.
struct JobRail {
  int rail = 0;
  std::string nic;
  std::string unknown;  // not "": no numbers for this rail, and why
  uint64_t xmit_bytes = 0, rcv_bytes = 0;
  uint64_t xmit_wait = 0;
  double peak_xmit_bps = 0, peak_rcv_bps = 0;  // bytes per second
  std::vector<std::pair<std::string, uint64_t>> errors;  // counter, increase; only those > 0

  bool known() const { return unknown.empty(); }
  uint64_t ErrorCount() const;  // the sum of `errors`
};

// One job on one node.
struct JobNodeRecord {
  uint64_t job = 0;  // Slurm's job id
  std::string node;
  double start = 0, end = 0;  // seconds since the epoch: the Prolog's and the Epilog's reading
  int samples = 0;            // counter readings taken (Prolog, periodic runs, Epilog)
  std::vector<uint64_t> shared_with;
  std::vector<JobRail> rails;  // in rail order

  double Seconds() const { return end > start ? end - start : 0; }
};

// One line with its newline. Names are cut at 256 bytes, `unknown` at 512, and at most 64
// rails and 32 error counters per rail are written: the line stays below kMaxJobLineBytes.
std::string JobRecordToJsonLine(const JobNodeRecord& r);

// Parses one line (without its newline). False with `*err` = what is wrong and the expected
// form ("column 17: ..." for JSON syntax). Unknown keys are ignored (newer writers).
bool JobRecordFromJsonLine(std::string_view line, JobNodeRecord* out, std::string* err);

struct JobLogOptions {
  uint64_t max_bytes = kDefaultJobLogMaxBytes;  // rotate at this size
  int lock_wait_ms = 2000;
};

// Appends `r` to the log at `path` as AppendLines does (json_lines.h: one write under flock,
// rotation to <path>.1, the ownership and mode rules). False with `*err`.
bool AppendJobRecord(const std::string& path, const JobNodeRecord& r, std::string* err,
                     const JobLogOptions& options = JobLogOptions());

enum class JobLogStatus { kOk, kMissing, kError };

// Reads `<path>.1` then `<path>` and appends every record of job `job` (0: every job) to
// `*out`, in file order. Bad lines are skipped and reported in `*problems` (file:line).
JobLogStatus ReadJobRecords(const std::string& path, uint64_t job,
                            std::vector<JobNodeRecord>* out, Diags* problems, std::string* err);

}  // namespace railguard::wire
