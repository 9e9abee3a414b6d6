// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's feature keeper, a thread of slurmctld (js_keeper.h). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr(), RTLD_NODELETE */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/state_save.h"

#include "plugin/common/slurm_log.h"
#include "plugin/job_submit_rail/js_bridge.h"
#include "plugin/job_submit_rail/js_keeper.h"
#include "js_version.h" /* per Slurm version: slurm_2205/, slurm_2411/ */
// clang-format on

#define PREFIX "railguard: job_submit/rail:"

static void _log(int level, const char *msg) { rg_slurm_log(PREFIX, level, msg); }

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
  /* The keeper thread's own timings of the current pass (RAILGUARD_KEEPER_STATS). */
  bool stats;        /* log a line per pass that looked at nodes or jobs */
  int64_t locked_at; /* when it got its current lock (ns, CLOCK_MONOTONIC) */
  int64_t queued_ns; /* time spent queued on locks this pass */
  int64_t hold_max;  /* longest hold this pass */
  int64_t hold_cpu;  /* of it, the keeper thread's CPU time (the rest: it waited for a CPU) */
  int64_t locked_cpu; /* the thread's CPU clock when it got its current lock */
} keeper_t;

static int64_t _clock_ns(clockid_t clock) {
  struct timespec ts;

  clock_gettime(clock, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t _now_ns(void) { return _clock_ns(CLOCK_MONOTONIC); }

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
  int64_t queued = _now_ns();
  lock_slurmctld(locks);
  k->locked_at = _now_ns();
  k->locked_cpu = _clock_ns(CLOCK_THREAD_CPUTIME_ID);
  k->queued_ns += k->locked_at - queued;
  slurm_mutex_lock(&k->mu);
  stop = k->stop && k->left;
  k->phase = stop ? KEEPER_FREE : KEEPER_LOCKED;
  slurm_mutex_unlock(&k->mu);
  if (stop) unlock_slurmctld(locks);
  return !stop;
}

static void _keeper_unlock(keeper_t *k, slurmctld_lock_t locks) {
  int64_t held = _now_ns() - k->locked_at;
  int64_t cpu = _clock_ns(CLOCK_THREAD_CPUTIME_ID) - k->locked_cpu;

  unlock_slurmctld(locks);
  if (held > k->hold_max) {
    k->hold_max = held;
    k->hold_cpu = cpu;
  }
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

/* Nodes looked at per hold of the node read lock, and the time after which a hold ends
 * sooner: 4,096 nodes in one hold kept it 7-14 ms, 512 up to 4.5 ms, 128 up to 3.4 ms while
 * railcheck published every node (each node's features asked of the bridge) on a busy 2-core
 * machine (bench/sched_scale.sh). The clock is read every KEEPER_CLOCK_EVERY nodes. */
#define KEEPER_CHUNK 128
#define KEEPER_HOLD_NS 500000
#define KEEPER_CLOCK_EVERY 8

/* One chunk of the keeper's look at the nodes, from index *next on: which of them need a fix
 * (their bits set in `todo`, sized node_record_count when the look began; *any when one
 * does, or when the table grew past `todo`), adding the nodes whose Extra says railcheck left them in service over
 * the drain budget ("budget":"over", healthcheck/budget.h) to *over. Sets *next past the
 * last node looked at; returns false when the table is done. Outside `restore` only a node
 * with the feature active can need a fix (it is never given then), so a node whose active
 * list does not even contain the feature's name as text is passed over without asking the
 * bridge. REQUIRES: node read lock. */
static bool _keeper_scan(const char *feature, bool restore, bitstr_t *todo, int *next, bool *any,
                         int *over) {
  node_record_t *node_ptr;
  int seen = 0, i = *next;
  int64_t until = _now_ns() + KEEPER_HOLD_NS;

  for (; (node_ptr = next_node(&i)); i++) {
    const char *act = node_ptr->features_act ? node_ptr->features_act : node_ptr->features;
    char *a = NULL, *b = NULL;

    if ((seen == KEEPER_CHUNK) ||
        (seen && !(seen % KEEPER_CLOCK_EVERY) && (_now_ns() > until))) {
      *next = i;
      return true;
    }
    seen++;
    if (node_ptr->extra && strstr(node_ptr->extra, "\"budget\":\"over\"")) (*over)++;
    if (!restore && (!act || !strstr(act, feature))) continue;
    if (rg_js_fix_features(node_ptr->name, node_ptr->features, node_ptr->features_act,
                           node_ptr->extra, feature, restore, &a, &b)) {
      *any = true;
      if (node_ptr->index < bit_size(todo)) bit_set(todo, node_ptr->index);
    }
    free(a);
    free(b);
  }
  *next = i;
  return false;
}

/* The drain budget's alert in slurmctld's log, once per change of the count. */
static void _keeper_budget_alert(int over, int *logged) {
  if (over == *logged) return;
  if (over > 0)
    error("%s drain budget spent: %d nodes have findings that would take them out of "
          "multi-node jobs and stay in service (railctl report lists them; health.drain_budget "
          "in railguard.yaml)", PREFIX, over);
  else if (*logged > 0)
    info("%s drain budget: no node waits over it any more", PREFIX);
  *logged = over;
}

/* Logs one line for the nodes of `hl` (if any) and destroys it. */
static void _keeper_log(rg_hostlist_t hl, const char *feature, const char *what, const char *why) {
  if (hostlist_count(hl) > 0) {
    char *names = hostlist_ranged_string_xmalloc(hl);
    info("%s %s %s on %d nodes (%s): %s", PREFIX, what, feature, hostlist_count(hl), names, why);
    xfree(names);
  }
  hostlist_destroy(hl);
}

/* One group of fixes: the nodes whose features all change to the same two lists. */
typedef struct {
  char *features, *features_act; /* malloc'd by the bridge */
  int fix;                       /* RG_JS_FIX_GIVES, RG_JS_FIX_TAKES or RG_JS_FIX_OFFERS */
  rg_hostlist_t nodes;
} _fix_group_t;

/* Applies the fixes of the nodes in `todo` (every node when the table is no longer the size
 * `todo` was made for), asked again under these locks, with Slurm's update_node(), as
 * `scontrol update node` would, one call per
 * group of nodes getting the same lists (one call per node split Slurm's config records node
 * by node, each split a pass over all of them: 4.2 s under the write locks for 4,096 nodes
 * after a reconfigure), and logs one line per direction. Returns the count. REQUIRES: job,
 * node and partition write locks (those of the update-node RPC). */
static int _keeper_apply(const char *feature, bool restore, bitstr_t *todo) {
  node_record_t *node_ptr;
  rg_hostlist_t given = hostlist_create(NULL), taken = hostlist_create(NULL);
  rg_hostlist_t offered = hostlist_create(NULL);
  _fix_group_t *groups = NULL;
  int n_groups = 0, cap = 0, changed = 0;
  bool all = (bit_size(todo) != node_record_count);

  for (int i = 0; (node_ptr = next_node(&i)); i++) {
    char *a = NULL, *b = NULL;
    int g, fix;

    if (!all && !bit_test(todo, node_ptr->index)) continue;
    fix = rg_js_fix_features(node_ptr->name, node_ptr->features, node_ptr->features_act,
                                    node_ptr->extra, feature, restore, &a, &b);

    if (!fix) continue;
    for (g = 0; g < n_groups; g++)
      if (!strcmp(groups[g].features, a) && !strcmp(groups[g].features_act, b)) break;
    if (g == n_groups) {
      if (n_groups == cap) {
        cap = cap ? 2 * cap : 16;
        xrecalloc(groups, cap, sizeof(*groups));
      }
      groups[g].features = a;
      groups[g].features_act = b;
      groups[g].fix = fix;
      groups[g].nodes = hostlist_create(NULL);
      n_groups++;
    } else {
      free(a);
      free(b);
    }
    hostlist_push_host(groups[g].nodes, node_ptr->name);
  }
  for (int g = 0; g < n_groups; g++) {
    update_node_msg_t msg;
    int count = hostlist_count(groups[g].nodes);

    memset(&msg, 0, sizeof(msg));
    msg.node_state = NO_VAL;
    msg.weight = NO_VAL;
    msg.node_names = hostlist_ranged_string_xmalloc(groups[g].nodes);
    msg.features = xstrdup(groups[g].features);
    msg.features_act = xstrdup(groups[g].features_act);
    if (update_node(&msg, slurm_conf.slurm_user_id) == SLURM_SUCCESS) {
      rg_hostlist_t into = (groups[g].fix == RG_JS_FIX_TAKES)    ? taken
                           : (groups[g].fix == RG_JS_FIX_OFFERS) ? offered
                                                                 : given;
      char *name;
      while ((name = hostlist_shift(groups[g].nodes))) {
        hostlist_push_host(into, name);
        free(name);
      }
      changed += count;
    } else {
      error("%s %s: could not set features to %s", PREFIX, msg.node_names, groups[g].features_act);
    }
    xfree(msg.node_names);
    xfree(msg.features);
    xfree(msg.features_act);
    hostlist_destroy(groups[g].nodes);
    free(groups[g].features);
    free(groups[g].features_act);
  }
  xfree(groups);
  _keeper_log(given, feature, restore ? "gave back (slurm.conf was read)" : "gave",
              "from the health railcheck published in their Extra");
  _keeper_log(taken, feature, "took", "from the health railcheck published in their Extra");
  _keeper_log(offered, feature, "made available (not active)",
              "nodes of the rail topology, so that railcheck changes only their active lists");
  return changed;
}

/* ------------------------------------------------------------------ parked jobs */

/* One change to a parked job (plugin/core/held_jobs.h), found under read locks and applied
 * under the job write lock. */
typedef struct {
  uint32_t job_id;
  int step; /* RG_JS_PARKED_* */
  uint32_t healthy;
  char *mark, *reason, *features; /* malloc'd by the bridge */
} _parked_t;

/* The nodes whose active features hold `feature`. REQUIRES: node read lock. */
static bitstr_t *_healthy_bitmap(const char *feature) {
  bitstr_t *healthy = bit_alloc(node_record_count);
  node_record_t *node_ptr;

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

/* The steps for every pending job of priority 0, in *out (xmalloc'd); returns the count.
 * REQUIRES: job, node and partition read locks. */
static int _parked_collect(const char *feature, bool restore, _parked_t **out) {
  bitstr_t *healthy = NULL;
  job_record_t *job_ptr;
  rg_list_itr_t it;
  int n = 0, cap = 0;

  *out = NULL;
  if (!job_list) return 0;
  it = list_iterator_create(job_list);
  while ((job_ptr = list_next(it))) {
    rg_js_parked_t p;
    char *mark = NULL, *reason = NULL, *features = NULL;
    int step;

    if (!IS_JOB_PENDING(job_ptr) || (job_ptr->priority != 0) || !job_ptr->details) continue;
    memset(&p, 0, sizeof(p));
    p.held = (job_ptr->state_reason == WAIT_HELD) || (job_ptr->state_reason == WAIT_HELD_USER);
    p.bad_constraints = (job_ptr->state_reason == FAIL_BAD_CONSTRAINTS);
    if (!p.held && !p.bad_constraints) continue;
    if (!healthy) healthy = _healthy_bitmap(feature);
    p.admin_comment = job_ptr->admin_comment;
    p.state_desc = job_ptr->state_desc;
    p.features = job_ptr->details->features;
    p.min_nodes = job_ptr->details->min_nodes;
    p.healthy = _job_healthy(job_ptr, healthy);
    step = rg_js_judge_parked(&p, feature, restore, &mark, &reason, &features);
    if (step == RG_JS_PARKED_LEAVE) {
      free(mark);
      free(reason);
      free(features);
      continue;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      xrecalloc(*out, cap, sizeof(**out));
    }
    (*out)[n].job_id = job_ptr->job_id;
    (*out)[n].step = step;
    (*out)[n].healthy = p.healthy;
    (*out)[n].mark = mark;
    (*out)[n].reason = reason;
    (*out)[n].features = features;
    n++;
  }
  list_iterator_destroy(it);
  FREE_NULL_BITMAP(healthy);
  return n;
}

/* Releases a job's hold as `scontrol release` does (job_mgr.c, _release_job_rec) and drops
 * railguard's mark from its AdminComment. REQUIRES: job write lock. */
static void _parked_release(job_record_t *job_ptr, time_t now) {
  char *rest = rg_js_without_hold_mark(job_ptr->admin_comment);

  if (job_ptr->details && (job_ptr->details->begin_time < now))
    job_ptr->details->begin_time = 0;
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
static int _parked_apply(_parked_t *steps, int n) {
  time_t now = time(NULL);
  int released = 0;

  for (int i = 0; i < n; i++) {
    job_record_t *job_ptr = find_job_record(steps[i].job_id);

    if (!job_ptr || !IS_JOB_PENDING(job_ptr) || (job_ptr->priority != 0)) continue;
    switch (steps[i].step) {
      case RG_JS_PARKED_RELEASE:
        /* Held while no node had the feature: first the constraint it was accepted without. */
        if (steps[i].features && !_parked_set_features(job_ptr, steps[i].features)) {
          error("%s %pJ stays held: Slurm does not accept the constraint %s", PREFIX, job_ptr,
                steps[i].features);
          break;
        }
        if (steps[i].features)
          info("%s %pJ: constraint set to %s (held while no node had the feature)", PREFIX,
               job_ptr, steps[i].features);
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

static void _parked_free(_parked_t *steps, int n) {
  for (int i = 0; i < n; i++) {
    free(steps[i].mark);
    free(steps[i].reason);
    free(steps[i].features);
  }
  xfree(steps);
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
 * when it changed (no lock held), then looks at the nodes (node read lock, KEEPER_CHUNK nodes
 * per hold) when slurm.conf was reread, or at most once a second when a node changed since
 * its last look, and applies fixes (the update-node RPC's locks) only when there are some. Until
 * its first look at a loaded node table it naps 10 ms: at a start it is then queued on the lock
 * read_slurm_conf holds and looks before slurmctld serves RPCs; later it naps 100 ms. */
static void *_keeper(void *arg) {
  keeper_t *k = arg;
  /* By field name: 26.05 adds select_node, which none of these takes (NO_LOCK). */
  slurmctld_lock_t conf_read = {.conf = READ_LOCK};
  slurmctld_lock_t node_read = {.node = READ_LOCK};
  /* as update_node's RPC takes them (proc_req.c, _slurm_rpc_update_node) */
  slurmctld_lock_t node_write = {
      .job = WRITE_LOCK, .node = WRITE_LOCK, .part = WRITE_LOCK, .fed = READ_LOCK};
  slurmctld_lock_t jobs_read = {.job = READ_LOCK, .node = READ_LOCK, .part = READ_LOCK};
  /* releasing a hold changes only job records (job_mgr.c, _release_job_rec) */
  slurmctld_lock_t jobs_write = {
      .conf = READ_LOCK, .job = WRITE_LOCK, .node = READ_LOCK, .part = READ_LOCK, .fed = READ_LOCK};
  time_t restored_for = 0, looked_at = 0, jobs_at = 0;
  int over_logged = 0; /* the drain budget alert's count last logged */
  bool left;

  do {
    time_t conf_update, now;
    char *feature = NULL;
    bool restore = false, any = false, loaded, looked = false, jobs_looked = false, held = true;
    int changed = 0, released = 0, over = 0;
    int64_t pass_start = _now_ns();
    bitstr_t *todo = NULL; /* the nodes the look found to fix */

    k->queued_ns = 0;
    k->hold_max = 0;
    k->hold_cpu = 0;

    if (!_keeper_lock(k, conf_read)) break;
    conf_update = slurm_conf.last_update;
    _keeper_unlock(k, conf_read);
    if (rg_js_reload_if_stale((int64_t)conf_update, _log)) {
      if (!_keeper_lock(k, conf_read)) break;
      (void)rg_js_check_switch_wait(slurm_conf.sched_params, RG_PLACING_TOPOLOGY_PLUGIN, _log);
      _keeper_unlock(k, conf_read);
    }

    feature = rg_js_healthy_feature();
    if (!_keeper_lock(k, node_read)) {
      free(feature);
      break;
    }
    loaded = (node_record_count > 0);
    now = time(NULL);
    /* After a (re)read of slurm.conf at once; else at most once a second, when a node
     * changed (nodes change at every job start and end on a busy cluster). */
    if (loaded && feature && feature[0] &&
        ((conf_update != restored_for) || ((last_node_update >= looked_at) && (now > looked_at)))) {
      int next = 0;

      restore = (conf_update != restored_for);
      looked = true;
      todo = bit_alloc(node_record_count);
      while (_keeper_scan(feature, restore, todo, &next, &any, &over)) {
        _keeper_unlock(k, node_read);
        if (!(held = _keeper_lock(k, node_read))) break; /* fini() stopped the keeper */
      }
      looked_at = now;
    }
    if (!held) {
      FREE_NULL_BITMAP(todo);
      free(feature);
      break;
    }
    _keeper_unlock(k, node_read);
    if (looked) _keeper_budget_alert(over, &over_logged);
    if (any) {
      if (!_keeper_lock(k, node_write)) {
        FREE_NULL_BITMAP(todo);
        free(feature);
        break;
      }
      changed = _keeper_apply(feature, restore, todo);
      if (changed) {
        node_features_updated = true;
        last_node_update = time(NULL);
      }
      _keeper_unlock(k, node_write);
    }
    FREE_NULL_BITMAP(todo);
    /* Parked jobs: at most once a second (a pass reads every job record under the job read
     * lock), when a job or a node changed since the last look; at once after a restore. */
    if (loaded && feature && feature[0] &&
        (restore || (changed && (now > jobs_at)) ||
         ((now > jobs_at) && ((last_job_update >= jobs_at) || (last_node_update >= jobs_at))))) {
      _parked_t *steps = NULL;
      int n;

      if (!_keeper_lock(k, jobs_read)) {
        free(feature);
        break;
      }
      jobs_at = time(NULL);
      jobs_looked = true;
      n = _parked_collect(feature, restore, &steps);
      _keeper_unlock(k, jobs_read);
      if (n > 0) {
        if (!_keeper_lock(k, jobs_write)) {
          _parked_free(steps, n);
          free(feature);
          break;
        }
        released = _parked_apply(steps, n);
        _keeper_unlock(k, jobs_write);
        schedule_job_save();
      }
      _parked_free(steps, n);
    }
    if (k->stats && (looked || jobs_looked))
      info(
          "%s keeper pass %.2f ms, longest lock %.2f ms (%.2f ms on CPU), queued %.2f ms: "
          "nodes %s, parked jobs %s, %d features changed, %d jobs released",
          PREFIX, (double)(_now_ns() - pass_start - k->queued_ns) / 1e6, (double)k->hold_max / 1e6,
          (double)k->hold_cpu / 1e6, (double)k->queued_ns / 1e6, looked ? "looked at" : "unchanged",
          jobs_looked ? "looked at" : "not", changed, released);
    if (loaded) restored_for = conf_update;
    if (changed) schedule_node_save();
    if (changed || released) queue_job_scheduler();
    free(feature);
    if (!loaded) restored_for = 0;
  } while (!_keeper_nap(k, restored_for ? 100 : 10));

  slurm_mutex_lock(&k->mu);
  left = k->left;
  slurm_mutex_unlock(&k->mu);
  if (left) _keeper_free(k); /* fini() is gone: nothing of the plugin's state is touched */
  return NULL;
}

extern void rg_keeper_start(void) {
  keeper_t *k = calloc(1, sizeof(*k));

  if (!k) {
    error("%s cannot start the feature keeper thread: out of memory", PREFIX);
    return;
  }
  slurm_mutex_init(&k->mu);
  slurm_cond_init(&k->cv, NULL);
  k->phase = KEEPER_FREE;
  /* A benchmark's knob (bench/sched_scale.sh), read once here, outside any lock. */
  k->stats = getenv("RAILGUARD_KEEPER_STATS") != NULL;
  if (pthread_create(&keeper_thread, NULL, _keeper, k) != 0) {
    error("%s cannot start the feature keeper thread: %m", PREFIX);
    _keeper_free(k);
    return;
  }
  keeper = k;
}

extern void rg_keeper_stop(void) {
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

