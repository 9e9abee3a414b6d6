// SPDX-License-Identifier: GPL-2.0-or-later
// What slurm_source.cc reads differently per Slurm release: 22.05 and 24.11 (which has no
// folder of its own). Every other field and constant it uses is the same in 22.05, 24.11
// and 25.11.
#pragma once

#include <slurm/slurm.h>

namespace railguard::report {

// The job's id.
inline uint32_t SlurmJobId(const slurm_job_info_t& job) { return job.job_id; }

}  // namespace railguard::report
