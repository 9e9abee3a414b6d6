// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail against Slurm's internals: one function per plugin entry point
 * (job_submit_rail.c routes each entry point here). */
#ifndef RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_SLURM_H_
#define RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_SLURM_H_

#include <stdbool.h>
#include <stdint.h>

#include "slurm/slurm.h"

/* Loads railguard.yaml (found by the rule of config/locate.h:
 * beside $SLURM_CONF, else beside Slurm's default slurm.conf) and its rail topology. A failure
 * returns SLURM_ERROR, so that slurmctld stops with the problems in its log. */
int rail_job_submit_init(void);

/* Releases the loaded setup. */
int rail_job_submit_fini(void);

/* Applies railguard placement to a job being submitted: sets req_switch/wait4switch and
 * the healthy feature, or refuses the job; the one-line explanation goes to *err_msg (shown
 * to the user by sbatch/salloc/srun). Never fails for internal reasons: the job then goes
 * through unchanged. */
int rail_job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);

/* Whether the topology plugin places a multi-node job by its own evaluation, healthy nodes
 * and one domain (topology/rail on 24.11 and later, the job not `contiguous`): then neither
 * the job's --constraint nor its --switches carry the healthy feature and the domain bound
 * (plugin/core/placement.h, JobFacts::topology_places). */
bool rg_js_topology_places(bool contiguous);

/* Job updates are left alone: placement is decided once, at submission. */
int rail_job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid);

#endif /* RAILGUARD_PLUGIN_JOB_SUBMIT_RAIL_JS_SLURM_H_ */
