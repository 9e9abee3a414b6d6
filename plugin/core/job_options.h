// SPDX-License-Identifier: GPL-2.0-or-later
// The per-job railguard options (--rail-placement, --rail-max-sus, --rail-hetjob): their checks, shared by
// the SPANK plugin (at the command line) and job_submit/rail (at submission), and the names
// under which they travel in the job's SPANK environment.
#pragma once

#include <string>
#include <string_view>

#include "config/config.h"

namespace railguard::plugin {

// Names passed to spank_job_control_setenv(). Slurm stores job-control variables as given
// ("NAME=value" in job_desc->spank_job_env) and prepends "SPANK_" only to names that lack it
// when it builds prolog/epilog environments; giving the full name keeps it identical in the
// submit request, the saved job and the prolog.
inline constexpr char kPlacementEnv[] = "SPANK_RAIL_PLACEMENT";
inline constexpr char kMaxSusEnv[] = "SPANK_RAIL_MAX_SUS";
inline constexpr char kHetjobEnv[] = "SPANK_RAIL_HETJOB";

// Largest --rail-max-sus accepted (the same bound as max_sus_default).
inline constexpr int kMaxSusOption = kMaxSusLimit;

// Checks a --rail-placement value. On false, `*err` is one line saying what is allowed; the
// value in it is printable ASCII and at most 40 characters (it reaches slurmctld's log).
bool ParsePlacementOption(std::string_view value, PlacementMode* out, std::string* err);

// Checks a --rail-max-sus value: a whole number from 1 to kMaxSusOption. On false, `*err` is
// one line saying what is allowed, with the value shown as for ParsePlacementOption.
bool ParseMaxSusOption(std::string_view value, int* out, std::string* err);

// Checks a --rail-hetjob value: "together" (every component of a heterogeneous job in one
// SU) or "apart" (each multi-node component confined on its own, the default). *together
// tells which. On false, `*err` is one line saying what is allowed.
bool ParseHetjobOption(std::string_view value, bool* together, std::string* err);

}  // namespace railguard::plugin
