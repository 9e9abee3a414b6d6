// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail against Slurm's internals: reads the job description into plain facts,
 * asks the C++ core (js_bridge.h) and applies its decision. */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr(), RTLD_NODELETE */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/reservation.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/state_save.h"

#include "plugin/common/slurm_log.h"
#include "plugin/job_submit_rail/js_bridge.h"
#include "plugin/job_submit_rail/js_slurm.h"
// clang-format on

#define PREFIX "railguard: job_submit/rail:"

static void _log(int level, const char *msg) { rg_slurm_log(PREFIX, level, msg); }

/* Appends `line` to the message the user sees, after any earlier plugin's. */
static void _tell_user(char **err_msg, const char *line) {
  if (!err_msg || !line) return;
  if (*err_msg)
    xstrfmtcat(*err_msg, "\n%s", line);
  else
    *err_msg = xstrdup(line);
}

/* ------------------------------------------------------------------ the job's facts */

/* What a job (as submitted, or as it will be after an update) asks for, in the fields
 * rg_js_facts_t borrows; the node arrays are xmalloc'd and released by _facts_free. */
typedef struct {
  uint32_t min_nodes, max_nodes, req_switch, num_tasks, ntasks_per_node, cpus_per_task;
  const char *features, *req_nodes, *exc_nodes, *partition, *reservation;
  const char *tres_per_job, *tres_per_task;
  char **spank_env;
  uint32_t spank_env_cnt;
} _job_view_t;

static uint32_t _val32(uint32_t v) { return ((v == NO_VAL) || (v == INFINITE)) ? 0 : v; }
static uint32_t _val16(uint16_t v) { return ((v == NO_VAL16) || (v == INFINITE16)) ? 0 : v; }

/* The nodes a job may get: its partitions' (the default one without -p), within its
 * reservation, minus its --exclude. NULL when none is known. REQUIRES: node and partition
 * read locks (job_submit and job_modify hold them). */
static bitstr_t *_job_nodes(const _job_view_t *v) {
  bitstr_t *nodes = NULL;

  if (v->partition && v->partition[0]) {
    char *copy = xstrdup(v->partition), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      part_record_t *part = find_part_record(tok);
      if (!part || !part->node_bitmap) continue;
      if (!nodes)
        nodes = bit_copy(part->node_bitmap);
      else
        bit_or(nodes, part->node_bitmap);
    }
    xfree(copy);
  } else if (default_part_loc && default_part_loc->node_bitmap) {
    nodes = bit_copy(default_part_loc->node_bitmap);
  }
  if (!nodes) return NULL;
  if (v->reservation && v->reservation[0]) {
    slurmctld_resv_t *resv = find_resv_name((char *)v->reservation);
    if (resv && resv->node_bitmap) bit_and(nodes, resv->node_bitmap);
  }
  if (v->exc_nodes && v->exc_nodes[0]) {
    bitstr_t *exc = NULL;
    if ((node_name2bitmap((char *)v->exc_nodes, false, &exc) == SLURM_SUCCESS) && exc)
      bit_and_not(nodes, exc);
    FREE_NULL_BITMAP(exc);
  }
  return nodes;
}

/* How many nodes --nodelist names (0 for none). */
static uint32_t _nodelist_count(const char *req_nodes) {
  hostlist_t hl;
  uint32_t n;

  if (!req_nodes || !req_nodes[0]) return 0;
  if (!(hl = hostlist_create(req_nodes))) return 0;
  n = (uint32_t)hostlist_count(hl);
  hostlist_destroy(hl);
  return n;
}

