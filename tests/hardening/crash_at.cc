// SPDX-License-Identifier: GPL-2.0-or-later
// LD_PRELOAD shim for tests/hardening/railcheck_killed_itest.sh: ends the process with SIGKILL
// at a chosen point of replacing a file, as an OOM kill, a `kill -9` or a watchdog would.
//   RAILGUARD_CRASH_AT=write    the first write() to an open file whose path contains
//                               RAILGUARD_CRASH_PATH writes half its bytes, then SIGKILL
//   RAILGUARD_CRASH_AT=rename   a rename() onto a path containing RAILGUARD_CRASH_PATH: SIGKILL
//                               instead (the new file is written and fsynced, not in place)
//   RAILGUARD_CRASH_AT=renamed  that rename() is done, then SIGKILL (before the folder's fsync)
// Without RAILGUARD_CRASH_AT it changes nothing. Built by the test: g++ -shared -fPIC.
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool Armed(const char* point) {
  const char* at = std::getenv("RAILGUARD_CRASH_AT");
  return at && std::strcmp(at, point) == 0;
}

bool PathMatches(const char* path) {
  const char* want = std::getenv("RAILGUARD_CRASH_PATH");
  return want && *want && path && std::strstr(path, want);
}

bool FdMatches(int fd) {
  char link[64];
  char path[4096];
  std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof(path) - 1);
  if (n <= 0) return false;
  path[n] = '\0';
  return PathMatches(path);
}

[[noreturn]] void Die() {
  kill(getpid(), SIGKILL);
  for (;;) pause();
}

}  // namespace

extern "C" ssize_t write(int fd, const void* buf, size_t count) {
  using Write = ssize_t (*)(int, const void*, size_t);
  static const Write real = reinterpret_cast<Write>(dlsym(RTLD_NEXT, "write"));
  if (fd > 2 && count > 1 && Armed("write") && FdMatches(fd)) {
    real(fd, buf, count / 2);
    Die();
  }
  return real(fd, buf, count);
}

extern "C" int rename(const char* from, const char* to) {
  using Rename = int (*)(const char*, const char*);
  static const Rename real = reinterpret_cast<Rename>(dlsym(RTLD_NEXT, "rename"));
  if (Armed("rename") && PathMatches(to)) Die();
  const int rc = real(from, to);
  if (Armed("renamed") && PathMatches(to)) Die();
  return rc;
}
