// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's own time per submission, for benchmarks: Slurm's per-RPC statistics
 * (sdiag) do not show it, because the submit RPC restarts its timer after the job_submit
 * plugins ran (src/slurmctld/proc_req.c, _slurm_rpc_submit_batch_job: START_TIMER again once
 * it holds the job write lock). With RAILGUARD_KEEPER_STATS in slurmctld's environment (read
 * once, at init) every RG_JS_STATS_WINDOW submissions log one line:
 *   "railguard: job_submit/rail: submit stats: 256 calls, wall p50 0.081 ms, p99 0.240 ms,
 *    max 0.512 ms; on CPU p50 0.075 ms, p99 0.201 ms"
 * Without it nothing is measured. */
#ifndef RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_STATS_H_
#define RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_STATS_H_

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define RG_JS_STATS_WINDOW 256

/* One submission's start: the two clocks, or zeros when stats are off. */
typedef struct {
  int64_t wall, cpu;
} rg_js_stats_t;

/* `clock`'s time in ns (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID). */
int64_t rg_js_clock_ns(clockid_t clock);

/* A whole number from 1 to `most` in environment variable `name` (a test's knob, read once,
 * outside Slurm's locks), logged when set; `most` when it is unset, and when it is anything
 * else (then logged as an error naming the expected form). */
int rg_js_env_count(const char *name, int most);

/* Reads RAILGUARD_KEEPER_STATS. Call from init(). */
void rg_js_stats_init(void);

/* The clocks at a submission's start. */
rg_js_stats_t rg_js_stats_begin(void);

/* Counts the submission that began at `t0`; logs a line at every RG_JS_STATS_WINDOW-th.
 * Safe from concurrent submissions (Slurm runs job_submit under the job read lock). */
void rg_js_stats_end(rg_js_stats_t t0);

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_STATS_H_ */
