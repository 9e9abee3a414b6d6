// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace railguard {
namespace {

void Add(Diags* diags, const std::string& name, std::string message) {
  diags->push_back(Diag{name, 0, 0, std::move(message)});
}

// What a file of `mode` is, when it is not read as text: a named character device (/dev/zero,
// /dev/urandom) would never end; one that is standard input is read like a pipe.
const char* Refused(mode_t mode, bool named) {
  if (S_ISDIR(mode)) return "is a folder";
  if (S_ISCHR(mode) && named) return "is a character device";
  if (S_ISBLK(mode)) return "is a block device";
  if (S_ISSOCK(mode)) return "is a socket";
  return nullptr;
}

bool ReadBounded(int fd, bool named, const std::string& name, const InputKind& kind,
                 std::string* out, Diags* diags) {
  struct stat st;
  const bool stated = fstat(fd, &st) == 0;
  if (stated) {
    if (const char* what = Refused(st.st_mode, named)) {
      Add(diags, name, std::string(what) + "; expected " + kind.name + " (a regular file or a pipe)");
      return false;
    }
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kind.max_bytes) {
      Add(diags, name,
          "file is " + std::to_string(st.st_size) + " bytes; expected at most " +
              std::to_string(kind.max_bytes));
      return false;
    }
  }
  out->clear();
  // A regular file's size is known: one allocation instead of doubling to it.
  if (stated && S_ISREG(st.st_mode) && st.st_size > 0)
    out->reserve(std::min<uint64_t>(static_cast<uint64_t>(st.st_size), kind.max_bytes) + 1);
  char buf[1 << 16];
  for (;;) {
    const size_t want = std::min(sizeof buf, kind.max_bytes + 1 - out->size());
    const ssize_t n = read(fd, buf, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      Add(diags, name, "read error");
      return false;
    }
    if (n == 0) return true;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > kind.max_bytes) {
      const std::string max = std::to_string(kind.max_bytes);
      Add(diags, name,
          "more than " + max + " bytes; expected " + kind.name + " of at most " + max + " bytes");
      out->clear();
      return false;
    }
  }
}

}  // namespace

bool ReadTextFd(int fd, const std::string& name, const InputKind& kind, std::string* out,
                Diags* diags) {
  return ReadBounded(fd, false, name, kind, out, diags);
}

bool ReadTextFile(const std::string& path, const InputKind& kind, std::string* out,
                  Diags* diags) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    Add(diags, path, std::string("cannot open: ") + std::strerror(errno));
    return false;
  }
  const bool ok = ReadBounded(fd, true, path, kind, out, diags);
  close(fd);
  return ok;
}

}  // namespace railguard
