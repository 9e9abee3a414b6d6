// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's parked jobs, for its feature keeper (js_parked.h). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/job_submit_rail/js_bridge.h"
#include "plugin/job_submit_rail/js_domains.h"
#include "plugin/job_submit_rail/js_parked.h"
#include "plugin/job_submit_rail/js_slurm.h"
#include "js_version.h" /* per Slurm version: slurm_2205/, slurm_2411/ */
// clang-format on

#define PREFIX "railguard: job_submit/rail:"

/* The nodes whose active features hold `feature`: a copy of the feature's bitmap in Slurm's
 * active feature list (the nodes update_node gave it), or, where Slurm keeps none of this
 * table's size, each node's list read. REQUIRES: node read lock. */
static bitstr_t *_healthy_bitmap(const char *feature) {
  bitstr_t *healthy = NULL;
  node_record_t *node_ptr;

  if (!rg_js_active_feature(feature, &healthy)) return bit_alloc(node_record_count);
  if (healthy && (bit_size(healthy) == (bitoff_t)node_record_count)) return bit_copy(healthy);
  healthy = bit_alloc(node_record_count);
  for (int i = 0; (node_ptr = next_node(&i)); i++) {
    const char *act = node_ptr->features_act ? node_ptr->features_act : node_ptr->features;
    if (rg_js_has_feature(act, feature)) bit_set(healthy, node_ptr->index);
  }
  return healthy;
}

/* Healthy nodes of `part_ptr` that the job may get (minus its --exclude). */
static uint32_t _part_healthy(const part_record_t *part_ptr, const job_record_t *job_ptr,
                              bitstr_t *healthy) {
  bitstr_t *nodes;
  uint32_t n;

  if (!part_ptr || !part_ptr->node_bitmap) return 0;
  nodes = bit_copy(part_ptr->node_bitmap);
  bit_and(nodes, healthy);
  if (job_ptr->details && job_ptr->details->exc_node_bitmap)
    bit_and_not(nodes, job_ptr->details->exc_node_bitmap);
  n = (uint32_t)bit_set_count(nodes);
  FREE_NULL_BITMAP(nodes);
  return n;
}

/* The most healthy nodes the job may get in one of its partitions. REQUIRES: job, node and
 * partition read locks. */
static uint32_t _job_healthy(job_record_t *job_ptr, bitstr_t *healthy) {
  uint32_t best = 0, n;

  if (job_ptr->part_ptr_list) {
    part_record_t *part_ptr;
    rg_list_itr_t it = list_iterator_create(job_ptr->part_ptr_list);
    while ((part_ptr = list_next(it))) {
      n = _part_healthy(part_ptr, job_ptr, healthy);
      if (n > best) best = n;
    }
    list_iterator_destroy(it);
  } else {
    best = _part_healthy(job_ptr->part_ptr, job_ptr, healthy);
  }
  return best;
}

/* One part of a walk (rg_parked_collect), for _collect_one. */
typedef struct {
  const char *feature;
  bool restore;
  int skip, budget, read; /* entries still to pass over; to read; read */
  bitstr_t *healthy;      /* made at the first job that needs it */
  rg_parked_t **out;
  int *n, *cap;
} _collect_t;

/* list_for_each_ro's step: passes over c->skip entries, then reads up to c->budget and
 * appends the steps; -1 ends the walk once the budget is spent. */
static int _collect_one(void *x, void *arg) {
  job_record_t *job_ptr = x;
  _collect_t *c = arg;
  rg_js_parked_t p;
  char *mark = NULL, *reason = NULL, *features = NULL;
  int step;

  if (c->skip > 0) { /* read by an earlier hold: only the list's link, no job record */
    c->skip--;
    return 0;
  }
  if (c->read == c->budget) return -1;
  c->read++;
  if (!IS_JOB_PENDING(job_ptr) || (job_ptr->priority != 0) || !job_ptr->details) return 0;
  memset(&p, 0, sizeof(p));
  p.held = (job_ptr->state_reason == WAIT_HELD) || (job_ptr->state_reason == WAIT_HELD_USER);
  p.bad_constraints = (job_ptr->state_reason == FAIL_BAD_CONSTRAINTS);
  if (!p.held && !p.bad_constraints) return 0;
  if (!c->healthy) c->healthy = _healthy_bitmap(c->feature);
  p.admin_comment = job_ptr->admin_comment;
  p.state_desc = job_ptr->state_desc;
  p.features = job_ptr->details->features;
  p.min_nodes = job_ptr->details->min_nodes;
  p.healthy = _job_healthy(job_ptr, c->healthy);
  step = rg_js_judge_parked(&p, c->feature, c->restore, &mark, &reason, &features);
  if (step == RG_JS_PARKED_LEAVE) {
    free(mark);
    free(reason);
    free(features);
    return 0;
  }
  if (*c->n == *c->cap) {
    *c->cap = *c->cap ? 2 * *c->cap : 16;
    xrecalloc(*c->out, *c->cap, sizeof(**c->out));
  }
  (*c->out)[*c->n].job_id = job_ptr->job_id;
  (*c->out)[*c->n].step = step;
  (*c->out)[*c->n].healthy = p.healthy;
  (*c->out)[*c->n].mark = mark;
  (*c->out)[*c->n].reason = reason;
  (*c->out)[*c->n].features = features;
  (*c->n)++;
  return 0;
}

