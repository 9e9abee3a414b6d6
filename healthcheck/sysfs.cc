// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/sysfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace railguard::health {
namespace {

std::string Cause(const std::string& path, const char* what, int errnum) {
  return path + ": " + what + ": " + std::strerror(errnum);
}

}  // namespace

bool RealSysfs::ReadFile(const std::string& path, std::string* out, std::string* err) const {
  // A blocking open on purpose: a FIFO or a hung driver read blocks here, in the gather
  // worker, where the deadline sees it and names the file.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = Cause(path, "cannot open", errno);
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = path + ": not a regular file; expected a sysfs attribute";
    close(fd);
    return false;
  }
  out->clear();
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = Cause(path, "cannot read", errno);
      close(fd);
      return false;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > kMaxSysfsFileBytes) {
      *err = path + ": longer than " + std::to_string(kMaxSysfsFileBytes) +
             " bytes; expected a sysfs attribute";
      close(fd);
      return false;
    }
  }
  close(fd);
  return true;
}

bool RealSysfs::ListDir(const std::string& path, std::vector<std::string>* out,
                        std::string* err) const {
  DIR* dir = opendir(path.c_str());
  if (!dir) {
    *err = Cause(path, "cannot list", errno);
    return false;
  }
  out->clear();
  while (struct dirent* e = readdir(dir)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    out->push_back(e->d_name);
  }
  closedir(dir);
  std::sort(out->begin(), out->end());
  return true;
}

bool RealSysfs::Resolve(const std::string& path, std::string* out, std::string* err) const {
  char* real = realpath(path.c_str(), nullptr);
  if (!real) {
    *err = Cause(path, "cannot resolve", errno);
    return false;
  }
  *out = real;
  std::free(real);
  return true;
}

bool RealSysfs::Exists(const std::string& path) const {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string JoinPath(const std::string& root, const std::string& rel) {
  if (root.empty()) return rel;
  if (root.back() == '/') return root + rel;
  return root + "/" + rel;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace railguard::health
