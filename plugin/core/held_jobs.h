// SPDX-License-Identifier: GPL-2.0-or-later
// Multi-node jobs that wait for healthy nodes: job_submit/rail holds a job whose partition has
// fewer healthy nodes than it needs (Slurm 22.05 would refuse it: "Requested node
// configuration is not available"), and its feature keeper releases the job once enough nodes
// are healthy. It also takes over jobs that Slurm's scheduler parked for the same reason
// after they were accepted (Reason BadConstraints, priority 0: they would wait for an admin).
// Pure: the Slurm side reads the job records and applies the step.
#pragma once

#include <cstdint>
#include <string>

namespace railguard::plugin {

// The AdminComment railguard gives a job it holds: "railguard: held until N nodes are
// healthy (feature F)". Users cannot change a job's AdminComment.
std::string HoldMark(uint32_t nodes, const std::string& feature);

// The reason squeue shows for such a job (its state_desc): "railguard: waits for N healthy
// nodes (feature F), H now".
std::string WaitReason(uint32_t nodes, uint32_t healthy, const std::string& feature);

// `admin_comment` with railguard's HoldMark added after what is there ("; " between them).
std::string WithHoldMark(const std::string& admin_comment, const std::string& mark);

// `admin_comment` without railguard's HoldMark (and the "; " before it), as it was.
std::string WithoutHoldMark(const std::string& admin_comment);

// The N of the HoldMark in an AdminComment (anywhere in it); 0 when there is none.
uint32_t ReadHoldMark(const std::string& admin_comment);

// A pending job of priority 0, as the keeper sees it.
struct ParkedJob {
  std::string admin_comment;
  std::string state_desc;
  std::string features;          // its --constraint as Slurm keeps it
  bool held = false;             // Reason JobHeldAdmin or JobHeldUser (a hold)
  bool bad_constraints = false;  // Reason BadConstraints (FAIL_BAD_CONSTRAINTS)
  uint32_t min_nodes = 0;
  uint32_t healthy = 0;  // healthy nodes of its partition(s), minus its --exclude
};

// What the keeper does with it.
struct ParkedStep {
  enum Kind {
    kLeave,    // not railguard's, or nothing to change
    kNote,     // set state_desc to `reason`
    kMark,     // set AdminComment to `mark` and state_desc to `reason`
    kRelease,  // release the hold; AdminComment becomes WithoutHoldMark(AdminComment)
  } kind = kLeave;
  std::string mark;
  std::string reason;
  // kRelease: the --constraint to set first (the job's own with the healthy feature added),
  // for a job held while no node had the feature (Decision::defer_feature); "" = keep it.
  std::string features;
};

// The rules, with `feature` the healthy feature (non-empty):
//  - a job railguard holds or took over (HoldMark in AdminComment; held or BadConstraints)
//    is released when `healthy` reaches its N, with `features` set when its --constraint
//    does not name `feature` (RequireFeature), else its reason is kept up to date (kNote
//    when it differs);
//  - a BadConstraints multi-node job whose --constraint requires `feature` and whose
//    partition has fewer healthy nodes than min_nodes is taken over: kMark, with `mark` =
//    WithHoldMark(its AdminComment, HoldMark(min_nodes, feature));
//  - with `restore` (slurmctld just read slurm.conf and dropped the run-time features for a
//    moment, during which the scheduler may have parked jobs), such a job with enough healthy
//    nodes is released once;
//  - anything else is left alone: a user's own hold, an admin's hold without the mark, a job
//    parked for other reasons.
ParkedStep JudgeParkedJob(const ParkedJob& job, const std::string& feature, bool restore);

}  // namespace railguard::plugin
