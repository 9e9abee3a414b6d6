// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's own time per submission (js_stats.h). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"

#include "plugin/job_submit_rail/js_stats.h"
// clang-format on

#define PREFIX "railguard: job_submit/rail:"

static bool stats_on; /* set by rg_js_stats_init(), before any submission */
static pthread_mutex_t stats_mu = PTHREAD_MUTEX_INITIALIZER;
static int64_t stats_wall[RG_JS_STATS_WINDOW], stats_cpu[RG_JS_STATS_WINDOW]; /* stats_mu */
static int stats_n;                                                           /* stats_mu */

int64_t rg_js_clock_ns(clockid_t clock) {
  struct timespec ts;

  clock_gettime(clock, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int _cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The nearest-rank percentile `p` of the sorted `v` (n > 0), in ms. */
static double _pct_ms(const int64_t *v, int n, int p) {
  int r = (p * n + 99) / 100;
  return (double)v[(r < 1 ? 1 : r) - 1] / 1e6;
}

int rg_js_env_count(const char *name, int most) {
  const char *text = getenv(name);
  char *end = NULL;
  long v;

  if (!text) return most;
  v = strtol(text, &end, 10);
  if ((end == text) || *end || (v < 1) || (v > most)) {
    error("%s %s=%s is not a whole number from 1 to %d: using %d", PREFIX, name, text, most, most);
    return most;
  }
  info("%s %s=%ld", PREFIX, name, v);
  return (int)v;
}

void rg_js_stats_init(void) {
  stats_on = getenv("RAILGUARD_KEEPER_STATS") != NULL;
  pthread_mutex_lock(&stats_mu);
  stats_n = 0;
  pthread_mutex_unlock(&stats_mu);
}

rg_js_stats_t rg_js_stats_begin(void) {
  rg_js_stats_t t = {0, 0};

  if (stats_on) {
    t.wall = rg_js_clock_ns(CLOCK_MONOTONIC);
    t.cpu = rg_js_clock_ns(CLOCK_THREAD_CPUTIME_ID);
  }
  return t;
}

void rg_js_stats_end(rg_js_stats_t t0) {
  int64_t wall[RG_JS_STATS_WINDOW], cpu[RG_JS_STATS_WINDOW];
  bool full;

  if (!stats_on || !t0.wall) return;
  int64_t w = rg_js_clock_ns(CLOCK_MONOTONIC) - t0.wall,
          c = rg_js_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0.cpu;
  pthread_mutex_lock(&stats_mu);
  stats_wall[stats_n] = w;
  stats_cpu[stats_n] = c;
  full = (++stats_n == RG_JS_STATS_WINDOW);
  if (full) {
    memcpy(wall, stats_wall, sizeof(wall));
    memcpy(cpu, stats_cpu, sizeof(cpu));
    stats_n = 0;
  }
  pthread_mutex_unlock(&stats_mu);
  if (!full) return;
  qsort(wall, RG_JS_STATS_WINDOW, sizeof(wall[0]), _cmp);
  qsort(cpu, RG_JS_STATS_WINDOW, sizeof(cpu[0]), _cmp);
  info(
      "%s submit stats: %d calls, wall p50 %.3f ms, p99 %.3f ms, max %.3f ms; on CPU p50 %.3f ms, "
      "p99 %.3f ms",
      PREFIX, RG_JS_STATS_WINDOW, _pct_ms(wall, RG_JS_STATS_WINDOW, 50),
      _pct_ms(wall, RG_JS_STATS_WINDOW, 99), (double)wall[RG_JS_STATS_WINDOW - 1] / 1e6,
      _pct_ms(cpu, RG_JS_STATS_WINDOW, 50), _pct_ms(cpu, RG_JS_STATS_WINDOW, 99));
}
