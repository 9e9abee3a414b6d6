// SPDX-License-Identifier: GPL-2.0-or-later
// Job-aware placement on a rail-optimized fabric: from what a job asks for, the railguard
// config and the sizes of the scalable units (SUs), decide the job's switch bound
// (req_switch, wait4switch), its required node features, and the one line that tells the
// user. Pure functions: no Slurm, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "topo/model.h"

namespace railguard::plugin {

// What a submitted job asks for, as job_submit sees it.
struct JobFacts {
  uint32_t min_nodes = 0;               // --nodes (minimum); 0 = not given
  bool has_switches = false;            // --switches given: req_switch is the user's
  bool has_nodelist = false;            // --nodelist given
  std::string features;                 // --constraint as submitted; "" = none
  uint32_t num_tasks = 0;               // --ntasks; 0 = not given
  uint32_t ntasks_per_node = 0;         // --ntasks-per-node; 0 = not given
  std::string tres_per_job;             // e.g. "gres:gpu:16" from --gpus
  std::string tres_per_task;            // e.g. "gres:gpu:1" from --gpus-per-task
  std::vector<std::string> spank_env;   // "NAME=value" entries of the job's SPANK environment
  bool healthy_feature_defined = true;  // some node in the cluster has the healthy feature
  uint32_t max_switch_wait = 300;       // Slurm's cap on wait4switch (SchedulerParameters)
};

// What placement needs to know about the fabric.
struct Fabric {
  std::vector<uint32_t> su_sizes;  // nodes per SU
  uint32_t gpus_per_node = 0;      // shared by every SU's node type; 0 = they differ, or none
};

// The SU sizes and GPUs per node of `topo`.
Fabric FabricOf(const topo::Topology& topo);

// What to do with the job.
struct Decision {
  enum Refusal {
    kAccept = 0,  // the job goes on (possibly changed as below)
    kBadOption,   // a --rail-* value is wrong; `message` says what is allowed
    kTooManySus,  // strict, and the job needs more SUs than its limit; `message` says so
  } refuse = kAccept;
  bool set_switches = false;  // set the job's req_switch and wait4switch to these
  uint32_t req_switch = 0;    // most leaf switches (= SUs) Slurm should use
  uint32_t wait4switch = 0;   // seconds Slurm may hold the job for them
  bool set_features = false;  // replace the job's --constraint with `features`
  std::string features;
  std::string message;  // one line for the user, "railguard: ..."; "" = nothing to say
};

// The decision for one job. Rules, in order:
//  - a bad SPANK_RAIL_PLACEMENT / SPANK_RAIL_MAX_SUS value refuses the job;
//  - mode off (from the job or default_mode): nothing changes;
//  - a job of one node, or of a node count that cannot be derived, is left to packing;
//  - a job that names its nodes (--nodelist) is left as submitted;
//  - otherwise the healthy feature is required (combined with the user's --constraint), and
//    unless the user gave --switches, req_switch = the fewest SUs that hold the job with
//    wait4switch = WaitBound(), capped at max_switch_wait. A job that needs more SUs than
//    its limit (--rail-max-sus, else max_sus_default) is refused under strict and left to
//    spread under prefer.
// The node count is min_nodes; without it, ceil(GPUs / gpus_per_node) from --gpus or from
// --gpus-per-task x --ntasks, or ceil(ntasks / ntasks_per_node).
Decision DecidePlacement(const JobFacts& job, const PlacementConfig& config, const Fabric& fabric);

// Seconds Slurm may hold a job of `nodes` nodes for its SUs: base + per_node * nodes, at most
// wait_max, for strict; a quarter of that for prefer; 0 for off.
uint32_t WaitBound(const PlacementConfig& config, PlacementMode mode, uint32_t nodes);

// The fewest SUs, largest first, whose nodes add up to at least `nodes`; 0 if all of them
// together are too few.
uint32_t SusNeeded(const std::vector<uint32_t>& su_sizes, uint32_t nodes);

// The max_switch_wait of a SchedulerParameters string, read the way slurmctld reads it
// (first "max_switch_wait=", case-insensitive, leading integer); 300 when absent or negative.
uint32_t ParseMaxSwitchWait(std::string_view sched_params);

// Total GPUs in a tres_per_* string ("gres:gpu:16", "gres:gpu:h100:2,gres:gpu:a100:2");
// 0 when there is no GPU entry or an entry's count cannot be read.
uint64_t GpuCount(std::string_view tres);

// The result of adding a required feature to a --constraint expression.
struct Constraint {
  enum Kind {
    kAdded,         // `features` requires the feature too
    kAlreadyThere,  // the user's expression already requires it; `features` == user's
    kTooComplex,    // cannot be combined safely (brackets with a top-level '|')
  } kind = kAdded;
  std::string features;  // the expression to submit
};

// Adds `feature` to the user's --constraint `user` so that both hold. Slurm 22.05 evaluates
// constraints left to right without precedence, allows one level of parentheses (no counts
// inside) and one bracket group; the result keeps within that: "f" when empty, "a&b&f" for
// AND-only, "(a|b)&f" for a plain OR, "user&f" with parentheses or counts, "f&[a|b]" with
// brackets (the form of Slurm's own examples), and kTooComplex for brackets next to a
// top-level '|'.
Constraint RequireFeature(std::string_view user, std::string_view feature);

}  // namespace railguard::plugin
