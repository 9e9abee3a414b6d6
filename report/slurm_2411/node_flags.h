// SPDX-License-Identifier: GPL-2.0-or-later
// The node state flags Slurm has had since 24.11 beyond the ones slurm_source.cc names for
// every release (for source_version.h of 24.11 and later).
#pragma once

#include <slurm/slurm.h>

#include <array>

#include "report/slurm_node_flag.h"

namespace railguard::report {

// BLOCKED: an idle node that a job with --exclusive=topo keeps out of its topology unit
// (24.11's slurmctld/node_mgr.c sets it from topology_g_whole_topo()).
inline constexpr std::array<ReleaseNodeFlag, 1> kReleaseNodeFlags{{
    {NODE_STATE_BLOCKED, "blocked"},
}};

}  // namespace railguard::report
