#include "healthcheck/state_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "healthcheck/sysfs.h"

namespace railguard::health {
namespace {

std::string Errno(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

bool MakeDirs(const std::string& dir, std::string* err) {
  struct stat st;
  if (lstat(dir.c_str(), &st) == 0) return true;
  if (errno != ENOENT) {
    *err = Errno("cannot inspect", dir);
    return false;
  }
  const std::string parent = ParentPath(dir);
  if (parent != dir && !MakeDirs(parent, err)) return false;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    *err = Errno("cannot create", dir);
    return false;
  }
  return true;
}

bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

bool PrepareStateDir(const std::string& dir, std::string* err) {
  if (dir.empty() || dir[0] != '/') {
    *err = "state_dir '" + dir + "' is not an absolute path";
    return false;
  }
  if (!MakeDirs(dir, err)) return false;
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) {
    *err = Errno("cannot inspect", dir);
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
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return ReadStatus::kMissing;
    if (errno == ELOOP) {
      *err = path + " is a symbolic link; expected a regular file written by railcheck";
    } else {
      *err = Errno("cannot open", path);
    }
    return ReadStatus::kError;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    *err = path + " is not a regular file; expected one written by railcheck";
    return ReadStatus::kError;
  }
  if (static_cast<size_t>(st.st_size) > kMaxStateFileBytes) {
    close(fd);
    *err = path + " is " + std::to_string(st.st_size) + " bytes; expected at most " +
           std::to_string(kMaxStateFileBytes);
    return ReadStatus::kError;
  }
  out->clear();
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = Errno("cannot read", path);
      close(fd);
      return ReadStatus::kError;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > kMaxStateFileBytes) break;
  }
  close(fd);
  return ReadStatus::kOk;
}

bool WriteStateFileAtomic(const std::string& path, const std::string& text, std::string* err) {
  const std::string dir = ParentPath(path);
  const std::string name = BaseName(path);
  const std::string prefix = "." + name + ".tmp.";
  // Leftovers of runs that crashed between create and rename.
  if (DIR* d = opendir(dir.c_str())) {
    while (struct dirent* e = readdir(d)) {
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0)
        unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
  }
  const std::string tmp = dir + "/" + prefix + std::to_string(getpid());
  // Every failure leaves `path` as it was; the message says so (a full disk is the usual cause).
  const std::string kept = "; " + path + " is left as it was";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = Errno("cannot create", tmp) + kept;
    return false;
  }
  if (!WriteAll(fd, text) || fsync(fd) != 0) {
    *err = Errno("cannot write", tmp) + kept;
    close(fd);
    unlink(tmp.c_str());
    return false;
  }
  if (close(fd) != 0) {
    *err = Errno("cannot write", tmp) + kept;
    unlink(tmp.c_str());
    return false;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *err = Errno("cannot rename " + tmp + " to", path) + kept;
    unlink(tmp.c_str());
    return false;
  }
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);  // makes the rename itself durable
    close(dfd);
  }
  return true;
}

StateLock::~StateLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the flock
}

bool StateLock::Acquire(const std::string& dir, int wait_ms, std::string* err) {
  const std::string path = dir + "/lock";
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    *err = Errno("cannot open", path);
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    if (flock(fd_, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      *err = Errno("cannot lock", path);
      return false;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      *err = path + " is held by another railcheck run of this node for more than " +
             std::to_string(wait_ms) + " ms";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace railguard::health
