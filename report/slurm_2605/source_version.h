// SPDX-License-Identifier: GPL-2.0-or-later
// What slurm_source.cc reads differently per Slurm release: 26.05 (as 25.11, and 26.05 renamed
// slurm_free_ctl_conf to slurm_free_conf).
#pragma once

#include <slurm/slurm.h>

#include "../slurm_2411/node_flags.h"  // kReleaseNodeFlags: as in 24.11

namespace railguard::report {

// The job's id: carried in step_id since 25.11.
inline uint32_t SlurmJobId(const slurm_job_info_t& job) { return job.step_id.job_id; }

// Frees what slurm_load_ctl_conf returned.
inline void FreeCtlConf(slurm_conf_t* conf) { slurm_free_conf(conf); }

}  // namespace railguard::report
