// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

namespace railguard {
namespace {

bool Fail(FileError* err, std::string step, const std::string& path) {
  *err = FileError{std::move(step), path, errno};
  return false;
}

std::string BaseNameOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// True when `path` exists (symlinks followed) and is neither a regular file nor a folder.
bool IsSpecialFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// A device, FIFO or socket is written where it is: renaming over it would replace it.
bool WriteInPlace(const std::string& path, std::string_view text, FileError* err) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Fail(err, "open", path);
  if (!WriteAll(fd, text)) {
    Fail(err, "write", path);
    close(fd);
    return false;
  }
  if (close(fd) != 0) return Fail(err, "write", path);
  return true;
}

// Removes the leftovers "<prefix><pid>" of writers that crashed between create and rename: one
// named after this process, or after a pid that no process on this host has or whose process
// runs another program than this one (a writer killed a moment ago, its pid perhaps taken
// since by a compiler or a shell), or one not touched for kStaleTempSeconds. A younger one of
// a live process of this program may be a concurrent writer's (two job steps refreshing one
// cache, a Prolog beside a HealthCheckProgram) between its create and its rename: removing it
// made that writer's rename fail. Pids are this host's: in a folder that several hosts write
// the same file in, another host's writer could still lose its temporary (railguard's state
// and cache files are per host).
constexpr int kStaleTempSeconds = 60;

// The target of the /proc/<pid>/exe link ("self" for this process), or "" when unreadable.
std::string ExeOf(const std::string& pid) {
  char buf[4096];
  const ssize_t n = readlink(("/proc/" + pid + "/exe").c_str(), buf, sizeof(buf));
  return n > 0 && static_cast<size_t>(n) < sizeof(buf) ? std::string(buf, static_cast<size_t>(n))
                                                       : std::string();
}

// True when `suffix` is a pid that no process on this host has, or whose process runs another
// program than this one (when both links are readable).
bool NotAWriter(const char* suffix) {
  char* end = nullptr;
  errno = 0;
  const long pid = std::strtol(suffix, &end, 10);
  if (errno != 0 || end == suffix || *end != '\0' || pid <= 0 || pid > INT32_MAX) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  const std::string exe = ExeOf(std::to_string(pid));
  const std::string self = exe.empty() ? std::string() : ExeOf("self");
  return !exe.empty() && !self.empty() && exe != self;
}

void RemoveStaleTemps(const std::string& dir, const std::string& prefix) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  const std::string mine = prefix + std::to_string(getpid());
  const time_t now = time(nullptr);
  while (struct dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) != 0) continue;
    struct stat st;
    const bool stale = e->d_name == mine || NotAWriter(e->d_name + prefix.size()) ||
                       (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                        now - st.st_mtime >= kStaleTempSeconds);
    if (stale) unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
}

}  // namespace

std::string FileError::Message() const {
  return "cannot " + step + " " + path + ": " + std::strerror(code);
}

bool WriteAll(int fd, std::string_view text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) {
      errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string ParentDir(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

bool MakeDirs(const std::string& dir, FileError* err) {
  struct stat st;
  if (lstat(dir.c_str(), &st) == 0) return true;
  if (errno != ENOENT) return Fail(err, "inspect", dir);
  const std::string parent = ParentDir(dir);
  if (parent != dir && !MakeDirs(parent, err)) return false;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return Fail(err, "create", dir);
  return true;
}

bool FileIdentity::operator==(const FileIdentity& o) const {
  if (!exists || !o.exists) return exists == o.exists;
  return dev == o.dev && ino == o.ino && size == o.size && mtime_sec == o.mtime_sec &&
         mtime_nsec == o.mtime_nsec;
}

FileIdentity IdentityOf(const std::string& path) {
  FileIdentity id;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return id;
  id.exists = true;
  id.dev = static_cast<uint64_t>(st.st_dev);
  id.ino = static_cast<uint64_t>(st.st_ino);
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtime_sec = static_cast<int64_t>(st.st_mtim.tv_sec);
  id.mtime_nsec = static_cast<int64_t>(st.st_mtim.tv_nsec);
  return id;
}

bool MakeFolder(const std::string& dir, struct stat* st, FileError* err) {
  if (!MakeDirs(dir, err)) return false;
  if (lstat(dir.c_str(), st) != 0) return Fail(err, "inspect", dir);
  return true;
}

ReadResult ReadRegularFile(const std::string& path, size_t max_bytes, std::string* out) {
  ReadResult r;
  auto failed = [&r](ReadStatus s, ReadFailure f) {
    r.status = s;
    r.failure = f;
    return r;
  };
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    r.code = errno;
    if (errno == ENOENT) return failed(ReadStatus::kMissing, ReadFailure::kNone);
    return failed(ReadStatus::kError, errno == ELOOP ? ReadFailure::kSymlink : ReadFailure::kOpen);
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return failed(ReadStatus::kError, ReadFailure::kNotRegular);
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    close(fd);
    r.size = static_cast<uint64_t>(st.st_size);
    return failed(ReadStatus::kError, ReadFailure::kTooLarge);
  }
  out->clear();
  out->reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      r.code = errno;
      close(fd);
      return failed(ReadStatus::kError, ReadFailure::kRead);
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > max_bytes) {
      close(fd);
      return failed(ReadStatus::kError, ReadFailure::kGrew);
    }
  }
  close(fd);
  return r;
}