/* Fills `f` from `v`; the node arrays point into Slurm's node table. */
static void _facts_fill(const _job_view_t *v, rg_js_facts_t *f) {
  bitstr_t *nodes = _job_nodes(v);
  node_record_t *node_ptr;
  uint32_t n = 0;

  memset(f, 0, sizeof(*f));
  f->min_nodes = v->min_nodes;
  f->max_nodes = v->max_nodes;
  f->has_switches = (v->req_switch > 0);
  f->user_switches = v->req_switch;
  f->nodelist_count = _nodelist_count(v->req_nodes);
  f->features = v->features;
  f->num_tasks = v->num_tasks;
  f->ntasks_per_node = v->ntasks_per_node;
  f->cpus_per_task = v->cpus_per_task;
  f->tres_per_job = v->tres_per_job;
  f->tres_per_task = v->tres_per_task;
  f->spank_env = (const char *const *)v->spank_env;
  f->spank_env_cnt = v->spank_env_cnt;
  f->partition = v->partition;
  f->sched_params = slurm_conf.sched_params;
  if (!nodes) return;
  f->node_cnt = (uint32_t)bit_set_count(nodes);
  f->node_names = xcalloc(f->node_cnt + 1, sizeof(char *));
  f->node_features = xcalloc(f->node_cnt + 1, sizeof(char *));
  f->node_cpus = xcalloc(f->node_cnt + 1, sizeof(uint32_t));
  for (int i = 0; (node_ptr = next_node(&i)) && (n < f->node_cnt); i++) {
    if (!bit_test(nodes, node_ptr->index)) continue;
    ((const char **)f->node_names)[n] = node_ptr->name;
    ((const char **)f->node_features)[n] =
        node_ptr->features_act ? node_ptr->features_act : node_ptr->features;
    ((uint32_t *)f->node_cpus)[n] = node_ptr->config_ptr ? node_ptr->config_ptr->cpus : 0;
    n++;
  }
  f->node_cnt = n;
  FREE_NULL_BITMAP(nodes);
}

static void _facts_free(rg_js_facts_t *f) {
  xfree(f->node_names);
  xfree(f->node_features);
  xfree(f->node_cpus);
}

/* The Slurm error for a refusal. */
static int _refusal_rc(int refuse) {
  switch (refuse) {
    case RG_JS_BAD_OPTION: return ESPANK_BAD_ARG;
    case RG_JS_BAD_CONSTRAINT: return ESLURM_INVALID_FEATURE;
    default: return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
  }
}

/* ------------------------------------------------------------------ the feature keeper */

/* A thread of slurmctld that keeps every node's healthy feature in line with the health
 * railcheck published in the node's Extra (plugin/core/feature_keeper.h): slurmctld resets
 * node features to slurm.conf's at every start and `scontrol reconfigure`, but keeps Extra.
 * It also reloads railguard.yaml after a reconfigure, off Slurm's locks, so job_submit and
 * job_modify answer from memory. Once a second; a pass with nothing to change takes only
 * the node read lock. */

/* The keeper's handshake with fini(), one per thread. Slurm 22.05 calls fini() from
 * read_slurm_conf when a reconfigure changes JobSubmitPlugins, on a thread holding the config,
 * job, node and partition write locks (src/slurmctld/job_submit.c,
 * job_submit_plugin_reconfig). A keeper queued on one of those locks then cannot end before
 * fini() returns, so fini() must not wait for it: it leaves the thread to end on its own when
 * it gets the lock, and keeps this plugin's code loaded for it (_keep_code_loaded). A keeper
 * napping, working off-lock or holding its lock ends promptly, and fini() joins it. */
typedef enum {
  KEEPER_FREE,   /* holds no slurmctld lock and is not queued on one */
  KEEPER_QUEUED, /* in lock_slurmctld(), maybe behind fini()'s caller */
  KEEPER_LOCKED  /* holds its lock; fini()'s caller holds no conflicting one */
} keeper_phase_t;

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool stop;            /* set by fini() */
  bool left;            /* fini() returned without joining: the thread frees this */
  keeper_phase_t phase; /* guarded by mu */
} keeper_t;

static keeper_t *keeper; /* the running keeper; NULL when none */
static pthread_t keeper_thread;

/* Takes `locks` unless fini() stopped the keeper, before or while it queued; returns whether
 * it holds them. A keeper that fini() left holds nothing and must end at once. */
