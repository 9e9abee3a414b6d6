// SPDX-License-Identifier: GPL-2.0-or-later
// Test preload library (LD_PRELOAD) that models a read stuck in the kernel the way a hung
// driver or firmware command leaves it (D state): the process that opens the file named by
// $RAILGUARD_TEST_STOP_AT waits $RAILGUARD_TEST_STOP_DELAY_MS ms (so that its other threads
// are done with what they were reading), writes its pid to $RAILGUARD_TEST_STOP_PIDFILE and
// stops itself with SIGSTOP inside open(): no thread of it runs again and it never exits by
// itself; only SIGKILL ends it. A FIFO does not model this: its blocking open is interrupted
// by the exit of the process.
// With $RAILGUARD_TEST_HANG_AT instead, only the thread that opens that file stops: it sleeps
// for good inside open() while the process's other threads run on (a read stuck in one
// thread, as railcheck's watchdog must end).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*OpenFn)(const char*, int, ...);
typedef int (*OpenatFn)(int, const char*, int, ...);

static void StopIfAsked(const char* path) {
  const char* hang = getenv("RAILGUARD_TEST_HANG_AT");
  if (hang && *hang && path && strcmp(path, hang) == 0) {
    for (;;) {
      struct timespec ts = {3600, 0};
      nanosleep(&ts, NULL);
    }
  }
  const char* at = getenv("RAILGUARD_TEST_STOP_AT");
  if (!at || !*at || !path || strcmp(path, at) != 0) return;
  const char* delay = getenv("RAILGUARD_TEST_STOP_DELAY_MS");
  const long ms = delay ? strtol(delay, NULL, 10) : 0;
  if (ms > 0) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  const char* pidfile = getenv("RAILGUARD_TEST_STOP_PIDFILE");
  if (pidfile && *pidfile) {
    OpenFn real_open = (OpenFn)dlsym(RTLD_NEXT, "open");
    const int fd = real_open ? real_open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
      char buf[32];
      const int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
      if (write(fd, buf, (size_t)n) != n) {
        // nothing to do: the test then cannot find the process and fails
      }
      close(fd);
    }
  }
  // raise() directs the signal at this thread: it begins the stop itself, before its open
  // goes on (a signal to the process could be taken by another thread, later).
  raise(SIGSTOP);
}

static mode_t ModeOf(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

// The libc function `name` (open or open64) after the check.
static int OpenVia(const char* name, const char* path, int flags, mode_t mode) {
  StopIfAsked(path);
  OpenFn real = (OpenFn)dlsym(RTLD_NEXT, name);
  return real(path, flags, mode);
}

#define RAILGUARD_MODE(flags, mode) \
  va_list ap;                       \
  va_start(ap, flags);              \
  const mode_t mode = ModeOf(flags, ap); \
  va_end(ap)

int open(const char* path, int flags, ...) {
  RAILGUARD_MODE(flags, mode);
  return OpenVia("open", path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  RAILGUARD_MODE(flags, mode);
  return OpenVia("open64", path, flags, mode);
}

int openat(int dir, const char* path, int flags, ...) {
  RAILGUARD_MODE(flags, mode);
  StopIfAsked(path);
  OpenatFn real = (OpenatFn)dlsym(RTLD_NEXT, "openat");
  return real(dir, path, flags, mode);
}

int __open_2(const char* path, int flags) { return OpenVia("open", path, flags, 0); }

int __open64_2(const char* path, int flags) { return OpenVia("open64", path, flags, 0); }