std::string ReadFailureMessage(const std::string& path, const ReadResult& r, size_t max_bytes) {
  switch (r.failure) {
    case ReadFailure::kOpen:
      return "cannot open " + path + ": " + std::strerror(r.code);
    case ReadFailure::kRead:
      return "cannot read " + path + ": " + std::strerror(r.code);
    case ReadFailure::kTooLarge:
      return path + " is " + std::to_string(r.size) + " bytes; expected at most " +
             std::to_string(max_bytes);
    default:
      return "";
  }
}

bool ReplaceFile(const std::string& path, std::string_view text, FileError* err, TempName temp) {
  if (IsSpecialFile(path)) return WriteInPlace(path, text, err);
  const std::string dir = ParentDir(path);
  std::string tmp;
  if (temp == TempName::kHidden) {
    const std::string prefix = "." + BaseNameOf(path) + ".tmp.";
    RemoveStaleTemps(dir, prefix);  // leftovers of runs that crashed between create and rename
    tmp = dir + "/" + prefix + std::to_string(getpid());
  } else {
    tmp = path + ".tmp." + std::to_string(getpid());
  }
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Fail(err, "create", tmp);
  if (!WriteAll(fd, text) || fsync(fd) != 0) {
    Fail(err, "write", tmp);
    close(fd);
    unlink(tmp.c_str());
    return false;
  }
  if (close(fd) != 0) {
    Fail(err, "write", tmp);
    unlink(tmp.c_str());
    return false;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    Fail(err, "rename " + tmp + " to", path);
    unlink(tmp.c_str());
    return false;
  }
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);  // makes the rename itself durable
    close(dfd);
  }
  return true;
}

LockStatus LockWithin(int fd, int wait_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return LockStatus::kLocked;
    if (errno != EWOULDBLOCK && errno != EINTR) return LockStatus::kError;
    if (std::chrono::steady_clock::now() >= deadline) return LockStatus::kTimeout;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) close(fd_);
}

LockStatus FileLock::Acquire(const std::string& path, int wait_ms, FileError* err) {
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    Fail(err, "open", path);
    return LockStatus::kError;
  }
  const LockStatus s = LockWithin(fd_, wait_ms);
  if (s == LockStatus::kError) Fail(err, "lock", path);
  return s;
}

bool ListFolder(const std::string& dir, size_t max, std::vector<std::string>* names) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  names->clear();
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != ".." && names->size() < max) names->push_back(name);
  }
  closedir(d);
  std::sort(names->begin(), names->end());
  return true;
}

bool ReadFileHead(const std::string& path, size_t max_bytes, std::string* out,
                  std::string* why) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *why = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!ok) *why = "not a regular file";
  out->assign(ok ? max_bytes : 0, '\0');
  size_t got = 0;
  while (ok && got < max_bytes) {
    const ssize_t n = read(fd, &(*out)[got], max_bytes - got);
    if (n > 0) got += static_cast<size_t>(n);
    else if (n == 0) break;
    else if (errno != EINTR) {
      *why = std::string("cannot read: ") + std::strerror(errno);
      ok = false;
    }
  }
  close(fd);
  out->resize(got);
  return ok;
}

}  // namespace railguard