static bool _keeper_lock(keeper_t *k, slurmctld_lock_t locks) {
  bool stop;

  slurm_mutex_lock(&k->mu);
  stop = k->stop;
  if (!stop) k->phase = KEEPER_QUEUED;
  slurm_mutex_unlock(&k->mu);
  if (stop) return false;
  lock_slurmctld(locks);
  slurm_mutex_lock(&k->mu);
  stop = k->stop && k->left;
  k->phase = stop ? KEEPER_FREE : KEEPER_LOCKED;
  slurm_mutex_unlock(&k->mu);
  if (stop) unlock_slurmctld(locks);
  return !stop;
}

static void _keeper_unlock(keeper_t *k, slurmctld_lock_t locks) {
  unlock_slurmctld(locks);
  slurm_mutex_lock(&k->mu);
  k->phase = KEEPER_FREE;
  slurm_mutex_unlock(&k->mu);
}

static void _keeper_free(keeper_t *k) {
  slurm_mutex_destroy(&k->mu);
  slurm_cond_destroy(&k->cv);
  free(k);
}

/* Marks this shared object RTLD_NODELETE, so that Slurm's dlclose() after fini() leaves its
 * code mapped for a keeper thread that fini() could not wait for. The mapping then lasts
 * until slurmctld exits; loading the plugin again reuses it (init() resets all state). */
static void _keep_code_loaded(void) {
  Dl_info self;

  if (!dladdr((void *)_keeper_free, &self) || !self.dli_fname ||
      !dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE))
    error("%s cannot pin its own code (%s): slurmctld may crash if the feature keeper thread "
          "wakes after the plugin is unloaded", PREFIX, dlerror());
}

/* Whether any node needs a fix. REQUIRES: node read lock. */
static bool _keeper_any(const char *feature, bool restore) {
  node_record_t *node_ptr;
  for (int i = 0; (node_ptr = next_node(&i)); i++) {
    char *a = NULL, *b = NULL;
    int fix = rg_js_fix_features(node_ptr->features, node_ptr->features_act, node_ptr->extra,
                                 feature, restore, &a, &b);
    free(a);
    free(b);
    if (fix) return true;
  }
  return false;
}

/* Logs one line for the nodes of `hl` (if any) and destroys it. */
static void _keeper_log(hostlist_t hl, const char *feature, const char *what) {
  if (hostlist_count(hl) > 0) {
    char *names = hostlist_ranged_string_xmalloc(hl);
    info("%s %s %s on %d nodes (%s): from the health railcheck published in their Extra",
         PREFIX, what, feature, hostlist_count(hl), names);
    xfree(names);
  }
  hostlist_destroy(hl);
}

/* Applies every fix with Slurm's update_node(), as `scontrol update node` would, and logs
 * one line per direction. Returns the count. REQUIRES: job, node and partition write locks
 * (those of the update-node RPC). */
static int _keeper_apply(const char *feature, bool restore) {
  node_record_t *node_ptr;
  hostlist_t given = hostlist_create(NULL), taken = hostlist_create(NULL);
  int changed = 0;

  for (int i = 0; (node_ptr = next_node(&i)); i++) {
    char *a = NULL, *b = NULL;
    update_node_msg_t msg;
    int fix = rg_js_fix_features(node_ptr->features, node_ptr->features_act, node_ptr->extra,
                                 feature, restore, &a, &b);

    if (!fix) continue;
    memset(&msg, 0, sizeof(msg));
    msg.node_state = NO_VAL;
    msg.weight = NO_VAL;
    msg.node_names = xstrdup(node_ptr->name);
    msg.features = xstrdup(a);
    msg.features_act = xstrdup(b);
    if (update_node(&msg, slurm_conf.slurm_user_id) == SLURM_SUCCESS) {
      hostlist_push_host((fix == RG_JS_FIX_TAKES) ? taken : given, node_ptr->name);
      changed++;
    } else {
      error("%s %s: could not set features to %s", PREFIX, node_ptr->name, b);
    }
    xfree(msg.node_names);
    xfree(msg.features);
    xfree(msg.features_act);
    free(a);
    free(b);
  }
  _keeper_log(given, feature, restore ? "gave back (slurm.conf was read)" : "gave");
  _keeper_log(taken, feature, "took");
  return changed;
}

