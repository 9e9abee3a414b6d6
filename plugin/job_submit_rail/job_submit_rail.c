// SPDX-License-Identifier: GPL-2.0-or-later
/* job_submit/rail: job-aware scalable-unit placement at submission (--switches bound sized
 * to the job, healthy nodes for multi-node jobs), explained to the user in one line.
 * This file holds only the symbols Slurm looks up; each routes to js_slurm.c. */

#include <stdint.h>

#include "plugin/job_submit_rail/js_slurm.h"
#include "slurm/slurm.h"

const char plugin_name[] = "railguard rail placement job_submit plugin";
const char plugin_type[] = "job_submit/rail";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void) { return rail_job_submit_init(); }

extern int fini(void) { return rail_job_submit_fini(); }

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg) {
  return rail_job_submit(job_desc, submit_uid, err_msg);
}

/* Slurm 22.05 calls it as job_modify(job_desc, job_ptr, submit_uid); job_ptr stays opaque
 * here so that this file needs no slurmctld header. */
extern int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid) {
  return rail_job_modify(job_desc, job_ptr, submit_uid);
}
