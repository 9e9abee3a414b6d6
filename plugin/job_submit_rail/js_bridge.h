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

/* What the job asks for; 0 and NULL mean "not given". Strings are borrowed. */
typedef struct {
  uint32_t min_nodes;
  int has_switches;     /* --switches given */
  int has_nodelist;     /* --nodelist given */
  const char *features; /* --constraint */
  uint32_t num_tasks;
  uint32_t ntasks_per_node;
  const char *tres_per_job; /* "gres:gpu:16" */
  const char *tres_per_task;
  const char *const *spank_env; /* "NAME=value" */
  uint32_t spank_env_cnt;
  /* Answers whether some node has feature `name` (1) or none (0). */
  int (*feature_defined)(const char *name);
  const char *sched_params; /* SchedulerParameters, for max_switch_wait */
  int64_t conf_update;      /* slurm_conf.last_update: a change means reconfigure */
} rg_js_facts_t;

enum { RG_JS_BAD_OPTION = 1, RG_JS_TOO_MANY_SUS = 2 };

/* What to do; strings are malloc'd and released by rg_js_decision_free. */
typedef struct {
  int refuse;       /* 0 = accept; RG_JS_BAD_OPTION or
                     * RG_JS_TOO_MANY_SUS = reject, message
                     * says why */
  int set_switches; /* set req_switch and wait4switch */
  uint32_t req_switch;
  uint32_t wait4switch;
  char *features; /* new --constraint, or NULL to keep it */
  char *message;  /* one line for the user, or NULL */
} rg_js_decision_t;

/* Loads railguard.yaml at `conf_path` and its rail topology, for decisions from now on;
 * `conf_update` is the slurm_conf.last_update it belongs to. Returns RG_LOAD_OK (0) when
 * loaded, RG_LOAD_KEPT (1) when loading failed but an earlier setup stays in force,
 * RG_LOAD_NONE (-1) when there is none. */
int rg_js_load(const char *conf_path, int64_t conf_update, rg_log_fn log);

/* Decides for one job, from memory. When facts->conf_update differs from the last load,
 * the setup is reloaded first (once per reconfiguration; a failure keeps the last good one).
 * Returns 0 with *out filled, or -1 (with *out zeroed) when nothing is loaded or on an
 * internal error: the job then goes through unchanged. */
int rg_js_decide(const rg_js_facts_t *facts, rg_log_fn log, rg_js_decision_t *out);

/* Releases the strings of a decision and zeroes it. */
void rg_js_decision_free(rg_js_decision_t *decision);

/* Forgets the loaded setup. */
void rg_js_fini(void);

#ifdef __cplusplus
}
#endif

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_BRIDGE_H_ */
