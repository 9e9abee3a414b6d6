// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail's feature keeper, a thread of slurmctld (js_keeper.h). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr(), RTLD_NODELETE, RUSAGE_THREAD */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
#include "plugin/job_submit_rail/js_features.h"
#include "plugin/job_submit_rail/js_keeper.h"
#include "plugin/job_submit_rail/js_parked.h"
#include "plugin/job_submit_rail/js_stats.h"
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
  bool stats;         /* log a line per pass that looked at nodes or jobs */
  int jobs_chunk;     /* job records read per hold (KEEPER_JOBS_CHUNK unless a test says) */
  rg_fix_via_t via;   /* how fixes change Slurm's records (by group unless a test says) */
  int64_t locked_at;  /* when it got its current lock (ns, CLOCK_MONOTONIC) */
  int64_t queued_ns;  /* time spent queued on locks this pass */
  int64_t queued_cpu; /* with stats: the thread's CPU time in those queues (the kernel's work
                       * of its lock waits), which the pass's CPU time leaves out */
  int64_t hold_max;   /* longest hold this pass */
  int64_t hold_cpu;   /* of it, the keeper thread's CPU time (the rest: it waited for a CPU) */
  const char *hold_what; /* which of the keeper's holds it was (a string literal) */
  int64_t locked_cpu; /* the thread's CPU clock when it got its current lock */
  /* With stats: the thread's context switches when it got its current lock, and in the
   * longest hold: involuntary (the kernel gave its CPU to another task: it waited for a
   * CPU) and voluntary (it blocked: a mutex, a page in, I/O). */
  long locked_nivcsw, locked_nvcsw, hold_nivcsw, hold_nvcsw;
  int64_t cpu_max;          /* the most CPU time of one hold this pass */
  int holds, holds_over;    /* holds this pass, and those over 1 ms of CPU */
  const char *cpu_max_what; /* which hold that was */
  int apply_holds;    /* holds of the write locks that changed features this pass */
  int64_t apply_cpu;  /* the CPU time of the holds that changed features this pass */
  int64_t last_cpu;   /* the CPU time of the last hold */
  int apply_max;      /* the most nodes changed in one of them */
  int64_t slow_ns;    /* the node look's slowest KEEPER_CLOCK_EVERY nodes this pass (wall time,
                       * with stats), and the first one's name */
  char slow_node[64];
} keeper_t;

static int64_t _now_ns(void) { return rg_js_clock_ns(CLOCK_MONOTONIC); }

static keeper_t *keeper; /* the running keeper; NULL when none */
static int keeper_jobs_wanted; /* rg_keeper_look_at_jobs() asked (atomic) */
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
  int64_t queued_cpu = k->stats ? rg_js_clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
  lock_slurmctld(locks);
  k->locked_at = _now_ns();
  k->locked_cpu = rg_js_clock_ns(CLOCK_THREAD_CPUTIME_ID);
  if (k->stats) k->queued_cpu += k->locked_cpu - queued_cpu;
  if (k->stats) {
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
      k->locked_nivcsw = ru.ru_nivcsw;
      k->locked_nvcsw = ru.ru_nvcsw;
    }
  }
  k->queued_ns += k->locked_at - queued;
  slurm_mutex_lock(&k->mu);
  stop = k->stop && k->left;
  k->phase = stop ? KEEPER_FREE : KEEPER_LOCKED;
  slurm_mutex_unlock(&k->mu);
  if (stop) unlock_slurmctld(locks);
  return !stop;
}

