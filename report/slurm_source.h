// SPDX-License-Identifier: GPL-2.0-or-later
// ClusterSource over libslurm's public C API (slurm_load_node, slurm_load_jobs,
// slurm_load_ctl_conf): how `railctl report` reads the live cluster. Never runs scontrol.
#pragma once

#include <memory>
#include <string>

#include "report/snapshot.h"

namespace railguard::report {

// Initializes libslurm with `slurm_conf`, the one libslurm would read (the caller finds it:
// config/locate.h FindSlurmConf, with its origin, e.g. "$SLURM_CONF", for the message), and
// returns the source; nullptr with `*err` when that file cannot be read (libslurm would
// otherwise end the process). One per process.
std::unique_ptr<ClusterSource> OpenSlurmSource(const std::string& slurm_conf,
                                               const std::string& origin, std::string* err);

}  // namespace railguard::report
