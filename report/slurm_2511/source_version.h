// SPDX-License-Identifier: GPL-2.0-or-later
// What slurm_source.cc reads differently per Slurm release: 25.11.
#pragma once

#include <slurm/slurm.h>

#include "../slurm_2411/node_flags.h"  // kReleaseNodeFlags: as in 24.11

namespace railguard::report {

// The job's id: 25.11 carries it in step_id; job_id is only kept filled for old callers.
inline uint32_t SlurmJobId(const slurm_job_info_t& job) { return job.step_id.job_id; }

// Frees what slurm_load_ctl_conf returned (slurm_free_ctl_conf before 26.05).
inline void FreeCtlConf(slurm_conf_t* conf) { slurm_free_ctl_conf(conf); }

}  // namespace railguard::report
