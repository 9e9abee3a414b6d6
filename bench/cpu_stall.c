// SPDX-License-Identifier: GPL-2.0-or-later
// A probe for bench/sched_scale.sh: how long this machine's CPUs stall under a thread that
// believes it is running. It repeats a fixed unit of arithmetic (about --work-us of CPU on an
// idle machine, calibrated at start), naps between units so that it takes about a tenth of
// one CPU, and times each unit on the thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID).
// Waiting for a CPU inside this machine does not advance that clock; what does is time the
// hypervisor takes the virtual CPU away (on a guest that reports no steal time, as this
// Firecracker guest's /proc/stat does) and interrupt work charged to the running thread. A
// unit that takes many times its calibrated CPU time therefore measures a stall that any
// thread, slurmctld's included, would see as "CPU time" in the same run.
//
// usage: cpu_stall [--work-us N] [--every-us N] [--over-us N] [--seconds S] [--out FILE]
// Runs until SIGTERM/SIGINT or --seconds, then writes one line to FILE (default stdout):
//   units=U calibrated_us=C over_us=T stalls=K longest_ms=L p999_ms=P
// where K units took more than T us of CPU and L is the longest unit's CPU time.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t g_stop;
static void on_signal(int sig) {
  (void)sig;
  g_stop = 1;
}

static int64_t clock_ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// One unit: `n` rounds of integer arithmetic the compiler cannot drop.
static uint64_t work(long n) {
  volatile uint64_t x = 1;
  for (long i = 0; i < n; i++) x = x * 6364136223846793005ULL + (uint64_t)i;
  return x;
}

// The fastest of 5 units of `rounds`, on the thread's CPU clock (ns).
static int64_t fastest(long rounds) {
  int64_t best = INT64_MAX;
  for (int t = 0; t < 5; t++) {
    int64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    work(rounds);
    int64_t d = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (d < best) best = d;
  }
  return best > 0 ? best : 1;
}

static int cmp_i64(const void* a, const void* b) {
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

// Parses a positive integer option value; exits 2 naming the option otherwise.
static long positive(const char* opt, const char* v) {
  char* end = NULL;
  errno = 0;
  long n = strtol(v ? v : "", &end, 10);
  if (!v || errno || end == v || *end || n <= 0 || n > 100000000L) {
    fprintf(stderr, "cpu_stall: %s '%s': expected a positive integer\n", opt, v ? v : "");
    exit(2);
  }
  return n;
}

int main(int argc, char** argv) {
  long work_us = 100, every_us = 1000, over_us = 1000, seconds = 0;
  const char* out = NULL;
  for (int i = 1; i < argc; i++) {
    const char* v = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--work-us"))
      work_us = positive(argv[i], v), i++;
    else if (!strcmp(argv[i], "--every-us"))
      every_us = positive(argv[i], v), i++;
    else if (!strcmp(argv[i], "--over-us"))
      over_us = positive(argv[i], v), i++;
    else if (!strcmp(argv[i], "--seconds"))
      seconds = positive(argv[i], v), i++;
    else if (!strcmp(argv[i], "--out") && v)
      out = v, i++;
    else {
      fprintf(stderr,
              "usage: cpu_stall [--work-us N] [--every-us N] [--over-us N] [--seconds S] "
              "[--out FILE]\n");
      return 2;
    }
  }
  FILE* f = stdout;
  if (out && !(f = fopen(out, "w"))) {
    fprintf(stderr, "cpu_stall: cannot write '%s': %s\n", out, strerror(errno));
    return 2;
  }
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);

  // Calibrate: double the rounds until the fastest of 5 units takes at least work_us, then
  // scale them to it (a unit's time is linear in its rounds) and measure again.
  long rounds = 64;
  int64_t best;
  while ((best = fastest(rounds)) < work_us * 1000 && rounds < (1L << 40)) rounds *= 2;
  rounds = (long)((double)rounds * (double)work_us * 1000.0 / (double)best);
  if (rounds < 1) rounds = 1;
  best = fastest(rounds);

  size_t cap = 1 << 16, n = 0;
  int64_t* units = malloc(cap * sizeof *units);
  if (!units) return 2;
  long stalls = 0;
  int64_t longest = 0, start = clock_ns(CLOCK_MONOTONIC);
  struct timespec nap = {.tv_sec = every_us / 1000000, .tv_nsec = (every_us % 1000000) * 1000L};
  while (!g_stop && (!seconds || clock_ns(CLOCK_MONOTONIC) - start < seconds * 1000000000LL)) {
    int64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    work(rounds);
    int64_t d = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (d > over_us * 1000) stalls++;
    if (d > longest) longest = d;
    if (n == cap) {
      int64_t* more = realloc(units, 2 * cap * sizeof *units);
      if (more) units = more, cap *= 2;
    }
    if (n < cap) units[n++] = d;
    nanosleep(&nap, NULL);
  }
  double p999 = 0;
  if (n > 0) {
    qsort(units, n, sizeof *units, cmp_i64);
    size_t k = (size_t)(0.999 * (double)n);
    if (k >= n) k = n - 1;
    p999 = (double)units[k] / 1e6;
  }
  fprintf(f, "units=%zu calibrated_us=%.1f over_us=%ld stalls=%ld longest_ms=%.3f p999_ms=%.3f\n",
          n, (double)best / 1e3, over_us, stalls, (double)longest / 1e6, p999);
  if (f != stdout) fclose(f);
  free(units);
  return 0;
}
