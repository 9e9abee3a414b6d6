/* SPDX-License-Identifier: GPL-2.0-or-later */
/* job_submit/rail's Slurm-version differences, Slurm 22.05: the hostlist and list iterator
 * handle types and node_name2bitmap's arguments. js_slurm.c, js_keeper.c and js_features.c
 * include it. */
#ifndef RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_VERSION_H_
#define RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_VERSION_H_

typedef hostlist_t rg_hostlist_t;   /* 22.05: hostlist_t is already a pointer */
typedef ListIterator rg_list_itr_t; /* 22.05: ListIterator is already a pointer */

/* node_name2bitmap without the list of invalid names (24.11 added it). */
#define RG_NODE_NAME2BITMAP(names, best_effort, bitmap) \
  node_name2bitmap((names), (best_effort), (bitmap))

/* The text of a job state reason. */
#define RG_JOB_REASON_STRING(reason) job_reason_string(reason)

/* build_feature_list of a job's --constraint (job_scheduler.h; 23.02 added is_reservation). */
#define RG_BUILD_FEATURE_LIST(job_ptr) build_feature_list((job_ptr), false)

/* The topology plugin that places jobs by its own evaluation, for rg_js_check_switch_wait:
 * none on 22.05 (topology plugins only build the switch table; --switches places). */
#define RG_PLACING_TOPOLOGY_PLUGIN NULL

/* Whether slurmctld reads a topology.yaml (25.05 on): not 22.05. */
#define RG_READS_TOPOLOGY_YAML 0

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_VERSION_H_ */
