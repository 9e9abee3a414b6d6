// SPDX-License-Identifier: GPL-2.0-or-later
// The health event log: railcheck appends what changed on a node (a rail degraded, down or
// recovered, a link flap, a drain, a resume, the healthy feature taken or given back, with
// the counters that decided) as JSON lines to a size-bounded file; `railctl report` reads
// it back over a time window to show flaps, drains and repeat offenders.
//
// One line per event (format version 1), for example:
//   {"v":1,"time":1714560000.5,"node":"n009","event":"degraded","rail":3,"nic":"mlx5_5",
//    "checks":["link.errors"],"detail":"link.errors: rail3 mlx5_5 symbol_error 540/h > 10/h",
//    "counters":{"symbol_error":{"value":1234,"delta":90,"seconds":600}}}
// "rail" is -1 for events of the node as a whole (drained, resumed, restricted, restored).
// A counter's rate is delta * 3600 / seconds per hour.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"

namespace railguard::wire {

// Where railcheck writes its events unless configured otherwise.
inline constexpr char kDefaultEventLogPath[] = "/var/lib/railguard/events.log";
// The log is rotated (renamed to <path>.1, replacing the previous old file) before an
// append would take it past this size: at most about twice this on disk.
constexpr uint64_t kDefaultEventLogMaxBytes = uint64_t{16} << 20;
// The longest line the reader accepts; the writer keeps below it (details are cut).
constexpr size_t kMaxEventLineBytes = 16 * 1024;
// The most a reader takes from one file; a larger file is an error, not a slow report.
constexpr uint64_t kMaxEventLogReadBytes = uint64_t{512} << 20;
constexpr int kEventLogVersion = 1;

enum class EventKind {
  kDegraded,    // a rail went (from ok or down) to degraded
  kDown,        // a rail went down
  kRecovered,   // a rail came back to ok
  kFlap,        // a rail's link went down and up between two runs (link.flap)
  kDrained,     // railcheck drained the node
  kResumed,     // railcheck resumed it
  kRestricted,  // railcheck took the healthy feature away (single-node jobs only)
  kRestored,    // railcheck gave the feature back
};

// "degraded", "down", "recovered", "flap", "drained", "resumed", "restricted", "restored".
const char* EventKindName(EventKind kind);
// Parses those names (exact). False for anything else; `*out` unchanged.
bool ParseEventKind(std::string_view text, EventKind* out);

// A counter that moved, as railcheck saw it.
struct EventCounter {
  std::string name;    // "symbol_error" or "hw_counters/<name>"
  uint64_t value = 0;  // its value at the event
  uint64_t delta = 0;  // its increase over `seconds`
  double seconds = 0;  // the interval of `delta`; 0 = unknown

  // delta per hour; 0 when `seconds` is 0.
  double PerHour() const;
};

struct HealthEvent {
  double time = 0;  // seconds since the epoch
  std::string node;
  EventKind kind = EventKind::kDegraded;
  int rail = -1;                    // -1: the node as a whole
  std::string nic;                  // the rail's NIC, "" for node events
  std::vector<std::string> checks;  // the checks that decided, e.g. "port.rate"
  std::string detail;               // one human line (a finding, the drain reason)
  std::vector<EventCounter> counters;
};

// One line of the log, with its newline, at most kMaxEventLineBytes long. Text that is not
// valid UTF-8 is written with U+FFFD; names are cut at 256 bytes, `detail` at 1024, and if
// the line is still too long (escaping) the detail, then counters, then checks are dropped.
// Writing what EventFromJsonLine read from such a line gives that line again.
std::string EventToJsonLine(const HealthEvent& e);

// Parses one line (without its newline). False with `*err` = what is wrong and what was
// expected ("column 17: ..." for JSON syntax). Unknown keys are ignored (newer writers).
bool EventFromJsonLine(std::string_view line, HealthEvent* out, std::string* err);

struct EventLogOptions {
  uint64_t max_bytes = kDefaultEventLogMaxBytes;  // rotate at this size
  int lock_wait_ms = 2000;                        // wait for a concurrent writer this long
};

// "<path>.1": the one rotated file kept.
std::string RotatedEventLogPath(const std::string& path);

// Appends `events` to the log at `path` in one write(2), under an exclusive flock(2) so
// that concurrent railcheck runs (Prolog and HealthCheckProgram) never interleave or rotate
// under each other. Creates missing folders (mode 0755) and the file (mode 0640). Opens with
// O_APPEND | O_NOFOLLOW; refuses a path that is a symlink, not a regular file, owned by
// another user, writable by group or others, or in a folder that is. Rotates first when the
// file is not empty and the append would take it past `options.max_bytes`. No-op for no
// events. False with `*err` naming the file and the cause.
bool AppendEvents(const std::string& path, const std::vector<HealthEvent>& events, std::string* err,
                  const EventLogOptions& options = EventLogOptions());

enum class EventLogStatus {
  kOk,       // read (problems in lines are in `*problems`)
  kMissing,  // neither the file nor its rotated file exists
  kError,    // a file exists but cannot be read (`*err`)
};

// Reads `<path>.1` then `<path>` and appends to `*out` every event with
// since <= time <= until, in file order. A line that is truncated (no newline at the end of
// the file), too long, not JSON or not an event is skipped and reported in `*problems` as
// file:line with what was expected. Files are opened with O_NOFOLLOW and must be regular.
EventLogStatus ReadEvents(const std::string& path, double since, double until,
                          std::vector<HealthEvent>* out, Diags* problems, std::string* err);

}  // namespace railguard::wire
