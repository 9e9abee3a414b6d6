// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's per-domain counts of a job's nodes (js_domains.h). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <pthread.h>
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
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/common/node_run.h"
#include "plugin/job_submit_rail/js_bridge.h"
#include "plugin/job_submit_rail/js_domains.h"
#include "js_version.h" /* per Slurm version: slurm_2205/, slurm_2411/ */
// clang-format on

/* A build older than this is made again once a node changed after it (seconds). */
#define DOMAINS_RECHECK_S 60

/* The bitmaps of one build, for one node table and one loaded setup. */
typedef struct {
  uint64_t generation;   /* the bridge's setup generation it was built for; 0: none */
  time_t conf_update;    /* slurm_conf.last_update then */
  time_t built_at;       /* when */
  int node_count;        /* node_record_count then */
  node_record_t **slots; /* node_record_table_ptr[0..node_count) then */
  int n;                 /* domains */
  bitstr_t **domain;     /* per domain, its node records */
  rg_node_run_t *run;    /* per domain, whether its records are one run of slots (counted
                          * over that run's words only: plugin/common/node_run.h) */
  uint32_t *cpus;        /* per domain, the most CPUs of its nodes' config records */
  bitstr_t *rail;        /* every record on the rails */
} _domains_t;

/* Submissions run side by side under the job read lock: one at a time here. */
static pthread_mutex_t domains_mu = PTHREAD_MUTEX_INITIALIZER;
static _domains_t domains; /* domains_mu */

static void _domains_clear(_domains_t *d) {
  for (int i = 0; i < d->n; i++) FREE_NULL_BITMAP(d->domain[i]);
  xfree(d->domain);
  xfree(d->run);
  xfree(d->cpus);
  FREE_NULL_BITMAP(d->rail);
  xfree(d->slots);
  memset(d, 0, sizeof(*d));
}

/* Whether `d` still describes slurmctld's node table and the setup of `generation`.
 * REQUIRES: node read lock. */
static bool _domains_current(const _domains_t *d, uint64_t generation, time_t now) {
  if (!d->generation || (d->generation != generation) ||
      (d->conf_update != slurm_conf.last_update) || (d->node_count != node_record_count))
    return false;
  if (memcmp(d->slots, node_record_table_ptr, sizeof(node_record_t *) * (size_t)d->node_count))
    return false;
  return !((now - d->built_at >= DOMAINS_RECHECK_S) && (last_node_update >= d->built_at));
}

/* Builds `d` from slurmctld's node table and the setup in force. Returns false when nothing
 * is loaded. REQUIRES: node read lock. */
static bool _domains_build(_domains_t *d, time_t now) {
  int count = node_record_count;
  const char **names = xcalloc(count + 1, sizeof(char *));
  int32_t *of = xcalloc(count + 1, sizeof(int32_t));
  uint64_t generation = 0;
  int n;

  _domains_clear(d);
  if (count <= 0) {
    xfree(names);
    xfree(of);
    return false;
  }
  for (int i = 0; i < count; i++)
    names[i] = (node_record_table_ptr[i] && node_record_table_ptr[i]->name)
                   ? node_record_table_ptr[i]->name
                   : "";
  n = rg_js_node_domains(names, (uint32_t)count, of, &generation);
  if (n < 0 || !generation) {
    xfree(names);
    xfree(of);
    return false;
  }
  /* Sized as Slurm's node bitmaps (node_record_count bits): bit_overlap and bit_and take
   * bitmaps of one size. */
  d->domain = xcalloc(n + 1, sizeof(bitstr_t *));
  for (int k = 0; k < n; k++) d->domain[k] = bit_alloc(count);
  d->n = n;
  d->rail = bit_alloc(count);
  d->run = xcalloc(n + 1, sizeof(rg_node_run_t));
  d->cpus = xcalloc(n + 1, sizeof(uint32_t));
  for (int i = 0; i < count; i++) {
    node_record_t *node_ptr = node_record_table_ptr[i];
    if (!node_ptr || (of[i] < 0) || (of[i] >= n)) continue;
    bit_set(d->domain[of[i]], i);
    bit_set(d->rail, i);
    if (node_ptr->config_ptr && (node_ptr->config_ptr->cpus > d->cpus[of[i]]))
      d->cpus[of[i]] = node_ptr->config_ptr->cpus;
  }
  /* Nodes are usually numbered domain by domain, so that a domain's records are one run of
   * slots: counting a job's nodes there reads that run's words only, not the whole table's
   * (128 domains x 4,096 bits per submission otherwise). */
  for (int k = 0; k < n; k++) d->run[k] = rg_node_run_of(d->domain[k]);
  d->slots = xcalloc(count + 1, sizeof(node_record_t *));
  memcpy(d->slots, node_record_table_ptr, sizeof(node_record_t *) * (size_t)count);
  d->node_count = count;
  d->generation = generation;
  d->conf_update = slurm_conf.last_update;
  d->built_at = now;
  xfree(names);
  xfree(of);
  return true;
}

