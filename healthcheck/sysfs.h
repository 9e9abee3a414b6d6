// SPDX-License-Identifier: GPL-2.0-or-later
// Read-only access to a sysfs tree, behind an interface so that tests, fixtures and the
// deadline tracker can stand in for the kernel's /sys.
#pragma once

#include <string>
#include <vector>

namespace railguard::health {

// The most bytes railcheck reads from one sysfs file; real attributes are a page at most.
constexpr size_t kMaxSysfsFileBytes = 64 * 1024;

// Paths are absolute and already include the sysfs root. Implementations must be safe to
// call from several threads at once. Every error text starts with the path.
class Sysfs {
 public:
  virtual ~Sysfs() = default;

  // Reads the whole file at `path` into `*out` (at most kMaxSysfsFileBytes). False with
  // `*err` = "PATH: cause" when it cannot be opened or read, or is not a regular file. May
  // block as long as the kernel (or a FIFO) does: callers bound it with a deadline.
  virtual bool ReadFile(const std::string& path, std::string* out, std::string* err) const = 0;

  // The names in directory `path` (no "." or ".."), sorted. False with `*err` when it
  // cannot be listed.
  virtual bool ListDir(const std::string& path, std::vector<std::string>* out,
                       std::string* err) const = 0;

  // `path` with every symbolic link resolved (realpath). False with `*err` when a component
  // is missing or a link dangles.
  virtual bool Resolve(const std::string& path, std::string* out, std::string* err) const = 0;

  // True when `path` exists (links followed).
  virtual bool Exists(const std::string& path) const = 0;
};

// The real file system.
class RealSysfs : public Sysfs {
 public:
  bool ReadFile(const std::string& path, std::string* out, std::string* err) const override;
  bool ListDir(const std::string& path, std::vector<std::string>* out,
               std::string* err) const override;
  bool Resolve(const std::string& path, std::string* out, std::string* err) const override;
  bool Exists(const std::string& path) const override;
};

// `root` joined with `rel` ("/sys" root + "class/infiniband"), with exactly one '/'
// between them; root "/" gives "/class/...". REQUIRES: `rel` is relative.
std::string JoinPath(const std::string& root, const std::string& rel);

// The last component of `path` ("0000:18:00.0" of ".../0000:18:00.0").
std::string BaseName(const std::string& path);

}  // namespace railguard::health
