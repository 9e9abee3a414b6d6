// SPDX-License-Identifier: GPL-2.0-or-later
/* railguard SPANK plugin: --rail-placement and --rail-max-sus for sbatch, salloc and srun
 * (checked at the command line, passed to job_submit/rail), and NCCL_IB_HCA set to the
 * node's rail NICs in rail order in every task. plugstack.conf:
 *   optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_railguard.so config=/etc/slurm/railguard.yaml
 * This file holds only the symbols Slurm looks up; each routes to spank_bridge.cc. */

#include <slurm/spank.h>

#include "plugin/spank_railguard/spank_bridge.h"

SPANK_PLUGIN(railguard, 1)

int slurm_spank_init(spank_t sp, int ac, char **av) { return rg_spank_init(sp, ac, av); }

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  return rg_spank_init_post_opt(sp, ac, av);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) { return rg_spank_task_init(sp, ac, av); }

int slurm_spank_exit(spank_t sp, int ac, char **av) { return rg_spank_exit(sp, ac, av); }
