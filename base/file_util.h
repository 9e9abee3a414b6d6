// SPDX-License-Identifier: GPL-2.0-or-later
// File helpers every layer shares: full writes, mkdir -p, a bounded no-follow read of a
// regular file, an atomic replace that writes special files in place, a lock with a deadline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sys/stat.h>

#include <string>
#include <vector>
#include <string_view>

namespace railguard {

// One failed step of a file helper, for the caller to word: `Message()` is
// "cannot <step> <path>: <strerror(code)>", the wording railctl and railcheck use.
struct FileError {
  std::string step;  // "create", "inspect", "open", "write", "rename <tmp> to", "lock", ...
  std::string path;  // the path the step failed on
  int code = 0;      // errno of the failed call
  std::string Message() const;
};

// Writes all of `text` to `fd`, retrying interrupted and short writes. False with errno set.
bool WriteAll(int fd, std::string_view text);

// mkdir -p with mode 0755: an existing `dir` (whatever it is) is left alone, missing parents
// are created first. False with `*err`: step "inspect" (lstat failed other than ENOENT) or
// "create" (mkdir failed other than EEXIST), and the path it failed on.
bool MakeDirs(const std::string& dir, FileError* err);

// MakeDirs, then lstat of `dir` into `*st` (not following a link at its end), for callers that
// then check what the folder is. False with `*err` as MakeDirs, or step "inspect" and `dir`
// when the lstat fails.
bool MakeFolder(const std::string& dir, struct stat* st, FileError* err);

// Parent folder of `path`: "a/b" -> "a", "/a" -> "/", "a" -> ".".
std::string ParentDir(const std::string& path);

// What stat() says of a file, to tell whether it was written or replaced since: the same
// device, inode, size and modification time (to the nanosecond). A path that cannot be
// stat'ed has `exists` false and equals only another such one.
struct FileIdentity {
  bool exists = false;
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_sec = 0, mtime_nsec = 0;
  bool operator==(const FileIdentity& o) const;
  bool operator!=(const FileIdentity& o) const { return !(*this == o); }
};

// stat() of `path` (following links, as reading it would).
FileIdentity IdentityOf(const std::string& path);

enum class ReadStatus { kOk, kMissing, kError };

// Why ReadRegularFile failed, for the caller's own message.
enum class ReadFailure {
  kNone,
  kOpen,        // open() failed (not ENOENT, not ELOOP); `code` is errno
  kSymlink,     // the last component is a symbolic link (O_NOFOLLOW)
  kNotRegular,  // fstat failed or the file is not a regular file
  kTooLarge,    // st_size > max_bytes; `size` is st_size
  kRead,        // read() failed; `code` is errno
  kGrew,        // more than max_bytes arrived although st_size was smaller; `*out` holds them
};

struct ReadResult {
  ReadStatus status = ReadStatus::kOk;
  ReadFailure failure = ReadFailure::kNone;
  int code = 0;       // errno for kOpen and kRead
  uint64_t size = 0;  // st_size for kTooLarge
};

// Reads `path` without following a symlink at its end (O_NOFOLLOW, O_NONBLOCK); it must be
// a regular file of at most `max_bytes`. kMissing when it does not exist. Stops reading once
// more than `max_bytes` arrived (kGrew). `*out` is replaced.
ReadResult ReadRegularFile(const std::string& path, size_t max_bytes, std::string* out);

// The names in folder `dir` (not "." and ".."), sorted, at most `max` of them (the first
// read). False when `dir` cannot be opened (errno is left set).
bool ListFolder(const std::string& dir, size_t max, std::vector<std::string>* names);

// Reads the first `max_bytes` (or fewer) of the regular file `path` into `*out`, not following
// a symlink at its end (O_NOFOLLOW, O_NONBLOCK): enough of a file to tell its format. False
// with `*why` ("cannot open: <strerror>", "not a regular file", "cannot read: <strerror>").
bool ReadFileHead(const std::string& path, size_t max_bytes, std::string* out, std::string* why);

// The words every caller shares for a failed ReadRegularFile of `path` with `max_bytes`:
// "cannot open <path>: <strerror>" (kOpen), "cannot read <path>: <strerror>" (kRead),
// "<path> is <size> bytes; expected at most <max_bytes>" (kTooLarge). "" for kNone and for
// the failures each caller words itself (kSymlink, kNotRegular, kGrew).
std::string ReadFailureMessage(const std::string& path, const ReadResult& r, size_t max_bytes);

// How ReplaceFile names its temporary file in the folder of `path`.
enum class TempName {
  kSuffix,  // "<path>.tmp.<pid>"; no clean-up of older ones
  kHidden,  // "<dir>/.<name>.tmp.<pid>"; leftovers "<dir>/.<name>.tmp.*" are removed first
            // when named after this process, after a pid no process here has or one running
            // another program, or untouched for 60 s (a younger one of a live process of this
            // program may be a concurrent writer's)
};

// Replaces `path` with `text` so that a crash leaves the old file or the new one, whole:
// temporary file (O_EXCL, O_NOFOLLOW, mode 0644), fsync, rename over `path`, fsync of the
// folder. When `path` names (also through symlinks, as /dev/stdout does) something that
// exists and is not a regular file or a folder (a character or block device, a FIFO, a
// socket), it is opened and written in place and never replaced. False with `*err` (steps
// "create", "write", "rename <tmp> to", or "open"/"write" of the special file); `path` is
// then as it was, except for a special file that took part of the text.
bool ReplaceFile(const std::string& path, std::string_view text, FileError* err,
                 TempName temp = TempName::kHidden);

enum class LockStatus { kLocked, kTimeout, kError };

// Takes an exclusive flock on the open `fd`, retrying every few ms until `wait_ms` passed.
// kError with errno set when flock fails other than by contention.
LockStatus LockWithin(int fd, int wait_ms);

// An exclusive lock on a lock file, held until destruction (closing releases it).
class FileLock {
 public:
  FileLock() = default;
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Opens (creates, mode 0600, no symlink followed) `path` and waits up to `wait_ms` for the
  // lock. kError with `*err` (step "open" or "lock"); kTimeout when another holder kept it.
  LockStatus Acquire(const std::string& path, int wait_ms, FileError* err);

 private:
  int fd_ = -1;
};

}  // namespace railguard
