// SPDX-License-Identifier: GPL-2.0-or-later
// What slurm_source.cc reads differently per Slurm release: 24.11 (and 25.05).
#pragma once

#include <slurm/slurm.h>

#include "node_flags.h"  // kReleaseNodeFlags: BLOCKED

namespace railguard::report {

// The job's id.
inline uint32_t SlurmJobId(const slurm_job_info_t& job) { return job.job_id; }

// Frees what slurm_load_ctl_conf returned (slurm_free_ctl_conf before 26.05).
inline void FreeCtlConf(slurm_conf_t* conf) { slurm_free_ctl_conf(conf); }

}  // namespace railguard::report