/* See js_parked.h. One read of the list's own lock for the whole part (list_for_each_ro):
 * an iterator's list_next() takes that lock for writing at every entry, and each time
 * waited behind any walk of the job list another thread had begun (a 15 ms hold of the job
 * read lock with 0.22 ms of it on CPU, blocked, at 4,096 nodes and 2,000 waiting jobs on a
 * busy 2-core machine; bench/README.md). REQUIRES: job, node and partition read locks. */
bool rg_parked_collect(const char *feature, bool restore, int *pos, int budget, rg_parked_t **out,
                       int *n, int *cap) {
  _collect_t c = {.feature = feature,
                  .restore = restore,
                  .skip = *pos,
                  .budget = budget,
                  .read = 0,
                  .healthy = NULL,
                  .out = out,
                  .n = n,
                  .cap = cap};

  if (!job_list || (budget <= 0)) return false;
  (void)list_for_each_ro(job_list, _collect_one, &c);
  FREE_NULL_BITMAP(c.healthy);
  *pos += c.read;
  /* More when the budget ran out before the list did (a list that ends exactly there is
   * found so by the next call, which reads nothing). */
  return c.read == budget;
}

/* Releases a job's hold as `scontrol release` does (job_mgr.c, _release_job_rec) and drops
 * railguard's mark from its AdminComment. REQUIRES: job write lock. */
static void _parked_release(job_record_t *job_ptr, time_t now) {
  char *rest = rg_js_without_hold_mark(job_ptr->admin_comment);

  if (job_ptr->details && (job_ptr->details->begin_time < now)) job_ptr->details->begin_time = 0;
  job_ptr->direct_set_prio = 0;
  set_job_prio(job_ptr);
  job_ptr->state_reason = WAIT_NO_REASON;
  xfree(job_ptr->state_desc);
  xfree(job_ptr->admin_comment);
  job_ptr->admin_comment = rest ? xstrdup(rest) : NULL;
  free(rest);
}

/* Sets a pending job's --constraint to `features` as `scontrol update job Features=` does
 * (job_mgr.c, update_job): kept only when Slurm can build its feature list. Returns whether
 * it was set. REQUIRES: job write lock, node read lock. */
static bool _parked_set_features(job_record_t *job_ptr, const char *features) {
  __typeof__(job_ptr->details) det = job_ptr->details;
  char *old_features = det->features;
  __typeof__(det->feature_list) old_list = det->feature_list;

  det->features = xstrdup(features);
  det->feature_list = NULL;
  if (RG_BUILD_FEATURE_LIST(job_ptr) != SLURM_SUCCESS) {
    FREE_NULL_LIST(det->feature_list);
    xfree(det->features);
    det->features = old_features;
    det->feature_list = old_list;
    return false;
  }
  xfree(old_features);
  FREE_NULL_LIST(old_list);
  set_job_features_use(det);
  return true;
}

/* Applies the steps to the jobs that are still pending with priority 0; returns how many
 * were released. REQUIRES: job write lock, node and partition read locks. */
int rg_parked_apply(rg_parked_t *steps, int n) {
  time_t now = time(NULL);
  int released = 0;

  for (int i = 0; i < n; i++) {
    job_record_t *job_ptr = find_job_record(steps[i].job_id);

    if (!job_ptr || !IS_JOB_PENDING(job_ptr) || (job_ptr->priority != 0)) continue;
    switch (steps[i].step) {
      case RG_JS_PARKED_RELEASE:
        /* Held while no node had the feature: first the constraint it was accepted without,
         * unless the topology plugin keeps it off nodes without the feature. */
        if (steps[i].features &&
            rg_js_topology_places(job_ptr->details && job_ptr->details->contiguous)) {
          free(steps[i].features);
          steps[i].features = NULL;
        }
        if (steps[i].features && !_parked_set_features(job_ptr, steps[i].features)) {
          error("%s %pJ stays held: Slurm does not accept the constraint %s", PREFIX, job_ptr,
                steps[i].features);
          break;
        }
        if (steps[i].features)
          info("%s %pJ: constraint set to %s (held while no node had the feature)", PREFIX, job_ptr,
               steps[i].features);
        _parked_release(job_ptr, now);
        info("%s released %pJ: %u nodes of its partition are healthy now", PREFIX, job_ptr,
             steps[i].healthy);
        released++;
        break;
      case RG_JS_PARKED_MARK:
        xfree(job_ptr->admin_comment);
        job_ptr->admin_comment = xstrdup(steps[i].mark);
        info("%s took over %pJ, which Slurm parked (%s): %s", PREFIX, job_ptr,
             RG_JOB_REASON_STRING(job_ptr->state_reason), steps[i].reason);
        /* fall through */
      case RG_JS_PARKED_NOTE:
        xfree(job_ptr->state_desc);
        job_ptr->state_desc = xstrdup(steps[i].reason);
        break;
    }
    last_job_update = now;
  }
  return released;
}

void rg_parked_free(rg_parked_t *steps, int n) {
  for (int i = 0; i < n; i++) {
    free(steps[i].mark);
    free(steps[i].reason);
    free(steps[i].features);
  }
  xfree(steps);
}
