// SPDX-License-Identifier: GPL-2.0-or-later
// Crash-safe files for railcheck's state: no symlinks followed, atomic replacement (temporary
// file, fsync, rename, fsync of the folder), safe modes, and a lock between concurrent runs.
#pragma once

#include <string>

#include "base/file_util.h"

namespace railguard::health {

// The most bytes a state file may hold; a larger one is refused as corrupt.
constexpr size_t kMaxStateFileBytes = 4u << 20;

// Creates `dir` (and missing parents, mode 0755) if needed, then checks that it is a real
// folder (not a symlink) owned by this user and not writable by group or others. False with
// `*err` naming the folder, what is wrong and what is expected.
bool PrepareStateDir(const std::string& dir, std::string* err);

// Reads `path` without following a symlink at its end; it must be a regular file of at most
// kMaxStateFileBytes (a file that grows past it while read is cut there and read as kOk).
// kMissing when it does not exist; kError with `*err` otherwise.
ReadStatus ReadStateFile(const std::string& path, std::string* out, std::string* err);

// Replaces `path` with `text` so that a crash at any moment leaves either the old file or
// the new one, whole: writes "<dir>/.<name>.tmp.<pid>" (O_EXCL, O_NOFOLLOW, mode 0644),
// fsyncs it, renames it over `path` and fsyncs the folder. Stale temporary files of earlier
// crashed runs are removed first; a device or FIFO at `path` is written in place (base's
// ReplaceFile). False with `*err` ending in "; <path> is left as it was".
bool WriteStateFileAtomic(const std::string& path, const std::string& text, std::string* err);

// An exclusive lock on "<dir>/lock", held until destruction, so that a Prolog and a
// HealthCheckProgram run of the same node do not interleave their read-modify-write.
class StateLock {
 public:
  // Waits up to `wait_ms` for the lock. False with `*err` when it cannot be had.
  bool Acquire(const std::string& dir, int wait_ms, std::string* err);

 private:
  FileLock lock_;
};

}  // namespace railguard::health