/* Waits `ms` milliseconds or until fini() stops the keeper; returns true when stopping. */
static bool _keeper_nap(keeper_t *k, long ms) {
  struct timespec until;
  bool stop;

  slurm_mutex_lock(&k->mu);
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += (ms % 1000) * 1000000L;
  until.tv_sec += ms / 1000 + until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  while (!k->stop && (pthread_cond_timedwait(&k->cv, &k->mu, &until) != ETIMEDOUT)) {
  }
  stop = k->stop;
  slurm_mutex_unlock(&k->mu);
  return stop;
}

/* The keeper's loop. A pass reads slurm_conf.last_update (conf read lock), reloads the setup
 * when it changed (no lock held), then looks at the nodes (node read lock) when slurm.conf
 * was reread or a node changed since its last look, and applies fixes (the update-node
 * RPC's locks) only when there are some. Until its first look at a loaded node table it
 * naps 10 ms: at a start it is then queued on the lock read_slurm_conf holds and looks
 * before slurmctld serves RPCs; later it naps 100 ms. */
static void *_keeper(void *arg) {
  keeper_t *k = arg;
  slurmctld_lock_t conf_read = {READ_LOCK, NO_LOCK, NO_LOCK, NO_LOCK, NO_LOCK};
  slurmctld_lock_t node_read = {NO_LOCK, NO_LOCK, READ_LOCK, NO_LOCK, NO_LOCK};
  slurmctld_lock_t node_write = {NO_LOCK, WRITE_LOCK, WRITE_LOCK, WRITE_LOCK, READ_LOCK};
  time_t restored_for = 0, looked_at = 0;
  bool left;

  do {
    time_t conf_update, now;
    char *feature = NULL;
    bool restore = false, any = false, loaded;
    int changed = 0;

    if (!_keeper_lock(k, conf_read)) break;
    conf_update = slurm_conf.last_update;
    _keeper_unlock(k, conf_read);
    if (rg_js_reload_if_stale((int64_t)conf_update, _log)) {
      if (!_keeper_lock(k, conf_read)) break;
      (void)rg_js_check_switch_wait(slurm_conf.sched_params, _log);
      _keeper_unlock(k, conf_read);
    }

    feature = rg_js_healthy_feature();
    if (!_keeper_lock(k, node_read)) {
      free(feature);
      break;
    }
    loaded = (node_record_count > 0);
    now = time(NULL);
    if (loaded && feature && feature[0] &&
        ((conf_update != restored_for) || (last_node_update >= looked_at))) {
      restore = (conf_update != restored_for);
      any = _keeper_any(feature, restore);
      looked_at = now;
    }
    _keeper_unlock(k, node_read);
    if (any) {
      if (!_keeper_lock(k, node_write)) {
        free(feature);
        break;
      }
      changed = _keeper_apply(feature, restore);
      if (changed) {
        node_features_updated = true;
        last_node_update = time(NULL);
      }
      _keeper_unlock(k, node_write);
    }
    if (loaded) restored_for = conf_update;
    if (changed) {
      schedule_node_save();
      queue_job_scheduler();
    }
    free(feature);
    if (!loaded) restored_for = 0;
  } while (!_keeper_nap(k, restored_for ? 100 : 10));

  slurm_mutex_lock(&k->mu);
  left = k->left;
  slurm_mutex_unlock(&k->mu);
  if (left) _keeper_free(k); /* fini() is gone: nothing of the plugin's state is touched */
  return NULL;
}

