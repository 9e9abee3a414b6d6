// SPDX-License-Identifier: GPL-2.0-or-later
#include "wire/json_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "base/file_util.h"

namespace railguard::wire {
namespace {

std::string ErrnoText(int e) { return std::strerror(e); }

std::string Mode3(mode_t m) {
  return std::to_string((m >> 6) & 7) + std::to_string((m >> 3) & 7) + std::to_string(m & 7);
}

// mkdir -p with mode 0755, then the folder must be a real folder owned by us or root and not
// writable by group or others (so nobody else can swap the log under us).
bool PrepareFolder(const JsonLinesLog& log, const std::string& dir, std::string* err) {
  FileError ferr;
  struct stat st;
  if (!MakeFolder(dir, &st, &ferr)) {
    const bool stat_failed = ferr.step == "inspect" && ferr.path == dir;
    *err = std::string(stat_failed ? "cannot stat folder " : "cannot create folder ") +
           ferr.path + ": " + ErrnoText(ferr.code);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *err = dir + " is not a folder (a symlink?); expected a real folder for the " +
           std::string(log.name);
    return false;
  }
  if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & 022) != 0) {
    *err = "folder " + dir + " is owned by uid " + std::to_string(st.st_uid) + " with mode " +
           Mode3(st.st_mode) + "; expected a folder owned by this user (uid " +
           std::to_string(geteuid()) + ") or root and not writable by group or others";
    return false;
  }
  return true;
}

bool CheckLogFile(const JsonLinesLog& log, const std::string& path, const struct stat& st,
                  std::string* err) {
  if (!S_ISREG(st.st_mode)) {
    *err = path + " is not a regular file; expected the railguard " + log.name;
    return false;
  }
  if (st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
    *err = path + " is owned by uid " + std::to_string(st.st_uid) + " and mode " +
           Mode3(st.st_mode) + "; expected owner uid " + std::to_string(geteuid()) +
           " and no write permission for group or others";
    return false;
  }
  return true;
}

// Reads a whole regular file without following a symlink. 0 = ok, 1 = missing, 2 = error.
int ReadWhole(const JsonLinesLog& log, const std::string& path, std::string* out,
              std::string* err) {
  const ReadResult r = ReadRegularFile(path, log.max_read_bytes, out);
  if (r.status != ReadStatus::kError) return r.status == ReadStatus::kMissing ? 1 : 0;
  switch (r.failure) {
    case ReadFailure::kSymlink:
      *err = path + " is a symlink; expected the " + std::string(log.name) + " itself";
      break;
    case ReadFailure::kNotRegular:
      *err = path + " is not a regular file; expected the railguard " + log.name;
      break;
    case ReadFailure::kGrew:
      *err = path + " grew past " + std::to_string(log.max_read_bytes) + " bytes while read";
      break;
    default:
      *err = ReadFailureMessage(path, r, log.max_read_bytes) +
             (r.failure == ReadFailure::kTooLarge ? " (the log rotates far below that)" : "");
  }
  return 2;
}

}  // namespace

std::string RotatedPath(const std::string& path) { return path + ".1"; }

bool AppendLines(const JsonLinesLog& log, const std::string& path, const std::string& batch,
                 const JsonLinesOptions& options, std::string* err) {
  if (batch.empty()) return true;
  if (path.empty()) {
    *err = "no path for the " + std::string(log.name) + "; expected a file name such as " +
           log.example_path;
    return false;
  }
  if (!PrepareFolder(log, ParentDir(path), err)) return false;
  // A concurrent writer may rotate between our open and our lock: then reopen.
  for (int attempt = 0; attempt < 4; ++attempt) {
    const int fd = open(path.c_str(),
                        O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0640);
    if (fd < 0) {
      *err = errno == ELOOP
                 ? path + " is a symlink; expected the " + std::string(log.name) + " itself"
                 : "cannot open " + path + ": " + ErrnoText(errno);
      return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
      *err = "cannot stat " + path + ": " + ErrnoText(errno);
      close(fd);
      return false;
    }
    if (!CheckLogFile(log, path, st, err)) {
      close(fd);
      return false;
    }
    if (LockWithin(fd, options.lock_wait_ms) != LockStatus::kLocked) {
      *err = "cannot lock " + path + " within " + std::to_string(options.lock_wait_ms) +
             " ms (another railcheck holds it?)";
      close(fd);
      return false;
    }
    struct stat now;
    if (lstat(path.c_str(), &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev) {
      close(fd);  // rotated or removed meanwhile
      continue;
    }
    if (fstat(fd, &st) != 0) {
      *err = "cannot stat " + path + ": " + ErrnoText(errno);
      close(fd);
      return false;
    }
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size > 0 && size + batch.size() > options.max_bytes) {
      const std::string old = RotatedPath(path);
      if (rename(path.c_str(), old.c_str()) != 0) {
        *err = "cannot rotate " + path + " to " + old + ": " + ErrnoText(errno);
        close(fd);
        return false;
      }
      close(fd);
      continue;
    }
    const bool ok = WriteAll(fd, batch);
    if (!ok) *err = "cannot write " + path + ": " + ErrnoText(errno);
    close(fd);
    return ok;
  }
  *err = "cannot append to " + path + ": it was rotated or replaced 4 times while we waited";
  return false;
}

LinesStatus ReadLines(const JsonLinesLog& log, const std::string& path, const LineVisitor& visit,
                      Diags* problems, std::string* err) {
  bool any = false;
  for (const std::string& file : {RotatedPath(path), path}) {
    std::string text;
    const int r = ReadWhole(log, file, &text, err);
    if (r == 2) return LinesStatus::kError;
    if (r == 1) continue;
    any = true;
    size_t start = 0;
    int line = 0;
    while (start < text.size()) {
      ++line;
      size_t end = text.find('\n', start);
      const bool truncated = end == std::string::npos;
      if (truncated) end = text.size();
      std::string_view l(text.data() + start, end - start);
      start = end + 1;
      if (truncated) {
        problems->push_back({file, line, 0,
                             "truncated line (no newline at the end of the file: a write was "
                             "cut short); skipped"});
        break;
      }
      if (l.empty()) continue;
      const std::string why = visit(file, line, l);
      if (!why.empty()) problems->push_back({file, line, 0, why + "; skipped"});
    }
  }
  return any ? LinesStatus::kOk : LinesStatus::kMissing;
}

}  // namespace railguard::wire
