// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/state_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace railguard::health {

bool PrepareStateDir(const std::string& dir, std::string* err) {
  if (dir.empty() || dir[0] != '/') {
    *err = "state_dir '" + dir + "' is not an absolute path";
    return false;
  }
  FileError ferr;
  struct stat st;
  if (!MakeFolder(dir, &st, &ferr)) {
    *err = ferr.Message();
    return false;
  }
  if (S_ISLNK(st.st_mode)) {
    *err = "state_dir " + dir +
           " is a symbolic link; expected a real folder (railcheck does "
           "not follow links where it writes as root)";
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *err = "state_dir " + dir + " is not a folder";
    return false;
  }
  if (st.st_uid != geteuid()) {
    *err = "state_dir " + dir + " is owned by uid " + std::to_string(st.st_uid) +
           "; expected uid " + std::to_string(geteuid()) + " (the user railcheck runs as)";
    return false;
  }
  if (st.st_mode & 022) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    *err = "state_dir " + dir + " has mode " + mode +
           " (writable by group or others); expected 0755 or stricter";
    return false;
  }
  return true;
}

ReadStatus ReadStateFile(const std::string& path, std::string* out, std::string* err) {
  const ReadResult r = ReadRegularFile(path, kMaxStateFileBytes, out);
  if (r.status == ReadStatus::kMissing) return ReadStatus::kMissing;
  // A file that grew past the limit while read is cut there; the JSON reader says what is
  // wrong with it.
  if (r.failure == ReadFailure::kNone || r.failure == ReadFailure::kGrew) return ReadStatus::kOk;
  if (r.failure == ReadFailure::kSymlink) {
    *err = path + " is a symbolic link; expected a regular file written by railcheck";
  } else if (r.failure == ReadFailure::kNotRegular) {
    *err = path + " is not a regular file; expected one written by railcheck";
  } else {
    *err = ReadFailureMessage(path, r, kMaxStateFileBytes);
  }
  return ReadStatus::kError;
}

bool WriteStateFileAtomic(const std::string& path, const std::string& text, std::string* err) {
  FileError ferr;
  if (ReplaceFile(path, text, &ferr, TempName::kHidden)) return true;
  // Every failure leaves `path` as it was; the message says so (a full disk is the usual cause).
  *err = ferr.Message() + "; " + path + " is left as it was";
  return false;
}

bool StateLock::Acquire(const std::string& dir, int wait_ms, std::string* err) {
  const std::string path = dir + "/lock";
  FileError ferr;
  switch (lock_.Acquire(path, wait_ms, &ferr)) {
    case LockStatus::kLocked:
      return true;
    case LockStatus::kTimeout:
      *err = path + " is held by another railcheck run of this node for more than " +
             std::to_string(wait_ms) + " ms";
      return false;
    case LockStatus::kError:
      break;
  }
  *err = ferr.Message();
  return false;
}

}  // namespace railguard::health
