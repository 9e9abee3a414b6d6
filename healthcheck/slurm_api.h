// SPDX-License-Identifier: GPL-2.0-or-later
// SlurmApi over libslurm's public C API (slurm_load_node_single, slurm_update_node): how
// railcheck reads and changes its node in slurmctld. Never runs scontrol.
#pragma once

#include <memory>
#include <string>

#include "healthcheck/act.h"

namespace railguard::health {

// Initializes libslurm (slurm_init: slurm.conf from $SLURM_CONF or the compiled-in default)
// and returns the API, or nullptr with `*err`. One per process.
std::unique_ptr<SlurmApi> OpenLibslurm(std::string* err);

// The slurm.conf the libslurm railcheck is linked to reads when $SLURM_CONF is not set (its
// compiled-in default: /etc/slurm/slurm.conf for Debian's, <prefix>/etc/slurm.conf for
// scripts/build_slurm.sh's), found in that library when railcheck was built.
std::string LibslurmDefaultConf();

}  // namespace railguard::health
