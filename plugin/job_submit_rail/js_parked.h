// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's parked jobs: the pending jobs of priority 0 that Slurm held or parked
 * for want of healthy nodes (plugin/core/held_jobs.h decides), found under read locks and
 * changed under the job write lock by the feature keeper (js_keeper.c). */
#ifndef RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_PARKED_H_
#define RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_PARKED_H_

#include <stdbool.h>
#include <stdint.h>

/* One change to a parked job. */
typedef struct {
  uint32_t job_id;
  int step; /* RG_JS_PARKED_* (js_bridge.h) */
  uint32_t healthy;
  char *mark, *reason, *features; /* malloc'd by the bridge */
} rg_parked_t;

/* One part of a walk over slurmctld's job list: reads at most `budget` entries from entry
 * *pos on (counted from the list's head; *pos = 0 starts a walk) and appends a step for each
 * pending job of priority 0 that needs one to (*out)[*n] (xmalloc'd, *cap allocated: start
 * with NULL, 0, 0), then sets *pos past what it read. Returns whether entries may remain.
 * Between two parts the list may change: a job added or removed before *pos shifts the rest,
 * so one job may be read twice (its step then comes twice, and the second changes nothing:
 * rg_parked_apply checks each job again and sets the same values) or not at all (the next walk
 * reads it). `restore`: slurm.conf was just read. REQUIRES: job, node and partition read locks. */
bool rg_parked_collect(const char *feature, bool restore, int *pos, int budget, rg_parked_t **out,
                       int *n, int *cap);

/* Applies the steps to the jobs that are still pending with priority 0; returns how many
 * were released. REQUIRES: job write lock, node and partition read locks. */
int rg_parked_apply(rg_parked_t *steps, int n);

/* Frees what rg_parked_collect() gave. */
void rg_parked_free(rg_parked_t *steps, int n);

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_PARKED_H_ */
