// SPDX-License-Identifier: GPL-2.0-or-later
// The application's own numbers, read for `railctl job`: what a job left in a known place (the
// site's health.job_app_dir with "%j" as the job id, or files and folders given with --app)
// set beside its per-rail record. Each file's format is told from its text: nccl-tests' text
// output or its JSON (report/nccl_tests.h), NCCL Inspector logs (report/nccl_inspector.h; all
// Inspector files under one folder are one application), railguard's step-time file
// (report/step_times.h).
#pragma once

#include <string>
#include <string_view>

#include "base/diag.h"
#include "report/job_fabric.h"
#include "report/nccl_inspector.h"
#include "report/nccl_tests.h"
#include "report/step_times.h"

namespace railguard::report {

enum class AppFormat { kUnknown, kNcclTestsText, kNcclTestsJson, kNcclInspector, kStepTimes };

// The format of `text` (its first 64 KiB are enough): a JSON object on the first line with
// "coll_perf" is an Inspector log; a JSON object with "results" or "nccl_version" is
// nccl-tests -J; text with nccl-tests' "#  size  count ..." header or its "# nThread" line is
// nccl-tests output; "STEP SECONDS" as the first line that is not a comment is a step-time
// file; else kUnknown.
AppFormat SniffAppFormat(std::string_view text);

// Adds one application to `f->apps`, naming its hosts that are not the job's nodes (another
// job's output given by mistake, or host names that differ from Slurm's; "n003.cluster" is
// n003).
void AddNcclTests(const NcclTestsRun& run, bool json, JobFabric* f);
void AddNcclInspector(const NcclInspectorRun& run, JobFabric* f);
void AddStepTimes(const StepTimes& steps, JobFabric* f);

// What ReadJobApps found.
struct JobAppsRead {
  int files = 0;    // read into an application
  int skipped = 0;  // in a folder, of no format above (checkpoints, logs): not read
};

// Reads `path` into `f->apps`: a file in one of the formats above, or a folder whose regular
// files (and those of its subfolders, two levels, at most 4096 files) are read when their
// format is known. A file given by name in no known format is an error; in a folder it is
// skipped and counted. Problems go to `*errors` as file:line with the form expected; what
// could be read is added all the same. Returns false when `path` cannot be read or a file in
// it had an error.
bool ReadJobApps(const std::string& path, JobFabric* f, JobAppsRead* read, Diags* errors);

}  // namespace railguard::report