static void _keeper_start(void) {
  keeper_t *k = calloc(1, sizeof(*k));

  if (!k) {
    error("%s cannot start the feature keeper thread: out of memory", PREFIX);
    return;
  }
  slurm_mutex_init(&k->mu);
  slurm_cond_init(&k->cv, NULL);
  k->phase = KEEPER_FREE;
  if (pthread_create(&keeper_thread, NULL, _keeper, k) != 0) {
    error("%s cannot start the feature keeper thread: %m", PREFIX);
    _keeper_free(k);
    return;
  }
  keeper = k;
}

/* Stops the keeper: joins it, unless it is queued on a slurmctld lock (see keeper_t). */
static void _keeper_stop(void) {
  keeper_t *k = keeper;
  bool queued;

  if (!k) return;
  keeper = NULL;
  slurm_mutex_lock(&k->mu);
  k->stop = true;
  queued = (k->phase == KEEPER_QUEUED);
  k->left = queued;
  slurm_cond_broadcast(&k->cv);
  slurm_mutex_unlock(&k->mu);
  if (!queued) {
    pthread_join(keeper_thread, NULL);
    _keeper_free(k);
    return;
  }
  /* k belongs to the thread from here on. */
  _keep_code_loaded();
  pthread_detach(keeper_thread);
  info("%s stopped while the feature keeper thread was queued on a slurmctld lock (a "
       "reconfigure holds them): it ends by itself once it gets the lock, doing nothing",
       PREFIX);
}

/* ------------------------------------------------------------------ entry points */

extern int rail_job_submit_init(void) {
  char *path = rg_config_path(default_slurm_config_file);
  const char *shown = path ? path : "railguard.yaml"; /* NULL only when out of memory */
  int rc = path ? rg_js_load(path, (int64_t)slurm_conf.last_update, _log) : RG_LOAD_NONE;

  if (rc < 0)
    error("%s slurmctld cannot run without a valid %s (or without rail in JobSubmitPlugins)",
          PREFIX, shown);
  free(path);
  if (rc < 0) return SLURM_ERROR;
  (void)rg_js_check_switch_wait(slurm_conf.sched_params, _log);
  _keeper_start();
  return SLURM_SUCCESS;
}

extern int rail_job_submit_fini(void) {
  _keeper_stop();
  rg_js_fini();
  return SLURM_SUCCESS;
}

/* Decides for `v` and applies the decision to `job_desc` (the submission, or the update's
 * changes). Returns the Slurm error of a refusal, else SLURM_SUCCESS. */
static int _decide_and_apply(const _job_view_t *v, job_desc_msg_t *job_desc, uint32_t uid,
                             const char *what, char **err_msg) {
  rg_js_facts_t facts;
  rg_js_decision_t d;
  int rc = SLURM_SUCCESS;

  _facts_fill(v, &facts);
  if (rg_js_decide(&facts, _log, &d) != 0) {
    _facts_free(&facts);
    return SLURM_SUCCESS;
  }
  _facts_free(&facts);
  if (d.refuse) {
    rc = _refusal_rc(d.refuse);
    _tell_user(err_msg, d.message);
    info("%s refused %s of uid %u: %s", PREFIX, what, uid, d.message);
    rg_js_decision_free(&d);
    return rc;
  }
  if (d.set_switches) {
    job_desc->req_switch = d.req_switch;
    job_desc->wait4switch = d.wait4switch;
  }
  if (d.features) {
    xfree(job_desc->features);
    job_desc->features = xstrdup(d.features);
  }
  if (d.message) {
    _tell_user(err_msg, d.message);
    verbose("%s %s of uid %u: %s", PREFIX, what, uid, d.message);
  }
  rg_js_decision_free(&d);
  return SLURM_SUCCESS;
}

