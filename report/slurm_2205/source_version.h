// SPDX-License-Identifier: GPL-2.0-or-later
// What slurm_source.cc reads differently per Slurm release: 22.05 (and every release before
// 24.11). Every other field and constant it uses is the same in 22.05, 24.11 and 25.11.
#pragma once

#include <slurm/slurm.h>

#include <array>

#include "report/slurm_node_flag.h"

namespace railguard::report {

// The job's id.
inline uint32_t SlurmJobId(const slurm_job_info_t& job) { return job.job_id; }

// The node state flags this release has beyond the ones slurm_source.cc names for all: none.
inline constexpr std::array<ReleaseNodeFlag, 0> kReleaseNodeFlags{};

// Frees what slurm_load_ctl_conf returned (slurm_free_ctl_conf before 26.05).
inline void FreeCtlConf(slurm_conf_t* conf) { slurm_free_ctl_conf(conf); }

}  // namespace railguard::report
