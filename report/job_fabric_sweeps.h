// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric side of a job's record: what the fabric sweeps taken while the job ran
// (`railctl fabric sweep --json`, wire/sweep_json.h) found on the links the job's nodes used:
// their host links (either end), the uplinks of the leaves they reach and, in a three-tier
// fabric, the core links of the spines those uplinks reach. `railctl job
// --sweeps DIR` reads the sweep JSON files a site keeps (for example a cron job writing
// DIR/sweep-$(date +%s).json every few minutes and deleting old ones).
#pragma once

#include <string>
#include <vector>

#include "base/diag.h"
#include "report/job_fabric.h"
#include "wire/sweep_json.h"

namespace railguard::report {

// Sweeps whose counter phase began between the job's start and this long after its end count:
// errors of the job's last minutes show in the first sweep after it.
constexpr double kSweepAfterJobSeconds = 900;

// Adds to `f` what `sweeps` (any order) found on the job's links. A sweep counts when its
// counter phase began in [f->start, f->end + kSweepAfterJobSeconds], or began before
// f->start (the earliest Prolog reading) while the sweep, by its wall time, still ran then;
// sweeps without a time are left out. It adds one
// JobFabricFinding of kind "fabric" per link and finding kind, naming the link's ends and
// ports, which side errs, how many of the sweeps showed it and its last message; and one note
// saying how many sweeps were read ("no fabric sweep ran during the job" when none). A host
// link counts when its host is one of the job's nodes; an uplink when its leaf end ("a") is a
// leaf in f->rows; a core link (spine - core switch) when its spine end ("a") is the spine end
// of such an uplink in the same sweep (its finding names no leaf).
void AddJobSweeps(const std::vector<wire::SweepDocument>& sweeps, JobFabric* f);

// Reads the sweep JSON files of `dir` (regular files ending in ".json", at most 10000) whose
// modification time is within the window above (a sweep is written after its counter phase),
// appending them to `*out`. Problems go to `*errors`; false when `dir` cannot be read.
bool ReadSweepsForJob(const std::string& dir, double start, double end,
                      std::vector<wire::SweepDocument>* out, Diags* errors);

}  // namespace railguard::report
