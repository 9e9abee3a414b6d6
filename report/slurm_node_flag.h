// SPDX-License-Identifier: GPL-2.0-or-later
// One Slurm node state flag of a given release and its name in the report, for the
// release's report/slurm_<series>/source_version.h (kReleaseNodeFlags).
#pragma once

#include <cstdint>

namespace railguard::report {

struct ReleaseNodeFlag {
  uint32_t bit;      // NODE_STATE_* of that release's slurm.h
  const char* name;  // Slurm's name for it, lower case (NodeSnapshot::flags)
};

}  // namespace railguard::report
