/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_submit/rail's Slurm-version differences, Slurm 24.11 (and 25.11): the hostlist and list
 * iterator handle types, node_name2bitmap's arguments, the job state reason text. js_slurm.c,
 * js_keeper.c and js_features.c include it. */
#ifndef RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_VERSION_H_
#define RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_VERSION_H_

#include "src/common/job_state_reason.h"
#include "src/common/node_features.h" /* node_features_updated */

typedef hostlist_t *rg_hostlist_t;   /* 24.11: hostlist_t is the struct */
typedef list_itr_t *rg_list_itr_t;   /* 24.11: ListIterator is gone */

/* node_name2bitmap without the list of invalid names. */
#define RG_NODE_NAME2BITMAP(names, best_effort, bitmap) \
  node_name2bitmap((names), (best_effort), (bitmap), NULL)

/* The text of a job state reason. */
#define RG_JOB_REASON_STRING(reason) job_state_reason_string(reason)

/* build_feature_list of a job's --constraint (job_scheduler.h; 23.02 added is_reservation). */
#define RG_BUILD_FEATURE_LIST(job_ptr) build_feature_list((job_ptr), false, false)

/* The topology plugin that places jobs by its own evaluation (topology_p_eval_nodes, 24.05
 * on), for rg_js_check_switch_wait. */
#define RG_PLACING_TOPOLOGY_PLUGIN (slurm_conf.topology_plugin)

/* Whether slurmctld reads a topology.yaml beside slurm.conf, which then overrides
 * TopologyPlugin (topology_g_init, 25.05 on; 24.11 reads no such file). */
#define RG_READS_TOPOLOGY_YAML (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0))

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_VERSION_H_ */
