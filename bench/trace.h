// SPDX-License-Identifier: GPL-2.0-or-later
// GPU job traces for the placement benchmark: reading a trace (CSV or the Standard Workload
// Format) into jobs, mapping them onto nodes of 8 GPUs, and cutting the time-compressed job
// stream that every policy of the benchmark is given, with its one-line-per-job text form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railguard::bench {

enum class TraceFormat {
  kAuto,  // from the file name (.csv, .swf), else from the first line that is not blank
  kCsv,   // a header naming job_id, submission_time, duration, num_gpu; one job per line
  kSwf,   // Standard Workload Format: ';' comments, 18 whitespace-separated fields a line
};

// Parses "auto", "csv" or "swf". Returns false for anything else; `*out` is then unchanged.
bool ParseTraceFormat(std::string_view text, TraceFormat* out);

// Largest GPU count (SWF: processor count) a trace job may ask for.
inline constexpr uint32_t kMaxTraceGpus = 1000000;
// Largest time in seconds (submit time, run time) a trace or a job stream may hold, about
// 31,700 years: larger values are refused, so that every time formats back within the readers'
// limits.
inline constexpr double kMaxTraceSeconds = 1e12;

// One job of a trace, as the trace gives it.
struct TraceJob {
  std::string id;       // CSV job_id; SWF job number as written
  int line = 0;         // 1-based line in the trace
  double submit = 0;    // submission time, seconds from the trace's origin, >= 0
  double duration = 0;  // run time in seconds, >= 0
  uint32_t gpus = 0;    // GPUs asked for (SWF: requested, else allocated processors), >= 1
};

struct Trace {
  std::string name;                        // the file name as given, used in messages
  TraceFormat format = TraceFormat::kCsv;  // the format it was read as (never kAuto)
  std::vector<TraceJob> jobs;              // sorted by submission time; ties keep file order
  int skipped = 0;                         // SWF jobs left out: run time or processors unknown (-1)
  int first_skipped_line = 0;              // the line of the first of them; 0 when none
};

// Parses a whole trace held in `text`; `name` names it in messages. On a malformed line,
// returns false with `*err` = "<name>:<line>: <what is wrong>; expected <form>" (messages are
// exact and tested); `*out` is then unspecified. CSV: the first non-blank line is a header
// naming at least the columns job_id, submission_time, duration and num_gpu, in any order;
// each later non-blank line has as many comma-separated fields (no quoting), times are
// non-negative decimal seconds, num_gpu a whole number from 1 to kMaxTraceGpus. SWF: every
// field a number; jobs with run time -1 or no known processor count are counted in
// `skipped`, not read. A trace without jobs is an error. "\r\n" line ends are accepted.
// REQUIRES: out and err are not null.
bool ParseTrace(std::string_view text, const std::string& name, TraceFormat format, Trace* out,
                std::string* err);

// As ParseTrace, reading `path` (at most 256 MiB). A file that cannot be read is an error
// naming the path and the cause.
bool ReadTraceFile(const std::string& path, TraceFormat format, Trace* out, std::string* err);

// A job's nodes: ceil(gpus / node_gpus) nodes with ceil(gpus / nodes) GPUs each. A job of
// fewer GPUs than a node has is one node with that many GPUs.
struct NodeShape {
  uint32_t nodes = 0;
  uint32_t gpus_per_node = 0;
};

// REQUIRES: gpus >= 1, node_gpus >= 1.
NodeShape ShapeOf(uint32_t gpus, uint32_t node_gpus);

// How the benchmark cuts its job stream out of a trace.
struct StreamOptions {
  size_t skip = 0;          // jobs left out at the start of the (sorted) trace
  size_t jobs = 0;          // jobs taken after those; 0 = all the rest
  double compress = 1;      // trace seconds per stream second (submission gaps, run times)
  double load = 1;          // arrival rate multiplier: submission gaps are further divided
                            // by this (run times are not), so the cluster gets `load` times
                            // the trace's load; 1 replays the trace as it was
  double max_duration = 0;  // longest run time in stream seconds; 0 = no cap
  uint32_t node_gpus = 8;   // GPUs per node
  uint32_t max_nodes = 0;   // a job needing more nodes than this is an error; 0 = no limit
};

// One job of the stream: what is submitted, and when.
struct StreamJob {
  int seq = 0;            // 1, 2, ... in submission order; the job is named rgb-<seq>
  std::string trace_id;   // the trace job it comes from
  int trace_line = 0;     // and its line in the trace
  double submit_at = 0;   // seconds after the stream starts (the slice's first job: 0),
                          // rounded to milliseconds
  uint32_t duration = 0;  // seconds the job runs (sleeps): compressed, capped, at least 1
  uint32_t gpus = 0;      // GPUs of the trace job
  uint32_t nodes = 0;     // ShapeOf(gpus, node_gpus)
  uint32_t gpus_per_node = 0;
  uint32_t time_limit_min = 0;  // --time in minutes: ceil(duration / 60) + 1
};

// Cuts the stream. Errors (`*err` one line, saying what is allowed): compress or load <= 0 or
// not a number, max_duration < 0, node_gpus 0, a slice with no job, and a job needing more than
// max_nodes nodes ("<trace>:<line>: job <id> needs N nodes (G GPUs), more than the M of the
// layout; ..."). REQUIRES: out and err are not null.
bool BuildStream(const Trace& trace, const StreamOptions& options, std::vector<StreamJob>* out,
                 std::string* err);

// The stream as text: '#' comment lines, then one line per job:
//   <seq> <submit_at> <duration> <nodes> <gpus_per_node> <gpus> <time_limit_min> <trace_id>
// with submit_at in seconds with three decimals. Trace ids with whitespace are not written
// as given: each whitespace character becomes '_'.
std::string FormatStream(const std::vector<StreamJob>& jobs, const std::string& comment);

// Reads text written by FormatStream; `name` names it in messages ("<name>:<line>: ...;
// expected ..."). Sequence numbers must be 1, 2, 3, ... and submit times non-decreasing.
bool ParseStream(std::string_view text, const std::string& name, std::vector<StreamJob>* out,
                 std::string* err);

}  // namespace railguard::bench
