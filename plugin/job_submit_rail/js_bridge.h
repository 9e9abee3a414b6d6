// SPDX-License-Identifier: GPL-2.0-or-later
/* C ABI between job_submit/rail's Slurm-facing C code and its C++ core (js_bridge.cc).
 * Every function catches all exceptions; none throws. Calls are serialized by Slurm (its
 * job_submit context lock) and again by the bridge. */
#ifndef RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_BRIDGE_H_
#define RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_BRIDGE_H_

#include <stdint.h>

#include "plugin/common/bridge.h" /* rg_log_fn, RG_LOG_*, RG_LOAD_* */

#ifdef __cplusplus
extern "C" {
#endif

/* What the job asks for, and the nodes it may get; 0 and NULL mean "not given". Strings and
 * arrays are borrowed. */
typedef struct {
  uint32_t min_nodes;
  uint32_t max_nodes;       /* -N min-MAX */
  int has_switches;         /* --switches given */
  uint32_t user_switches;   /* its count */
  uint32_t nodelist_count;  /* nodes named by --nodelist */
  const char *features;     /* --constraint */
  uint32_t num_tasks;
  uint32_t ntasks_per_node;
  uint32_t cpus_per_task;
  const char *tres_per_job; /* "gres:gpu:16" */
  const char *tres_per_task;
  const char *const *spank_env; /* "NAME=value" */
  uint32_t spank_env_cnt;
  const char *partition; /* for messages */
  /* The nodes the job may get: its partitions' nodes, within its reservation, minus
   * --exclude; with each one's active features and CPUs. */
  const char *const *node_names;
  const char *const *node_features;
  const uint32_t *node_cpus;
  /* Each node's place in slurmctld's node table (node_record_t.index), so that its domain
   * is remembered between submissions (plugin/core/fabric_cache.h); may be NULL. */
  const uint32_t *node_index;
  uint32_t node_cnt;
  /* Or, in place of the node arrays (node_cnt 0), the nodes already counted
   * (js_domains.h): per one-hop domain of the topology of `generation`, how many of the
   * job's nodes it holds (su_counts[0..su_count_n)), how many of those have the healthy
   * feature active, and the most CPUs of any of the job's nodes. */
  const uint32_t *su_counts;
  uint32_t su_count_n;
  uint64_t generation;
  uint32_t healthy_count;
  uint32_t max_cpus;
  const char *sched_params; /* SchedulerParameters, for max_switch_wait */
  int may_hold; /* a submission: held, not refused, when too few nodes are healthy */
  int feature_exists; /* some node of the cluster has the healthy feature active now */
  int topology_places; /* the topology plugin keeps the job on healthy nodes in one domain
                        * (plugin/core/placement.h, JobFacts::topology_places) */
} rg_js_facts_t;

enum {
  RG_JS_BAD_OPTION = 1,
  RG_JS_TOO_MANY_SUS = 2,
  RG_JS_BAD_CONSTRAINT = 3,
  RG_JS_TOO_FEW_HEALTHY = 4
};

/* What to do; strings are malloc'd and released by rg_js_decision_free. */
typedef struct {
  int refuse;       /* 0 = accept; else one of RG_JS_*: reject, message says why */
  int set_switches; /* set req_switch and wait4switch */
  uint32_t req_switch;
  uint32_t wait4switch;
  char *features; /* new --constraint, or NULL to keep it */
  char *message;  /* one line for the user, or NULL */
  char *hold_mark; /* hold the job (priority 0) with this mark in its AdminComment (see
                    * rg_js_with_hold_mark), or NULL */
  uint32_t nodes;  /* the job's node count as placement sized it; 0 = unknown */
  int together;    /* --rail-hetjob=together */
} rg_js_decision_t;

/* Loads railguard.yaml at `conf_path` and its rail topology, for decisions from now on;
 * `conf_update` is the slurm_conf.last_update it belongs to. Returns RG_LOAD_OK (0) when
 * loaded, RG_LOAD_KEPT (1) when loading failed but an earlier setup stays in force,
 * RG_LOAD_NONE (-1) when there is none. */
int rg_js_load(const char *conf_path, int64_t conf_update, rg_log_fn log);

/* Decides for one job, from memory (never reads a file: reloading is rg_js_reload_if_stale's
 * job, outside Slurm's locks). Returns 0 with *out filled, or -1 (with *out zeroed) when
 * nothing is loaded or on an internal error: the job then goes through unchanged; -2 (with
 * *out zeroed) when `facts` holds counts of another topology than the one in force (it was
 * reloaded since): the caller hands the nodes one by one instead. */
int rg_js_decide(const rg_js_facts_t *facts, rg_log_fn log, rg_js_decision_t *out);

/* Each of the `n` node names' one-hop domain in the topology in force (-1: not on the rails),
 * into domains[0..n), and that setup's generation into *generation (it changes at every load).
 * Returns the topology's domain count, or -1 when nothing is loaded. */
int rg_js_node_domains(const char *const *names, uint32_t n, int32_t *domains,
                       uint64_t *generation);

/* The generation of the setup in force (0: none loaded). */
uint64_t rg_js_generation(void);

/* When `conf_update` differs from the one loaded (slurm.conf was read: a start or a
 * reconfigure), reloads the setup if railguard.yaml or the topology it names was written or
 * replaced since it was loaded (or its last load failed), else keeps it and logs so; a
 * failure keeps the last good setup. Reads file metadata and maybe files: call it without
 * holding Slurm's locks. Returns 1 when slurm.conf was read, 0 when not. */
int rg_js_reload_if_stale(int64_t conf_update, rg_log_fn log);

/* Logs what plugin/core/placement.h's SwitchWaitMessage says when the loaded setup's default
 * mode is strict and SchedulerParameters' max_switch_wait is below a year: an error with
 * Slurm's topology plugins, a warning with `topology_plugin` topology/rail. Returns 1 when
 * it logged, else 0. */
int rg_js_check_switch_wait(const char *sched_params, const char *topology_plugin, rg_log_fn log);

enum { RG_JS_FIX_GIVES = 1, RG_JS_FIX_TAKES = 2, RG_JS_FIX_OFFERS = 3 };

/* The keeper's fix of node `name`, the node table's entry `index` (plugin/core/feature_keeper.h,
 * FixFeatures; the health of its Extra remembered per index): RG_JS_FIX_GIVES or
 * RG_JS_FIX_TAKES (the feature, on its active list) or RG_JS_FIX_OFFERS (only on its
 * available list) with *new_features and *new_features_act malloc'd when the node's features
 * must change, else 0 with both NULL (allocating nothing). `restore`: the first pass after
 * slurmctld (re)read slurm.conf (only then is the node looked up in the loaded rail topology). */
int rg_js_fix_features(int index, const char *name, const char *features, const char *features_act,
                       const char *extra, const char *feature, int restore, char **new_features,
                       char **new_features_act);

/* The healthy feature of the loaded setup as a malloc'd string ("" = health not required),
 * or NULL when nothing is loaded. */
char *rg_js_healthy_feature(void);

/* A pending job of priority 0, for rg_js_judge_parked (plugin/core/held_jobs.h). */
typedef struct {
  const char *admin_comment;
  const char *state_desc;
  const char *features;
  int held;            /* WAIT_HELD or WAIT_HELD_USER */
  int bad_constraints; /* FAIL_BAD_CONSTRAINTS */
  uint32_t min_nodes;
  uint32_t healthy; /* healthy nodes of its partition(s), minus its --exclude */
} rg_js_parked_t;

enum { RG_JS_PARKED_LEAVE = 0, RG_JS_PARKED_NOTE, RG_JS_PARKED_MARK, RG_JS_PARKED_RELEASE };

/* JudgeParkedJob: one of RG_JS_PARKED_*, with *mark (MARK), *reason (NOTE, MARK) and
 * *features (RELEASE of a job held while no node had the feature: the --constraint to set
 * before the release) malloc'd, else NULL. LEAVE on an internal error. */
int rg_js_judge_parked(const rg_js_parked_t *job, const char *feature, int restore,
                       char **mark, char **reason, char **features);

/* `admin_comment` with railguard's hold mark added (WithHoldMark), malloc'd; NULL when out
 * of memory. */
char *rg_js_with_hold_mark(const char *admin_comment, const char *mark);

/* `admin_comment` without railguard's hold mark (WithoutHoldMark), malloc'd; NULL when that
 * leaves nothing (or out of memory). */
char *rg_js_without_hold_mark(const char *admin_comment);

/* Whether the comma list `features` (a node's active features) holds `feature`. */
int rg_js_has_feature(const char *features, const char *feature);

/* Whether every item of the comma list `act` is one of `avail` (NULL: empty), as update_node()
 * requires of a node's active features (base/names.h FeaturesWithin). */
int rg_js_features_within(const char *act, const char *avail);

/* One node a hetjob component may get, for rg_js_together_su. */
typedef struct {
  const char *name;
  int healthy; /* carries the healthy feature */
  int idle;    /* idle, neither drained nor down */
} rg_js_scope_node_t;

/* The one-hop domain (the SU itself when it has one leaf per rail) for all `total` nodes of a
 * hetjob kept together (plugin/core/hetjob.h, ChooseTogetherSu): returns 1 with *su_name =
 * the domain's name malloc'd, *healthy and *idle set and inside[i] = 1 for the scope nodes in
 * that domain; 0 when no domain has `total` healthy nodes (*healthy = the most any has), -1
 * when nothing is loaded or on an internal error. */
int rg_js_together_su(const rg_js_scope_node_t *scope, uint32_t count, uint32_t total,
                      char **su_name, uint32_t *healthy, uint32_t *idle, uint8_t *inside);

/* Releases the strings of a decision and zeroes it. */
void rg_js_decision_free(rg_js_decision_t *decision);

/* Forgets the loaded setup. */
void rg_js_fini(void);

#ifdef __cplusplus
}
#endif

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_BRIDGE_H_ */