extern int rail_job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg) {
  _job_view_t v;

  memset(&v, 0, sizeof(v));
  v.min_nodes = _val32(job_desc->min_nodes);
  v.max_nodes = _val32(job_desc->max_nodes);
  v.req_switch = _val32(job_desc->req_switch);
  v.num_tasks = _val32(job_desc->num_tasks);
  v.ntasks_per_node = _val16(job_desc->ntasks_per_node);
  v.cpus_per_task = _val16(job_desc->cpus_per_task);
  v.features = job_desc->features;
  v.req_nodes = job_desc->req_nodes;
  v.exc_nodes = job_desc->exc_nodes;
  v.partition = job_desc->partition;
  v.reservation = job_desc->reservation;
  v.tres_per_job = job_desc->tres_per_job;
  v.tres_per_task = job_desc->tres_per_task;
  v.spank_env = job_desc->spank_job_env;
  v.spank_env_cnt = job_desc->spank_job_env_size;
  return _decide_and_apply(&v, job_desc, submit_uid, "a job", err_msg);
}

/* The fields of an update that can change a job's placement or health requirement. */
static bool _update_touches_placement(const job_desc_msg_t *u) {
  return u->features || (u->min_nodes != NO_VAL) || (u->max_nodes != NO_VAL) ||
         (u->req_switch != NO_VAL) || (u->wait4switch != NO_VAL) || (u->num_tasks != NO_VAL) ||
         (u->ntasks_per_node != NO_VAL16) || (u->cpus_per_task != NO_VAL16) || u->req_nodes ||
         u->exc_nodes || u->partition || u->reservation || u->tres_per_job ||
         u->tres_per_task;
}

extern int rail_job_modify(job_desc_msg_t *job_desc, void *job_ptr_v, uint32_t submit_uid) {
  job_record_t *job_ptr = job_ptr_v;
  struct job_details *det;
  _job_view_t v;
  char *msg = NULL;
  int rc;

  /* Operators may do anything; running jobs keep what they got. */
  if (!job_ptr || !job_ptr->details || !IS_JOB_PENDING(job_ptr) ||
      validate_operator(submit_uid) || !_update_touches_placement(job_desc))
    return SLURM_SUCCESS;
  det = job_ptr->details;
  memset(&v, 0, sizeof(v));
  v.min_nodes = _val32((job_desc->min_nodes != NO_VAL) ? job_desc->min_nodes : det->min_nodes);
  v.max_nodes = _val32((job_desc->max_nodes != NO_VAL) ? job_desc->max_nodes : det->max_nodes);
  v.req_switch =
      _val32((job_desc->req_switch != NO_VAL) ? job_desc->req_switch : job_ptr->req_switch);
  v.num_tasks = _val32((job_desc->num_tasks != NO_VAL) ? job_desc->num_tasks : det->num_tasks);
  v.ntasks_per_node = _val16((job_desc->ntasks_per_node != NO_VAL16) ? job_desc->ntasks_per_node
                                                                     : det->ntasks_per_node);
  v.cpus_per_task = _val16((job_desc->cpus_per_task != NO_VAL16) ? job_desc->cpus_per_task
                                                                 : det->cpus_per_task);
  v.features = job_desc->features ? job_desc->features : det->features;
  v.req_nodes = job_desc->req_nodes ? job_desc->req_nodes : det->req_nodes;
  v.exc_nodes = job_desc->exc_nodes ? job_desc->exc_nodes : det->exc_nodes;
  v.partition = job_desc->partition ? job_desc->partition : job_ptr->partition;
  v.reservation = job_desc->reservation ? job_desc->reservation : job_ptr->resv_name;
  v.tres_per_job = job_desc->tres_per_job ? job_desc->tres_per_job : job_ptr->tres_per_job;
  v.tres_per_task = job_desc->tres_per_task ? job_desc->tres_per_task : job_ptr->tres_per_task;
  v.spank_env = job_ptr->spank_job_env;
  v.spank_env_cnt = job_ptr->spank_job_env_size;
  /* An update that sets the features to "" clears them: the decision then starts from none. */
  if (job_desc->features && !job_desc->features[0]) v.features = NULL;
  rc = _decide_and_apply(&v, job_desc, submit_uid, "an update of a pending job", &msg);
  xfree(msg); /* Slurm 22.05's job_modify has no message for the user: the log has it */
  return rc;
}
