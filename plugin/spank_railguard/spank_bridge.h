// SPDX-License-Identifier: GPL-2.0-or-later
/* C ABI between spank_railguard.c (the SPANK entry points) and the C++ that does the work
 * (spank_bridge.cc). Uses only the public <slurm/spank.h>. Every function catches all
 * exceptions and returns -1 on an internal error; none throws. */
#ifndef RAILGUARD_PLUGIN_SPANK_RAILGUARD_SPANK_BRIDGE_H_
#define RAILGUARD_PLUGIN_SPANK_RAILGUARD_SPANK_BRIDGE_H_

#include <slurm/spank.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the plugstack.conf arguments (config=PATH, cache=DIR|none); registers
 * --rail-placement and --rail-max-sus in sbatch, salloc, srun and slurmstepd; in slurmstepd,
 * once per step, reads every node's NCCL_IB_HCA from the cache file of the config
 * (plugin/core/nccl_cache.h) while it is fresh, else loads the config and the rail topology it
 * names and rewrites that file. Problems are logged; the step goes on. */
int rg_spank_init(spank_t sp, int ac, char **av);

/* In sbatch, salloc and srun: passes the options given to the job's control environment
 * (SPANK_RAIL_PLACEMENT, SPANK_RAIL_MAX_SUS) for job_submit/rail. */
int rg_spank_init_post_opt(spank_t sp, int ac, char **av);

/* In each task (slurmstepd): sets NCCL_IB_HCA (and RAILGUARD_NCCL_IB_HCA, the same value)
 * to this node's rail NICs in rail order, unless the job's environment has an NCCL_IB_HCA
 * of its own (one that differs from RAILGUARD_NCCL_IB_HCA). From memory: no file I/O. */
int rg_spank_task_init(spank_t sp, int ac, char **av);

/* Releases what init loaded. */
int rg_spank_exit(spank_t sp, int ac, char **av);

#ifdef __cplusplus
}
#endif

#endif /* RAILGUARD_PLUGIN_SPANK_RAILGUARD_SPANK_BRIDGE_H_ */
