// SPDX-License-Identifier: GPL-2.0-or-later
// ClusterSource over libslurm's public C API (slurm_load_node, slurm_load_jobs,
// slurm_load_ctl_conf): how `railctl report` reads the live cluster. Never runs scontrol.
#pragma once

#include <memory>
#include <string>

#include "report/snapshot.h"

namespace railguard::report {

// Initializes libslurm with the slurm.conf of $SLURM_CONF, else the one that libslurm reads
// by default (found in it at build time: /etc/slurm/slurm.conf for Debian's Slurm,
// <prefix>/etc/slurm.conf for scripts/build_slurm.sh's), and returns the source; nullptr with
// `*err` when that file cannot be read (libslurm would otherwise end the process). One per
// process.
std::unique_ptr<ClusterSource> OpenSlurmSource(std::string* err);

}  // namespace railguard::report