/* Releases `locks`; `what` names the hold (a string literal) for the stats line. */
static void _keeper_unlock(keeper_t *k, slurmctld_lock_t locks, const char *what) {
  int64_t held = _now_ns() - k->locked_at;
  int64_t cpu = rg_js_clock_ns(CLOCK_THREAD_CPUTIME_ID) - k->locked_cpu;
  long invol = 0, vol = 0; /* this hold's context switches, with stats */
  struct rusage ru;

  if (k->stats && (getrusage(RUSAGE_THREAD, &ru) == 0)) {
    invol = ru.ru_nivcsw - k->locked_nivcsw;
    vol = ru.ru_nvcsw - k->locked_nvcsw;
  }
  unlock_slurmctld(locks);
  if (held > k->hold_max) {
    k->hold_max = held;
    k->hold_cpu = cpu;
    k->hold_what = what;
    k->hold_nivcsw = invol;
    k->hold_nvcsw = vol;
  }
  if (cpu > k->cpu_max) {
    k->cpu_max = cpu;
    k->cpu_max_what = what;
  }
  k->holds++;
  if (cpu > 1000000) k->holds_over++;
  k->last_cpu = cpu;
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
    error(
        "%s cannot pin its own code (%s): slurmctld may crash if the feature keeper thread "
        "wakes after the plugin is unloaded",
        PREFIX, dlerror());
}

/* Nodes looked at per hold of the node read lock, and the time after which a hold ends
 * sooner: 4,096 nodes in one hold kept it 7-14 ms, 512 up to 4.5 ms, 128 up to 3.4 ms while
 * railcheck published every node (each node's features asked of the bridge) on a busy 2-core
 * machine (bench/sched_scale.sh). The clock is read every KEEPER_CLOCK_EVERY nodes. */
#define KEEPER_CHUNK 128
#define KEEPER_HOLD_NS 500000
#define KEEPER_CLOCK_EVERY 8
_Static_assert(KEEPER_CHUNK % KEEPER_CLOCK_EVERY == 0, "a chunk ends at a timed group");

/* A node's share of the health signature: a sum over the nodes whose active list holds the
 * healthy feature's name, so that any change of that set changes the sum (but for 2^-64). */
static uint64_t _node_mix(int index) {
  uint64_t x = ((uint64_t)index + 1) * 0x9E3779B97F4A7C15ULL;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  return x ^ (x >> 29);
}

/* With stats: the nodes from `first` on took `now` - `since` (wall time; the clock the look
 * reads anyway every KEEPER_CLOCK_EVERY nodes: the thread's CPU clock costs a system call of
 * about 3 us here, more than a node's check); keeps the slowest such group of the pass in k. */
static void _keeper_slowest(keeper_t *k, const char *first, int64_t since, int64_t now) {
  if (first && (now - since > k->slow_ns)) {
    k->slow_ns = now - since;
    snprintf(k->slow_node, sizeof(k->slow_node), "%s", first);
  }
}

/* One chunk of the keeper's look at the nodes, from index *next on: which of them need a fix
 * (their bits set in `todo`, sized node_record_count when the look began; *any when one
 * does, or when the table grew past `todo`), adding the nodes whose Extra says railcheck left them
 * in service over the drain budget ("budget":"over", healthcheck/budget.h) to *over. Sets *next
 * past the last node looked at, adds the health signature's shares of the nodes looked at to
 * *sig; returns false when the table is done. Outside `restore` only a node
 * with the feature active can need a fix (it is never given then), so a node whose active
 * list does not even contain the feature's name as text is passed over without asking the
 * bridge. REQUIRES: node read lock. */
static bool _keeper_scan(keeper_t *k, const char *feature, bool restore, bitstr_t *todo, int *next,
                         bool *any, int *over, uint64_t *sig) {
  node_record_t *node_ptr;
  int seen = 0, i = *next;
  int64_t group_at = _now_ns(), until = group_at + KEEPER_HOLD_NS;
  const char *group = NULL; /* with stats: the first node of the group since group_at */

  for (; (node_ptr = next_node(&i)); i++) {
    const char *act = node_ptr->features_act ? node_ptr->features_act : node_ptr->features;
    char *a = NULL, *b = NULL;

    if (seen && !(seen % KEEPER_CLOCK_EVERY)) {
      int64_t now = _now_ns();
      if (k->stats) _keeper_slowest(k, group, group_at, now);
      group_at = now;
      group = NULL;
      if (now > until) {
        *next = i;
        return true;
      }
    }
    if (seen == KEEPER_CHUNK) { /* a multiple of KEEPER_CLOCK_EVERY: its group is timed above */
      *next = i;
      return true;
    }
    if (!group) group = node_ptr->name;
    seen++;
    if (node_ptr->extra && strstr(node_ptr->extra, "\"budget\":\"over\"")) (*over)++;
    if (act && strstr(act, feature))
      *sig += _node_mix(node_ptr->index);
    else if (!restore)
      continue;
    if (rg_js_fix_features(node_ptr->index, node_ptr->name, node_ptr->features,
                           node_ptr->features_act, node_ptr->extra, feature, restore, &a, &b)) {
      *any = true;
      if (node_ptr->index < bit_size(todo)) bit_set(todo, node_ptr->index);
    }
    free(a);
    free(b);
  }
  if (k->stats) _keeper_slowest(k, group, group_at, _now_ns());
  *next = i;
  return false;
}

