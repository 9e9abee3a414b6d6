// SPDX-License-Identifier: GPL-2.0-or-later
// A log of JSON lines that several railcheck runs append to and railctl reads back: the
// health event log (event_log.h) and the job fabric log (job_log.h). This layer owns the
// file, not the lines: appends under an exclusive flock(2) in one write(2), rotation to
// "<path>.1" at a size bound, the ownership and mode rules, and reading both files back
// line by line with truncated lines reported.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/diag.h"

namespace railguard::wire {

// Which log a message is about.
struct JsonLinesLog {
  const char* name;          // "event log", "job log"
  const char* example_path;  // a path to suggest when none is configured
  uint64_t max_read_bytes;   // the most a reader takes from one file
};

struct JsonLinesOptions {
  uint64_t max_bytes = uint64_t{16} << 20;  // rotate before an append would pass this
  int lock_wait_ms = 2000;                  // wait for a concurrent writer this long
};

// "<path>.1": the one rotated file kept.
std::string RotatedPath(const std::string& path);

// Appends `batch` (whole lines, each ending in '\n') to `path` in one write(2), under an
// exclusive flock(2), so concurrent writers never interleave or rotate under each other.
// Creates missing folders (mode 0755) and the file (mode 0640). Opens with O_APPEND |
// O_NOFOLLOW; refuses a path that is a symlink, not a regular file, owned by another user,
// writable by group or others, or in a folder that is. Rotates first when the file is not
// empty and the append would take it past `options.max_bytes`. No-op for an empty batch.
// False with `*err` naming the file and the cause.
bool AppendLines(const JsonLinesLog& log, const std::string& path, const std::string& batch,
                 const JsonLinesOptions& options, std::string* err);

enum class LinesStatus {
  kOk,       // read (problems in lines are in `*problems`)
  kMissing,  // neither the file nor its rotated file exists
  kError,    // a file exists but cannot be read (`*err`)
};

// Called for each non-empty whole line: the file, its line number and the line without its
// newline. Returns "" when the line was taken, else what is wrong with it (reported in
// `*problems` as file:line with "; skipped" added).
using LineVisitor =
    std::function<std::string(const std::string& file, int line, std::string_view text)>;

// Reads `<path>.1` then `<path>` (regular files, opened with O_NOFOLLOW, each at most
// log.max_read_bytes) and calls `visit` for every line in file order. A truncated last line
// (no newline: a write was cut short) is reported in `*problems` and skipped.
LinesStatus ReadLines(const JsonLinesLog& log, const std::string& path, const LineVisitor& visit,
                      Diags* problems, std::string* err);

}  // namespace railguard::wire
