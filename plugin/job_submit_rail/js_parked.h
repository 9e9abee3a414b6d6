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

/* The steps for every pending job of priority 0, in *out (xmalloc'd); returns the count.
 * `restore`: slurm.conf was just read. REQUIRES: job, node and partition read locks. */
int rg_parked_collect(const char *feature, bool restore, rg_parked_t **out);

/* Applies the steps to the jobs that are still pending with priority 0; returns how many
 * were released. REQUIRES: job write lock, node and partition read locks. */
int rg_parked_apply(rg_parked_t *steps, int n);

/* Frees what rg_parked_collect() gave. */
void rg_parked_free(rg_parked_t *steps, int n);

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_PARKED_H_ */