bool rg_js_active_feature(const char *feature, bitstr_t **nodes) {
  node_feature_t *f, *found = NULL;
  rg_list_itr_t it;

  if (nodes) *nodes = NULL;
  if (!feature || !feature[0] || !active_feature_list) return false;
  it = list_iterator_create(active_feature_list);
  while (!found && (f = list_next(it)))
    if (f->name && !strcmp(f->name, feature)) found = f;
  list_iterator_destroy(it);
  if (found && nodes) *nodes = found->node_bitmap;
  return found != NULL;
}

/* The most CPUs of a config record that holds one of `nodes`. REQUIRES: node read lock. */
static uint32_t _max_cpus(bitstr_t *nodes) {
  config_record_t *c;
  uint32_t most = 0;
  rg_list_itr_t it;

  if (!config_list) return 0;
  it = list_iterator_create(config_list);
  while ((c = list_next(it)))
    if (c->node_bitmap && (c->cpus > most) && bit_overlap_any(c->node_bitmap, nodes))
      most = c->cpus;
  list_iterator_destroy(it);
  return most;
}

bool rg_js_count_domains(bitstr_t *nodes, const char *feature, rg_js_facts_t *f) {
  uint64_t generation = rg_js_generation();
  time_t now = time(NULL);
  bitstr_t *healthy, *on_rails, *off_rails;
  uint32_t *counts;

  if (!generation || !nodes || (bit_size(nodes) != node_record_count)) return false;
  slurm_mutex_lock(&domains_mu);
  if (!_domains_current(&domains, generation, now) && !_domains_build(&domains, now)) {
    slurm_mutex_unlock(&domains_mu);
    return false;
  }
  /* `nodes` is sized node_record_count, as the build's bitmaps (same count: current). */
  counts = xcalloc(domains.n + 1, sizeof(uint32_t));
  f->max_cpus = 0;
  for (int k = 0; k < domains.n; k++) {
    counts[k] = (uint32_t)rg_node_run_count(domains.run[k], domains.domain[k], nodes);
    if (counts[k] && (domains.cpus[k] > f->max_cpus)) f->max_cpus = domains.cpus[k];
  }
  on_rails = bit_copy(nodes);
  bit_and(on_rails, domains.rail);
  (void)rg_js_active_feature(feature, &healthy);
  f->healthy_count = healthy ? (uint32_t)bit_overlap(on_rails, healthy) : 0;
  FREE_NULL_BITMAP(on_rails);
  /* The job's nodes off the rails, if any: their CPUs from the config records. */
  off_rails = bit_copy(nodes);
  bit_and_not(off_rails, domains.rail);
  if (bit_ffs(off_rails) >= 0) f->max_cpus = MAX(f->max_cpus, _max_cpus(off_rails));
  FREE_NULL_BITMAP(off_rails);
  f->su_counts = counts;
  f->su_count_n = (uint32_t)domains.n;
  f->generation = domains.generation;
  slurm_mutex_unlock(&domains_mu);
  return true;
}

void rg_js_domains_free_counts(rg_js_facts_t *f) {
  uint32_t *counts = (uint32_t *)f->su_counts;

  xfree(counts);
  f->su_counts = NULL;
  f->su_count_n = 0;
}

void rg_js_domains_fini(void) {
  slurm_mutex_lock(&domains_mu);
  _domains_clear(&domains);
  slurm_mutex_unlock(&domains_mu);
}
