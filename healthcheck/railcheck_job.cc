// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/railcheck_job.h"

#include <string>
#include <vector>

#include "healthcheck/job_counters.h"
#include "wire/job_log.h"

namespace railguard::health {
namespace {

constexpr size_t kMaxSharedWith = 64;

void AddShared(std::vector<uint64_t>* v, uint64_t job) {
  for (uint64_t x : *v)
    if (x == job) return;
  if (v->size() < kMaxSharedWith) v->push_back(job);
}

void OpenAtProlog(const RunInput& in, uint64_t job, RunReport* r) {
  const std::string& dir = in.setup.state_dir;
  OpenJob j = OpenJobAt(job, in.setup.node, in.facts, in.now);
  std::string err;
  // The jobs already here share the node with this one, and this one with them.
  for (uint64_t other : ListOpenJobs(dir)) {
    if (other == job) continue;  // a requeued job starts again
    OpenJob o;
    if (!LoadOpenJob(dir, other, &o, &err)) {
      r->warnings.push_back("job file not read: " + err);
      continue;
    }
    AddShared(&j.shared_with, other);
    AddShared(&o.shared_with, job);
    if (!SaveOpenJob(dir, o, &err)) r->warnings.push_back("job file not written: " + err);
  }
  if (!SaveOpenJob(dir, j, &err)) {
    r->warnings.push_back("job file not written: " + err);
    return;
  }
  r->job = "job " + std::to_string(job) + ": counters read at the start -> " +
           OpenJobPath(dir, job);
}

void CloseAtEpilog(const RunInput& in, uint64_t job, RunReport* r) {
  const std::string& dir = in.setup.state_dir;
  OpenJob j;
  std::string err;
  if (!LoadOpenJob(dir, job, &j, &err)) {
    r->job = "job " + std::to_string(job) + ": no record (" + err + ")";
    return;
  }
  const wire::JobNodeRecord rec = CloseJob(j, in.facts, in.now);
  const std::string log = ExpandNode(in.setup.health().job_log, in.setup.node);
  if (!wire::AppendJobRecord(log, rec, &err)) {
    // The job file stays: a later Epilog of the same job (a requeue) or an admin can retry.
    r->warnings.push_back("job log not written: " + err);
    return;
  }
  if (!RemoveOpenJob(dir, job, &err)) r->warnings.push_back(err);
  int unknown = 0;
  for (const wire::JobRail& x : rec.rails) unknown += x.known() ? 0 : 1;
  r->job = "job " + std::to_string(job) + ": record of " + std::to_string(rec.rails.size()) +
           " rails" + (unknown ? " (" + std::to_string(unknown) + " without numbers)" : "") +
           " -> " + log;
}

void SampleOpenJobs(const RunInput& in, RunReport* r) {
  const std::string& dir = in.setup.state_dir;
  int sampled = 0;
  for (uint64_t job : ListOpenJobs(dir)) {
    OpenJob j;
    std::string err;
    if (!LoadOpenJob(dir, job, &j, &err)) {
      r->warnings.push_back("job file not read: " + err);
      continue;
    }
    if (in.now - j.start > kStaleJobSeconds) {
      if (RemoveOpenJob(dir, job, &err))
        r->warnings.push_back("job " + std::to_string(job) +
                              ": its job file was never closed by an Epilog; removed");
      else
        r->warnings.push_back(err);
      continue;
    }
    AddReading(in.facts, in.now, &j);
    if (SaveOpenJob(dir, j, &err))
      ++sampled;
    else
      r->warnings.push_back("job file not written: " + err);
  }
  if (sampled > 0)
    r->job = std::to_string(sampled) + " running job" + (sampled == 1 ? "" : "s") +
             ": counters read";
}

}  // namespace

void RecordJobCounters(const RunContext& ctx, const RunInput& in, RunReport* r) {
  const Mode mode = in.options.mode;
  if (mode == Mode::kPeriodic) {
    ctx.Phase("reading the running jobs' counters");
    SampleOpenJobs(in, r);
    return;
  }
  if (!IsHook(mode)) return;
  uint64_t job = 0;
  if (ctx.env.slurm_job_id.empty()) return;  // run by hand: no job
  if (!ParseJobId(ctx.env.slurm_job_id, &job)) {
    r->warnings.push_back("SLURM_JOB_ID='" + ctx.env.slurm_job_id.substr(0, 40) +
                          "': expected a job id 1-4294967295; no job record");
    return;
  }
  ctx.Phase(mode == Mode::kProlog ? "opening the job's record" : "closing the job's record");
  if (mode == Mode::kProlog)
    OpenAtProlog(in, job, r);
  else
    CloseAtEpilog(in, job, r);
}

}  // namespace railguard::health