/* The drain budget's alert in slurmctld's log, once per change of the count. */
static void _keeper_budget_alert(int over, int *logged) {
  if (over == *logged) return;
  if (over > 0)
    error(
        "%s drain budget spent: %d nodes have findings that would take them out of "
        "multi-node jobs and stay in service (railctl report lists them; health.drain_budget "
        "in railguard.yaml)",
        PREFIX, over);
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

/* What an apply changed over its holds of the write locks, for one log line per direction. */
typedef struct {
  rg_hostlist_t given, taken, offered;
  int changed;
} _applied_t;

/* Nodes changed per hold of the write locks. Slurm's update_node() costs 11-20 us per node on
 * a busy 2-core machine at 4,096 nodes and 130 features, nearly all of it in its per-node
 * bookkeeping of the active list (every feature's node map changed once per node); changed
 * by group (RG_FIX_BY_GROUP, js_features.h) the maps change once per hold, and a node costs
 * its fix and its strings (bench/README.md).
 * - A hold that changes available lists changes nodes of one Slurm config record only: a
 *   config record wholly in one hold is changed in place; a larger one is split (Slurm 24.11
 *   and later merge the pieces again within a minute once their lists agree; 22.05 keeps
 *   them). Such holds are the restore's after slurmctld read slurm.conf, where the feature is
 *   not on slurm.conf's Features=.
 * - A hold that changes only active lists (the feature taken from or given to nodes whose
 *   available list has it: every fix after the restore, and the restore where slurm.conf lists
 *   the feature) passes no available list, and leaves config records alone: its nodes may come
 *   from any records.
 * By group either kind takes at most KEEPER_CHUNK nodes; through update_node() (a test's and
 * a benchmark's knob) at most KEEPER_APPLY_CHUNK and KEEPER_ACTIVE_CHUNK (1.0-2.2 ms on CPU). */
#define KEEPER_APPLY_CHUNK 32
#define KEEPER_ACTIVE_CHUNK 16

/* The parked-job walk: job records read per hold of the job read lock (one read of all 2,000
 * waiting jobs held it 0.4 ms on CPU, and up to 29 ms in wall time on a busy 2-core machine,
 * bench/sched_scale.sh), jobs changed per hold of the write lock, how long after a change of
 * the healthy nodes it reads every second, and how often it reads otherwise. */
#define KEEPER_JOBS_CHUNK 512
#define KEEPER_JOBS_APPLY 64
#define KEEPER_JOBS_WATCH_S 60
#define KEEPER_JOBS_EVERY_S 30

/* Records a node a batch changed in the host list of its kind (rg_fix_done_fn). */
static void _keeper_done(void *arg, int fix, const char *name) {
  _applied_t *done = arg;

  hostlist_push_host((fix == RG_JS_FIX_TAKES)    ? done->taken
                     : (fix == RG_JS_FIX_OFFERS) ? done->offered
                                                 : done->given,
                     name);
  done->changed++;
}

/* Applies the fixes of the nodes in `todo` (every node when the table is no longer the size
 * `todo` was made for) from index *next on, asked again under these locks, in one hold: fixes
 * of available lists (nodes of the config record of the first such node, with that record's
 * fixes of active lists only) or of active lists only, as KEEPER_APPLY_CHUNK says, and at most
 * KEEPER_CHUNK nodes asked. A node whose fix is of the other kind ends the hold and is asked
 * again in the next. One change per group of nodes getting the same lists (js_features.h;
 * one call of update_node() per node split Slurm's config records node by node, each split a
 * pass over all of them: 4.2 s under the write locks for 4,096 nodes after a reconfigure).
 * Adds what changed to *done; sets *next past the last node asked; returns false when the
 * table is done. REQUIRES: job, node and partition write locks (the update-node RPC's). */
static bool _keeper_apply(const char *feature, bool restore, rg_fix_via_t via, bitstr_t *todo,
                          int *next, _applied_t *done) {
  node_record_t *node_ptr;
  rg_fix_batch_t *batch = rg_fix_batch_create();
  config_record_t *config = NULL; /* set when the hold changes available lists */
  int fixes = 0, asked = 0, i = *next;
  int most_avail = (via == RG_FIX_BY_GROUP) ? KEEPER_CHUNK : KEEPER_APPLY_CHUNK;
  int most_active = (via == RG_FIX_BY_GROUP) ? KEEPER_CHUNK : KEEPER_ACTIVE_CHUNK;
  bool all = (bit_size(todo) != node_record_count), more = false;

  for (; (node_ptr = next_node(&i)); i++) {
    char *a = NULL, *b = NULL;
    int fix;
    bool avail;

    if (!all && !bit_test(todo, node_ptr->index)) continue;
    if ((asked == KEEPER_CHUNK) || (fixes == (config ? most_avail : most_active))) {
      more = true;
      break;
    }
    fix = rg_js_fix_features(node_ptr->index, node_ptr->name, node_ptr->features,
                             node_ptr->features_act, node_ptr->extra, feature, restore, &a, &b);
    if (!fix) {
      asked++;
      continue;
    }
    avail = strcmp(a, node_ptr->features ? node_ptr->features : "") != 0;
    if (config ? (node_ptr->config_ptr != config) : (avail && fixes)) {
      /* the other kind of hold, or another record: this node opens the next hold */
      free(a);
      free(b);
      more = true;
      break;
    }
    asked++;
    if (avail) config = node_ptr->config_ptr;
    fixes++;
    rg_fix_batch_add(batch, node_ptr->index, a, b, avail, fix);
  }
  *next = i;
  (void)rg_fix_batch_apply(batch, via, _keeper_done, done);
  return more;
}

/* Applies every fix of `todo` (_keeper_apply), taking and releasing the write locks of the
 * update-node RPC for each chunk, and logs one line per direction. Other RPCs and the
 * schedulers run between the chunks: they see a node's features either as they were or as
 * fixed, never half. Returns the count changed, or -1 (nothing logged) when fini() stopped
 * the keeper. */
static int _keeper_apply_all(keeper_t *k, slurmctld_lock_t node_write, const char *feature,
                             bool restore, bitstr_t *todo) {
  _applied_t done = {hostlist_create(NULL), hostlist_create(NULL), hostlist_create(NULL), 0};
  bool more = true, stopped = false;
  int next = 0;

  while (more) {
    int before = done.changed;

    if (!_keeper_lock(k, node_write)) {
      stopped = true;
      break;
    }
    more = _keeper_apply(feature, restore, k->via, todo, &next, &done);
    if (done.changed > before) {
      node_features_updated = true;
      last_node_update = time(NULL);
    }
    _keeper_unlock(k, node_write, "feature change");
    k->apply_cpu += k->last_cpu;
    if (done.changed > before) {
      k->apply_holds++;
      if (done.changed - before > k->apply_max) k->apply_max = done.changed - before;
    }
  }
  if (stopped) { /* a keeper left by fini() does nothing more */
    hostlist_destroy(done.given);
    hostlist_destroy(done.taken);
    hostlist_destroy(done.offered);
    return -1;
  }
  _keeper_log(done.given, feature, restore ? "gave back (slurm.conf was read)" : "gave",
              "from the health railcheck published in their Extra");
  _keeper_log(done.taken, feature, "took", "from the health railcheck published in their Extra");
  _keeper_log(done.offered, feature, "made available (not active)",
              "nodes of the rail topology, so that railcheck changes only their active lists");
  return done.changed;
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
 * its last look, and applies fixes (the update-node RPC's locks, KEEPER_APPLY_CHUNK nodes per
 * hold) only when there are some. Until
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
  time_t health_at = 0;    /* when the last look found the health signature changed */
  uint64_t health_sig = 0; /* the signature of the last look (_node_mix) */
  uint64_t walked_sig = 0; /* the signature when the parked jobs were last read */
  int over_logged = 0; /* the drain budget alert's count last logged */
  bool left;

  do {
    time_t conf_update, now;
    char *feature = NULL;
    bool restore = false, any = false, loaded, looked = false, jobs_looked = false, held = true;
    int changed = 0, released = 0, over = 0;
    int64_t pass_start = _now_ns();
    int64_t pass_cpu = k->stats ? rg_js_clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
    bitstr_t *todo = NULL; /* the nodes the look found to fix */

    k->queued_ns = 0;
    k->queued_cpu = 0;
    k->hold_max = 0;
    k->hold_cpu = 0;
    k->hold_what = "none";
    k->hold_nivcsw = 0;
    k->hold_nvcsw = 0;
    k->cpu_max = 0;
    k->cpu_max_what = "none";
    k->holds = 0;
    k->holds_over = 0;
    k->apply_holds = 0;
    k->apply_cpu = 0;
    k->apply_max = 0;
    k->slow_ns = 0;
    k->slow_node[0] = '\0';

    if (!_keeper_lock(k, conf_read)) break;
    conf_update = slurm_conf.last_update;
    _keeper_unlock(k, conf_read, "config read");
    if (rg_js_reload_if_stale((int64_t)conf_update, _log)) {
      if (!_keeper_lock(k, conf_read)) break;
      (void)rg_js_check_switch_wait(slurm_conf.sched_params, RG_PLACING_TOPOLOGY_PLUGIN, _log);
      _keeper_unlock(k, conf_read, "config read");
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
      uint64_t sig = 0;

      restore = (conf_update != restored_for);
      looked = true;
      todo = bit_alloc(node_record_count);
      while (_keeper_scan(k, feature, restore, todo, &next, &any, &over, &sig)) {
        _keeper_unlock(k, node_read, "node look");
        if (!(held = _keeper_lock(k, node_read))) break; /* fini() stopped the keeper */
      }
      looked_at = now;
      if (held && (sig != health_sig)) {
        health_sig = sig;
        health_at = now;
      }
    }
    if (!held) {
      FREE_NULL_BITMAP(todo);
      free(feature);
      break;
    }
    _keeper_unlock(k, node_read, "node look");
    if (looked) _keeper_budget_alert(over, &over_logged);
    if (any) changed = _keeper_apply_all(k, node_write, feature, restore, todo);
    FREE_NULL_BITMAP(todo);
    if (changed < 0) {
      free(feature);
      break;
    }
    /* Parked jobs (js_parked.h): at most once a second, and only when one may need a step:
     * after a restore or a change of features by the keeper, when job_submit/rail held a job
     * or a pending job was updated, when the healthy nodes changed and for a minute after
     * (Slurm parks jobs in later scheduler passes), and else every KEEPER_JOBS_EVERY_S when
     * a job or node changed. A walk reads KEEPER_JOBS_CHUNK job records per hold of the read
     * locks and changes at most KEEPER_JOBS_APPLY jobs per hold of the write lock. */
    if (loaded && feature && feature[0] && (restore || (now > jobs_at)) &&
        (__atomic_exchange_n(&keeper_jobs_wanted, 0, __ATOMIC_ACQ_REL) || restore || changed ||
         (health_sig != walked_sig) || (now < health_at + KEEPER_JOBS_WATCH_S) ||
         ((now >= jobs_at + KEEPER_JOBS_EVERY_S) &&
          ((last_job_update >= jobs_at) || (last_node_update >= jobs_at))))) {
      rg_parked_t *steps = NULL;
      int pos = 0, n = 0, cap = 0;

      if (!_keeper_lock(k, jobs_read)) {
        free(feature);
        break;
      }
      jobs_at = time(NULL);
      jobs_looked = true;
      walked_sig = health_sig;
      while (rg_parked_collect(feature, restore, &pos, k->jobs_chunk, &steps, &n, &cap)) {
        _keeper_unlock(k, jobs_read, "parked-job look");
        if (!(held = _keeper_lock(k, jobs_read))) break; /* fini() stopped the keeper */
      }
      if (held) _keeper_unlock(k, jobs_read, "parked-job look");
      for (int i = 0; held && (i < n); i += KEEPER_JOBS_APPLY) {
        if (!(held = _keeper_lock(k, jobs_write))) break;
        released += rg_parked_apply(steps + i, MIN(KEEPER_JOBS_APPLY, n - i));
        _keeper_unlock(k, jobs_write, "parked-job change");
      }
      if (held && (n > 0)) schedule_job_save();
      rg_parked_free(steps, n);
      if (!held) {
        free(feature);
        break;
      }
    }
    if (k->stats && (looked || jobs_looked))
      info(
          "%s keeper pass %.2f ms, longest lock %.2f ms (%.2f ms on CPU, %s), queued %.2f ms: "
          "nodes %s, parked jobs %s, %d features changed, %d jobs released; %d holds changed "
          "features, at most %d nodes in one; slowest nodes from %s, %.3f ms; longest lock "
          "switched %ld involuntary %ld voluntary; most CPU in one hold %.2f ms (%s); %d holds, "
          "%d over 1 ms on CPU; the pass on CPU %.2f ms; feature changes on CPU %.2f ms; "
          "queued on CPU %.2f ms",
          PREFIX, (double)(_now_ns() - pass_start - k->queued_ns) / 1e6, (double)k->hold_max / 1e6,
          (double)k->hold_cpu / 1e6, k->hold_what, (double)k->queued_ns / 1e6,
          looked ? "looked at" : "unchanged", jobs_looked ? "looked at" : "not", changed, released,
          k->apply_holds, k->apply_max, k->slow_node[0] ? k->slow_node : "-",
          (double)k->slow_ns / 1e6, k->hold_nivcsw, k->hold_nvcsw, (double)k->cpu_max / 1e6,
          k->cpu_max_what, k->holds, k->holds_over,
          (double)(rg_js_clock_ns(CLOCK_THREAD_CPUTIME_ID) - pass_cpu - k->queued_cpu) / 1e6,
          (double)k->apply_cpu / 1e6, (double)k->queued_cpu / 1e6);
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
  const char *via;

  if (!k) {
    error("%s cannot start the feature keeper thread: out of memory", PREFIX);
    return;
  }
  slurm_mutex_init(&k->mu);
  slurm_cond_init(&k->cv, NULL);
  k->phase = KEEPER_FREE;
  /* A benchmark's knob (bench/sched_scale.sh), read once here, outside any lock. */
  k->stats = getenv("RAILGUARD_KEEPER_STATS") != NULL;
  /* A test's knob (day_one_itest.sh): fewer job records per part of a walk. */
  k->jobs_chunk = rg_js_env_count("RAILGUARD_KEEPER_JOBS_CHUNK", KEEPER_JOBS_CHUNK);
  /* A test's and a benchmark's knob: fixes through update_node(), as before by group. */
  via = getenv("RAILGUARD_KEEPER_VIA_UPDATE_NODE");
  k->via = (via && via[0]) ? RG_FIX_VIA_UPDATE_NODE : RG_FIX_BY_GROUP;
  if (k->via == RG_FIX_VIA_UPDATE_NODE)
    info("%s RAILGUARD_KEEPER_VIA_UPDATE_NODE: the keeper changes features with update_node()",
         PREFIX);
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
  info(
      "%s stopped while the feature keeper thread was queued on a slurmctld lock (a "
      "reconfigure holds them): it ends by itself once it gets the lock, doing nothing",
      PREFIX);
}

extern void rg_keeper_look_at_jobs(void) {
  __atomic_store_n(&keeper_jobs_wanted, 1, __ATOMIC_RELEASE);
}
